import type { JobQueue, JobState } from "./types.ts";
import type { Counter, Histogram, MetricsRegistry } from "../ops/metrics.ts";

/** The metrics the job workers record; one instance per registry. */
export interface JobMetrics {
  enqueued(outcome: "queued" | "duplicate" | "active"): void;
  started(): void;
  stage(stage: string, seconds: number): void;
  finished(state: Extract<JobState, "done" | "failed" | "cancelled"> | "requeued", seconds: number): void;
  failure(reason: string): void;
  usage(promptTokens: number, completionTokens: number, costUsd: number): void;
}

const STAGE_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export function createJobMetrics(registry: MetricsRegistry): JobMetrics {
  const enq: Counter = registry.counter(
    "autofix_enqueue_total",
    "Webhook-triggered enqueue attempts by outcome (queued, duplicate delivery, already active).",
  );
  const started = registry.counter("autofix_job_starts_total", "Jobs taken by a worker in this process.");
  const finished = registry.counter(
    "autofix_job_runs_total",
    "Job runs that ended in this process, by outcome (done, failed, cancelled, requeued).",
  );
  const runSeconds: Histogram = registry.histogram(
    "autofix_job_run_duration_seconds",
    "Duration of job runs in this process, by outcome.",
    STAGE_BUCKETS,
  );
  const stageSeconds: Histogram = registry.histogram(
    "autofix_stage_duration_seconds",
    "Time from the previous checkpoint (or the start of the run) to the checkpoint of each stage.",
    STAGE_BUCKETS,
  );
  const failures = registry.counter("autofix_job_failures_total", "Failed job runs by reason.");
  const tokens = registry.counter("autofix_model_tokens_total", "Model tokens used by jobs, by kind.");
  const cost = registry.counter("autofix_model_cost_usd_total", "Model spend of jobs in US dollars.");
  return {
    enqueued: (outcome) => enq.inc({ outcome }),
    started: () => started.inc(),
    stage: (stage, seconds) => stageSeconds.observe({ stage }, seconds),
    finished: (state, seconds) => {
      finished.inc({ outcome: state });
      runSeconds.observe({ outcome: state }, seconds);
    },
    failure: (reason) => failures.inc({ reason }),
    usage: (p, c, usd) => {
      tokens.inc({ kind: "prompt" }, p);
      tokens.inc({ kind: "completion" }, c);
      cost.inc({}, usd);
    },
  };
}

/** Registers `autofix_jobs{state}` read from the queue's store at scrape time. */
export function registerQueueGauge(registry: MetricsRegistry, queue: JobQueue): void {
  registry.gauge("autofix_jobs", "Jobs in the store by state.", async () => {
    if (!queue.counts) return [];
    const counts = await queue.counts();
    return Object.entries(counts).map(([state, value]) => ({ labels: { state }, value }));
  });
}

/** Metrics that go nowhere, for callers that do not expose them. */
export const NO_METRICS: JobMetrics = {
  enqueued: () => {},
  started: () => {},
  stage: () => {},
  finished: () => {},
  failure: () => {},
  usage: () => {},
};
