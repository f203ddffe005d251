/**
 * `GET /health` (JSON; 503 when a run cannot work: the job store is unreachable, a process that runs
 * jobs has no usable model, a model endpoint that does not answer, no working sandbox or too little disk,
 * GitHub cannot be reached or sends the webhooks somewhere else, or the process is shutting down;
 * "degraded" with 200 when runs work but something will bite later: a job store that a restart empties,
 * deliveries stuck half-handled) and `GET /metrics` (Prometheus text format, the same facts as gauges),
 * for Probot's server and for `auto-fix worker --port`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { registerHealthMetrics } from "./health-metrics.ts";
import { type MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from "./metrics.ts";
import type { DiskCheck, EndpointReachability, ModelCheck, Readiness, SandboxCheck } from "./readiness.ts";

/** What the health page asks of the job store (any queue implementation). */
export interface OpsQueue {
  kind?: string;
  health?(): Promise<{ ok: boolean; detail: string }>;
  counts?(): Promise<Record<string, number>>;
  durability?(): Promise<{ ok: boolean | null; detail: string }>;
  listHeld?(): Promise<Array<{ deliveryId: string; event: string; heldAt: number }>>;
}

/** A delivery this process answered and is still working on (its permission or config check). */
export interface WorkingDelivery {
  deliveryId: string;
  event: string;
  since: number;
}

/** The last call this process made to GitHub's API as the app (null: none made yet). */
export interface GitHubStatus {
  ok: boolean | null;
  detail: string;
}

/** A held delivery as /health lists it. */
export interface HeldReport {
  deliveryId: string;
  event: string;
  ageSeconds: number;
  /** This process is working on it now (else it waits in the store for a process to resume it). */
  working: boolean;
}

export interface OpsDeps {
  registry: MetricsRegistry;
  queue: OpsQueue;
  /** "app" (webhook server) or "worker". */
  role: string;
  startedAt?: number;
  /** True once shutdown began: health turns 503 so load balancers stop sending work. */
  isStopping?: () => boolean;
  /** The model settings and the sandbox backend. */
  readiness?: Readiness;
  /** This process runs jobs: without a model or a sandbox it cannot work. */
  runsJobs?: boolean;
  /** Whether GitHub's webhook URL for the app can reach this server (the webhook server only). */
  webhook?: () => WebhookStatus;
  /** Whether GitHub's API answered the app's last call (the webhook server only). */
  github?: () => GitHubStatus;
  /** The deliveries this process is working on after answering them. */
  working?: () => WorkingDelivery[];
  /** A delivery held longer than this is stuck (default two minutes). */
  stuckAfterMs?: number;
  now?: () => number;
  /** Hears each /health answer (to log when it changes, `healthChangeLog`). */
  onReport?: (report: HealthReport) => void;
}

/**
 * One log line when /health's answer changes (its status or its problems), none per request: a
 * health poller does not fill the log, and a change is said once, with what is wrong.
 */
export function healthChangeLog(log: {
  info(msg: string): void;
  warn(msg: string): void;
}): (report: { status: string; problems: readonly string[] }) => void {
  let last: string | null = null;
  return (report) => {
    const key = `${report.status}\n${report.problems.join("\n")}`;
    if (key === last) return;
    last = key;
    const what = report.problems.length > 0 ? `: ${report.problems.join("; ")}` : "";
    if (report.status === "ok") log.info(`health: ok${what}`);
    else log.warn(`health: ${report.status}${what}`);
  };
}

export interface WebhookStatus {
  /** null while not checked yet or when GitHub could not be asked. */
  ok: boolean | null;
  /** The URL GitHub sends the app's webhooks to, as GitHub reported it. */
  url: string | null;
  detail: string;
}

export interface HealthReport {
  /** unavailable (503): a run cannot work now; degraded (200): runs work, `warnings` say what to fix. */
  status: "ok" | "degraded" | "unavailable";
  role: string;
  /** Why runs cannot work (empty when they can). */
  problems: string[];
  /** What works now but loses something later (empty when nothing). */
  warnings: string[];
  queue: { kind: string; ok: boolean; detail: string; durable?: { ok: boolean | null; detail: string } };
  jobs: Record<string, number> | null;
  model?: ModelCheck & { required: boolean; reachable: EndpointReachability | null };
  sandbox?: SandboxCheck & { required: boolean };
  disk?: DiskCheck[];
  github?: GitHubStatus;
  webhook?: WebhookStatus;
  /** Answered deliveries not finished yet, oldest first; `stuck` counts those held too long. */
  deliveries?: { held: HeldReport[]; stuck: number; stuckAfterSeconds: number };
  uptimeSeconds: number;
}

const DEFAULT_STUCK_AFTER_MS = 120_000;

/** The held deliveries (store and this process), oldest first, with their age. */
async function heldDeliveries(deps: OpsDeps, now: number): Promise<HeldReport[] | null> {
  if (!deps.queue.listHeld && !deps.working) return null;
  const working = new Map((deps.working?.() ?? []).map((w) => [w.deliveryId, w]));
  const stored = (await deps.queue.listHeld?.().catch(() => null)) ?? [];
  const out = new Map<string, HeldReport>();
  for (const h of stored) {
    const w = working.get(h.deliveryId);
    const since = Math.min(h.heldAt, w?.since ?? h.heldAt);
    out.set(h.deliveryId, {
      deliveryId: h.deliveryId,
      event: h.event,
      ageSeconds: Math.max(0, Math.round((now - since) / 1000)),
      working: Boolean(w),
    });
  }
  for (const w of working.values()) {
    if (out.has(w.deliveryId)) continue;
    out.set(w.deliveryId, {
      deliveryId: w.deliveryId,
      event: w.event,
      ageSeconds: Math.max(0, Math.round((now - w.since) / 1000)),
      working: true,
    });
  }
  return [...out.values()].sort((a, b) => b.ageSeconds - a.ageSeconds);
}

