import { resolve } from "node:path";
import { createJobQueue as createStore, createRunLedger } from "../jobs/create-queue.ts";
import type { RunLedger } from "../jobs/run-ledger.ts";
import type { JobQueue } from "../jobs/types.ts";

export interface AppQueue {
  queue: JobQueue;
  ledger: RunLedger & { close(): Promise<void> };
  /** False on Redis: the webhook server only enqueues and `auto-fix worker` processes run the jobs. */
  runsJobsInProcess: boolean;
}

/**
 * The one place the app gets its job store and run ledger: the embedded `node:sqlite` store in
 * `AUTO_FIX_DATA_DIR` (default `.auto-fix/data`), or BullMQ on Redis when `REDIS_URL` is set.
 */
export function createJobQueue(env: NodeJS.ProcessEnv): AppQueue {
  const dataDir = resolve(env.AUTO_FIX_DATA_DIR || ".auto-fix/data");
  const redisUrl = env.REDIS_URL || undefined;
  return {
    queue: createStore({ dataDir, redisUrl }),
    ledger: createRunLedger({ dataDir, redisUrl }),
    runsJobsInProcess: !redisUrl,
  };
}
