import { createJobQueue as createStore, createRunLedger } from "../jobs/create-queue.ts";
import type { JobQueue } from "../jobs/types.ts";
import { createJobMetrics, registerQueueGauge } from "../ops/job-metrics.ts";
import { MetricsRegistry } from "../ops/metrics.ts";
import type { RunLedger } from "./budgets.ts";

export interface QueueSetup {
  queue: JobQueue;
  ledger: RunLedger;
  /** The metrics the queue records, served at /metrics. */
  registry: MetricsRegistry;
  /** Releases the store (after `queue.stop`). */
  close(): Promise<void>;
}

/**
 * The one place the app gets its job queue and run ledger: BullMQ on Redis when `REDIS_URL` is set (the
 * server only enqueues; `auto-fix worker` processes run the jobs), else the embedded node:sqlite store in
 * `AUTO_FIX_DATA_DIR` (default `.auto-fix/data`) with workers in this process.
 */
export async function createJobQueue(
  env: NodeJS.ProcessEnv,
  log: (message: string, fields?: Record<string, unknown>) => void = (m, f) =>
    process.stderr.write(`auto-fix jobs: ${m}${f ? ` ${JSON.stringify(f)}` : ""}\n`),
): Promise<QueueSetup> {
  const registry = new MetricsRegistry();
  const leaseSeconds = Number(env.AUTO_FIX_JOB_LEASE_SECONDS);
  const config = {
    redisUrl: env.REDIS_URL?.trim() || undefined,
    dataDir: env.AUTO_FIX_DATA_DIR?.trim() || ".auto-fix/data",
    // How long a job stays with a worker that stopped renewing it (default 60 s).
    ...(leaseSeconds >= 1 && { leaseMs: leaseSeconds * 1000 }),
    metrics: createJobMetrics(registry),
    log,
  };
  const queue = createStore(config);
  const ledger = createRunLedger(config);
  registerQueueGauge(registry, queue);
  return {
    queue,
    ledger,
    registry,
    close: async () => {
      await queue.close?.();
      await ledger.close();
    },
  };
}