export async function healthReport(deps: OpsDeps): Promise<HealthReport> {
  const started = deps.startedAt ?? Date.now();
  let queue = { kind: deps.queue.kind ?? "unknown", ok: true, detail: "" };
  try {
    if (deps.queue.health) queue = { kind: queue.kind, ...(await deps.queue.health()) };
  } catch (err) {
    queue = { kind: queue.kind, ok: false, detail: String(err) };
  }
  let jobs: Record<string, number> | null = null;
  if (queue.ok && deps.queue.counts) jobs = await deps.queue.counts().catch(() => null);
  const problems: string[] = [];
  const warnings: string[] = [];
  if (!queue.ok) problems.push(`job store (${queue.kind}): ${queue.detail}`);
  let durable: { ok: boolean | null; detail: string } | undefined;
  if (queue.ok && deps.queue.durability) {
    durable = await deps.queue
      .durability()
      .catch((err: unknown) => ({ ok: null, detail: `could not check: ${String(err)}` }));
    if (durable.ok === false) warnings.push(`job store (${queue.kind}): ${durable.detail}`);
  }
  const required = deps.runsJobs ?? false;
  let model: HealthReport["model"];
  let sandbox: HealthReport["sandbox"];
  let disk: DiskCheck[] | undefined;
  if (deps.readiness) {
    const settings = deps.readiness.model();
    const reachable = settings.ok ? await deps.readiness.endpoint() : null;
    model = { ...settings, ok: settings.ok && reachable?.ok !== false, required, reachable };
    sandbox = { ...(await deps.readiness.sandbox()), required };
    disk = deps.readiness.disk();
    if (required && !settings.ok) problems.push(`model: ${settings.detail}`);
    if (required && reachable && !reachable.ok) problems.push(`model: ${reachable.detail}`);
    if (required && !sandbox.ok) problems.push(`sandbox: ${sandbox.detail}`);
    for (const d of disk) if (!d.ok) problems.push(`disk: ${d.detail}`);
  }
  const github = deps.github?.();
  if (github?.ok === false) problems.push(`github: ${github.detail}`);
  const webhook = deps.webhook?.();
  if (webhook?.ok === false) problems.push(`webhook: ${webhook.detail}`);
  const now = (deps.now ?? Date.now)();
  const stuckAfterMs = deps.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS;
  const held = await heldDeliveries(deps, now);
  let deliveries: HealthReport["deliveries"];
  if (held) {
    const stuck = held.filter((h) => h.ageSeconds * 1000 >= stuckAfterMs);
    deliveries = { held, stuck: stuck.length, stuckAfterSeconds: Math.round(stuckAfterMs / 1000) };
    if (stuck.length > 0) {
      const oldest = stuck[0]!;
      warnings.push(
        `deliveries: ${stuck.length} answered webhook ${stuck.length === 1 ? "delivery is" : "deliveries are"} not finished after ${deliveries.stuckAfterSeconds} s (oldest ${oldest.deliveryId}, ${oldest.event}, held ${oldest.ageSeconds} s)${github?.ok === false ? ": GitHub cannot be reached" : ": see the log for what they wait on"}`,
      );
    }
  }
  if (deps.isStopping?.()) problems.push("shutting down");
  return {
    status: problems.length > 0 ? "unavailable" : warnings.length > 0 ? "degraded" : "ok",
    role: deps.role,
    problems,
    warnings,
    queue: durable ? { ...queue, durable } : queue,
    jobs,
    ...(model ? { model } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(disk ? { disk } : {}),
    ...(github ? { github } : {}),
    ...(webhook ? { webhook } : {}),
    ...(deliveries ? { deliveries } : {}),
    uptimeSeconds: Math.round((Date.now() - started) / 1000),
  };
}

/** Answers /health and /metrics; returns false (and writes nothing) for any other request. */
export async function serveOps(deps: OpsDeps, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/health" && path !== "/metrics") return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return true;
  }
  if (path === "/health") {
    const report = await healthReport(deps);
    deps.onReport?.(report);
    res
      .writeHead(report.status === "unavailable" ? 503 : 200, {
        "content-type": "application/json",
        "cache-control": "no-store",
      })
      .end(req.method === "HEAD" ? undefined : `${JSON.stringify(report)}\n`);
    return true;
  }
  const text = await deps.registry.render();
  res
    .writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE })
    .end(req.method === "HEAD" ? undefined : text);
  return true;
}

/** A stand-alone server for /health and /metrics (used by worker processes). */
export async function startOpsServer(deps: OpsDeps, port: number, host = "127.0.0.1"): Promise<Server> {
  registerHealthMetrics(deps.registry, () => healthReport(deps));
  const server = createServer((req, res) => {
    serveOps(deps, req, res)
      .then((handled) => {
        if (!handled) res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function serverPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
