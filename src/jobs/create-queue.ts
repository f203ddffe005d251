/**
 * Chooses the job store: BullMQ on Redis when a Redis URL is given (scale-out: the webhook server only
 * enqueues, `auto-fix worker` processes run jobs), else the embedded `node:sqlite` store in the data folder.
 */
import { UserError } from "../core/errors.ts";
import type { JobMetrics } from "./metrics.ts";
import type { Logger } from "./runner.ts";
import { type LimitStore, SqliteLimitStore } from "./limits.ts";
import { RedisLimitStore } from "./redis-limits.ts";
import { RedisJobQueue } from "./redis-queue.ts";
import { RedisRunLedger, type RunLedger, SqliteRunLedger } from "./run-ledger.ts";
import { SqliteJobQueue } from "./sqlite-queue.ts";
import type { JobQueue } from "./types.ts";

export interface JobQueueConfig {
  /** `REDIS_URL`; empty or absent selects the embedded store. */
  redisUrl?: string | undefined;
  /** The app's data folder (the embedded store lives in `<dataDir>/jobs.sqlite`). */
  dataDir: string;
  /** Lease (embedded) / lock (Redis) duration in ms; a dead worker's job is taken up after it. */
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  /** Redis key prefix (default "auto-fix"), so several deployments can share one Redis. */
  prefix?: string;
  metrics?: JobMetrics;
  log?: Logger;
}

/** Refuses a Redis URL that cannot work, with a message naming the setting. */
export function checkRedisUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UserError(`REDIS_URL is not a URL: ${JSON.stringify(url.slice(0, 100))}`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new UserError(`REDIS_URL must start with redis:// or rediss:// (got ${parsed.protocol}//)`);
  }
}

export function createJobQueue(config: JobQueueConfig): JobQueue {
  const common = {
    ...(config.leaseMs !== undefined && { leaseMs: config.leaseMs }),
    ...(config.heartbeatMs !== undefined && { heartbeatMs: config.heartbeatMs }),
    ...(config.maxAttempts !== undefined && { maxAttempts: config.maxAttempts }),
    ...(config.retryBaseMs !== undefined && { retryBaseMs: config.retryBaseMs }),
    ...(config.metrics !== undefined && { metrics: config.metrics }),
    ...(config.log !== undefined && { log: config.log }),
  };
  if (config.redisUrl) {
    checkRedisUrl(config.redisUrl);
    return new RedisJobQueue({
      ...common,
      redisUrl: config.redisUrl,
      ...(config.prefix !== undefined && { prefix: config.prefix }),
    });
  }
  return new SqliteJobQueue({
    ...common,
    dataDir: config.dataDir,
    ...(config.pollMs !== undefined && { pollMs: config.pollMs }),
  });
}

/** The LimitStore that matches the queue: Redis when `redisUrl` is set, else the embedded database. */
export function createLimitStore(
  config: Pick<JobQueueConfig, "redisUrl" | "dataDir" | "prefix">,
): LimitStore {
  if (config.redisUrl) {
    checkRedisUrl(config.redisUrl);
    return new RedisLimitStore({
      redisUrl: config.redisUrl,
      ...(config.prefix !== undefined && { prefix: config.prefix }),
    });
  }
  return new SqliteLimitStore({ dataDir: config.dataDir });
}

/** The RunLedger that matches the queue: Redis when `redisUrl` is set, else the embedded database. */
export function createRunLedger(
  config: Pick<JobQueueConfig, "redisUrl" | "dataDir" | "prefix">,
): RunLedger & { close(): Promise<void> } {
  if (config.redisUrl) {
    checkRedisUrl(config.redisUrl);
    return new RedisRunLedger({
      redisUrl: config.redisUrl,
      ...(config.prefix !== undefined && { prefix: config.prefix }),
    });
  }
  return new SqliteRunLedger({ dataDir: config.dataDir });
}
