import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { JobFailure } from "../../src/jobs/errors.ts";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { runWorkerProcess } from "../../src/jobs/worker-process.ts";
import { createJobMetrics } from "../../src/jobs/metrics.ts";
import { MetricsRegistry } from "../../src/ops/metrics.ts";
import { spec } from "../jobs/support/specs.ts";
import { deferred, waitFor } from "../jobs/support/wait.ts";

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("a worker process serves /health and /metrics with job states, stages, tokens, cost and failures", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-ops-"));
  const registry = new MetricsRegistry();
  const queue = new SqliteJobQueue({ dataDir: dir, pollMs: 20, metrics: createJobMetrics(registry) });
  const stop = deferred<string>();
  const listening = deferred<number>();
  try {
    const good = await queue.enqueue(spec());
    await queue.enqueue({ ...spec(), deliveryId: (await queue.get(good.jobId))!.spec.deliveryId });
    const bad = await queue.enqueue(spec());
    const lines: string[] = [];
    const worker = runWorkerProcess({
      queue,
      registry,
      concurrency: 1,
      graceMs: 1000,
      port: 0,
      onListening: listening.resolve,
      shutdown: stop.promise,
      log: (l) => void lines.push(l),
      handler: async (job, ctx) => {
        if (job.id === bad.jobId) throw new JobFailure("budget", "over budget");
        await ctx.checkpoint("cloned");
        ctx.recordUsage?.({ promptTokens: 120, completionTokens: 30, costUsd: 0.25 });
        await ctx.checkpoint("patched");
      },
    });
    const port = await listening.promise;
    const base = `http://127.0.0.1:${port}`;
    await waitFor("both jobs to finish", async () => {
      const c = await queue.counts();
      return c.done === 1 && c.failed === 1;
    });

    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    const body = (await health.json()) as { status: string; role: string; jobs: Record<string, number> };
    assert.equal(body.status, "ok");
    assert.equal(body.role, "worker");
    assert.equal(body.jobs.done, 1);
    assert.equal(body.jobs.failed, 1);

    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.equal(sample(text, 'autofix_jobs{state="done"}'), 1);
    assert.equal(sample(text, 'autofix_jobs{state="failed"}'), 1);
    assert.equal(sample(text, 'autofix_jobs{state="queued"}'), 0);
    assert.equal(sample(text, 'autofix_enqueue_total{outcome="queued"}'), 2);
    assert.equal(sample(text, 'autofix_enqueue_total{outcome="duplicate"}'), 1);
    assert.equal(sample(text, 'autofix_stage_duration_seconds_count{stage="cloned"}'), 1);
    assert.equal(sample(text, 'autofix_stage_duration_seconds_count{stage="patched"}'), 1);
    assert.equal(sample(text, 'autofix_model_tokens_total{kind="prompt"}'), 120);
    assert.equal(sample(text, 'autofix_model_tokens_total{kind="completion"}'), 30);
    assert.equal(sample(text, "autofix_model_cost_usd_total"), 0.25);
    assert.equal(sample(text, 'autofix_job_failures_total{reason="budget"}'), 1);
    assert.equal(sample(text, 'autofix_job_runs_total{outcome="done"}'), 1);
    assert.equal(sample(text, 'autofix_job_runs_total{outcome="failed"}'), 1);

    assert.equal((await fetch(`${base}/nope`)).status, 404);
    assert.equal((await fetch(`${base}/metrics`, { method: "POST" })).status, 405);

    stop.resolve("SIGTERM");
    await worker;
    assert.ok(lines.some((l) => l.startsWith("SIGTERM: no new jobs")));
    await assert.rejects(fetch(`${base}/health`), "the server is closed after shutdown");
    const closed = await queue.health();
    assert.equal(closed.ok, false, "a closed store reports unhealthy");
  } finally {
    stop.resolve("test end");
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  }
});
