import { resolve } from "node:path";
import { createLimitStore, createJobQueue as createStore, createRunLedger } from "../jobs/create-queue.ts";
import type { LimitStore } from "../jobs/limits.ts";
import type { RunLedger } from "../jobs/run-ledger.ts";
import type { JobQueue } from "../jobs/types.ts";
import { createJobMetrics, registerQueueGauge } from "../jobs/metrics.ts";
import { MetricsRegistry } from "../ops/metrics.ts";

export interface AppQueue {
  queue: JobQueue;
  ledger: RunLedger & { close(): Promise<void> };
  /** Counters every worker shares (the repository's daily model spend), in the same store. */
  limits: LimitStore;
  /** False on Redis: the webhook server only enqueues and `auto-fix worker` processes run the jobs. */
  runsJobsInProcess: boolean;
  /** The metrics the queue records, served at /metrics. */
  registry: MetricsRegistry;
  /** Releases the store and the ledger (after `queue.stop`). */
  close(): Promise<void>;
}

/**
 * The one place the app gets its job store and run ledger: the embedded `node:sqlite` store in
 * `AUTO_FIX_DATA_DIR` (default `.auto-fix/data`), or BullMQ on Redis when `REDIS_URL` is set.
 * `AUTO_FIX_JOB_LEASE_SECONDS` (default 60) is how long a job stays with a worker that stopped renewing it.
 */
export function createAppQueue(
  env: NodeJS.ProcessEnv,
  log: (message: string, fields?: Record<string, unknown>) => void = (m, f) =>
    process.stderr.write(`auto-fix jobs: ${m}${f ? ` ${JSON.stringify(f)}` : ""}\n`),
): AppQueue {
  const dataDir = resolve(env.AUTO_FIX_DATA_DIR?.trim() || ".auto-fix/data");
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  const leaseSeconds = Number(env.AUTO_FIX_JOB_LEASE_SECONDS);
  const registry = new MetricsRegistry();
  const config = {
    dataDir,
    redisUrl,
    ...(leaseSeconds >= 1 && { leaseMs: leaseSeconds * 1000 }),
    metrics: createJobMetrics(registry),
    log,
  };
  const queue = createStore(config);
  const ledger = createRunLedger(config);
  const limits = createLimitStore(config);
  registerQueueGauge(registry, queue);
  return {
    queue,
    ledger,
    limits,
    runsJobsInProcess: !redisUrl,
    registry,
    close: async () => {
      await queue.close?.();
      await ledger.close();
      await limits.close();
    },
  };
}
