/**
 * `/metrics` carries what `/health` says, as gauges read at scrape time: whether runs can work, each
 * check's result, the held and stuck deliveries and the oldest one's age, and the free disk space.
 */
import type { HealthReport } from "./http.ts";
import type { Labels, MetricsRegistry } from "./metrics.ts";

type Sample = { labels: Labels; value: number };

/** One health report per scrape: every gauge of the same scrape reads the same report. */
function sharedReport(report: () => Promise<HealthReport>, now: () => number): () => Promise<HealthReport> {
  let last: { at: number; report: Promise<HealthReport> } | null = null;
  return () => {
    if (!last || now() - last.at > 1000) last = { at: now(), report: report() };
    return last.report;
  };
}

const flag = (ok: boolean | null | undefined): number[] => (ok === true ? [1] : ok === false ? [0] : []);

/** The checks a health report ran, each as 1 (passed) or 0 (failed); checks that could not run are left out. */
export function checkSamples(r: HealthReport): Sample[] {
  const out: Sample[] = [];
  const add = (check: string, ok: boolean | null | undefined) => {
    for (const value of flag(ok)) out.push({ labels: { check }, value });
  };
  add("job_store", r.queue.ok);
  add("job_store_durable", r.queue.durable?.ok);
  if (r.model) {
    add("model_settings", r.model.reachable !== null || r.model.ok);
    add("model_endpoint", r.model.reachable?.ok);
  }
  add("sandbox", r.sandbox?.ok);
  if (r.disk)
    add(
      "disk",
      r.disk.every((d) => d.ok),
    );
  add("github", r.github?.ok);
  add("webhook_url", r.webhook?.ok);
  return out;
}

export function registerHealthMetrics(
  registry: MetricsRegistry,
  report: () => Promise<HealthReport>,
  now: () => number = Date.now,
): void {
  const read = sharedReport(report, now);
  registry.gauge(
    "auto_fix_health_status",
    "0 ok, 1 degraded (runs work; see /health warnings), 2 unavailable (a run cannot work; see /health problems)",
    async () => {
      const r = await read();
      return [{ labels: {}, value: r.status === "ok" ? 0 : r.status === "degraded" ? 1 : 2 }];
    },
  );
  registry.gauge("auto_fix_check_ok", "1 when the health check passed, 0 when it failed", async () =>
    checkSamples(await read()),
  );
  registry.gauge(
    "auto_fix_held_deliveries",
    "Answered webhook deliveries whose handling has not finished (held in the job store)",
    async () => [{ labels: {}, value: (await read()).deliveries?.held.length ?? 0 }],
  );
  registry.gauge(
    "auto_fix_stuck_deliveries",
    "Held deliveries older than the stuck limit (AUTO_FIX_STUCK_DELIVERY_SECONDS)",
    async () => [{ labels: {}, value: (await read()).deliveries?.stuck ?? 0 }],
  );
  registry.gauge(
    "auto_fix_oldest_held_delivery_seconds",
    "Age of the oldest held delivery (0 when none)",
    async () => [{ labels: {}, value: (await read()).deliveries?.held[0]?.ageSeconds ?? 0 }],
  );
  registry.gauge("auto_fix_disk_free_bytes", "Free bytes where runs and the job store write", async () =>
    ((await read()).disk ?? []).flatMap((d) =>
      d.freeBytes === null ? [] : [{ labels: { path: d.path }, value: d.freeBytes }],
    ),
  );
}
