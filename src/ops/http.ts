/**
 * `GET /health` (JSON; 503 when the app cannot work: the job store is unreachable, a process that runs
 * jobs has no model configured or no working sandbox, GitHub sends the webhooks somewhere else, or the
 * process is shutting down) and `GET /metrics` (Prometheus text format), for Probot's server and for
 * `auto-fix worker --port`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from "./metrics.ts";
import type { ModelCheck, Readiness, SandboxCheck } from "./readiness.ts";

/** What the health page asks of the job store (any queue implementation). */
export interface OpsQueue {
  kind?: string;
  health?(): Promise<{ ok: boolean; detail: string }>;
  counts?(): Promise<Record<string, number>>;
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
}

export interface WebhookStatus {
  /** null while not checked yet or when GitHub could not be asked. */
  ok: boolean | null;
  /** The URL GitHub sends the app's webhooks to, as GitHub reported it. */
  url: string | null;
  detail: string;
}

export interface HealthReport {
  status: "ok" | "unavailable";
  role: string;
  /** Why the status is not ok (empty when it is). */
  problems: string[];
  queue: { kind: string; ok: boolean; detail: string };
  jobs: Record<string, number> | null;
  model?: ModelCheck & { required: boolean };
  sandbox?: SandboxCheck & { required: boolean };
  webhook?: WebhookStatus;
  uptimeSeconds: number;
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
  if (!queue.ok) problems.push(`job store (${queue.kind}): ${queue.detail}`);
  const required = deps.runsJobs ?? false;
  let model: HealthReport["model"];
  let sandbox: HealthReport["sandbox"];
  if (deps.readiness) {
    model = { ...deps.readiness.model(), required };
    sandbox = { ...(await deps.readiness.sandbox()), required };
    if (required && !model.ok) problems.push(`model: ${model.detail}`);
    if (required && !sandbox.ok) problems.push(`sandbox: ${sandbox.detail}`);
  }
  const webhook = deps.webhook?.();
  if (webhook?.ok === false) problems.push(`webhook: ${webhook.detail}`);
  if (deps.isStopping?.()) problems.push("shutting down");
  return {
    status: problems.length === 0 ? "ok" : "unavailable",
    role: deps.role,
    problems,
    queue,
    jobs,
    ...(model ? { model } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(webhook ? { webhook } : {}),
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
    res
      .writeHead(report.status === "ok" ? 200 : 503, {
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
