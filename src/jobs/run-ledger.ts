/**
 * When runs started, per repository, kept where every worker sees it: the embedded database or Redis.
 * Counts over a sliding window (runs in the last 24 hours), for the per-repository daily budget.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { openJobDatabase } from "./sqlite-schema.ts";

export interface RunLedger {
  record(repoKey: string, at: number): Promise<void>;
  /** Runs recorded for `repoKey` at or after `since`. */
  countSince(repoKey: string, since: number): Promise<number>;
  /**
   * Records a run at `at` only if fewer than `limit` runs were recorded in the `windowMs` before it, as
   * one atomic step for every handle on the store, so two workers admitting at once cannot both take
   * the last slot. `count` is the number of runs in the window before this call.
   */
  reserve(
    repoKey: string,
    at: number,
    windowMs: number,
    limit: number,
  ): Promise<{ allowed: boolean; count: number }>;
}

/** Entries older than this are dropped (a week covers every window the budgets use). */
const KEEP_MS = 7 * 24 * 3600 * 1000;

export class SqliteRunLedger implements RunLedger {
  readonly #db: DatabaseSync;

  constructor(options: { dataDir: string }) {
    mkdirSync(options.dataDir, { recursive: true });
    this.#db = openJobDatabase(join(options.dataDir, "jobs.sqlite"), { durable: false });
  }

  async record(repoKey: string, at: number): Promise<void> {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#db.prepare("INSERT INTO run_ledger (repo_key, at) VALUES (?, ?)").run(repoKey.toLowerCase(), at);
      this.#db
        .prepare("DELETE FROM run_ledger WHERE repo_key = ? AND at < ?")
        .run(repoKey.toLowerCase(), at - KEEP_MS);
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async reserve(
    repoKey: string,
    at: number,
    windowMs: number,
    limit: number,
  ): Promise<{ allowed: boolean; count: number }> {
    const key = repoKey.toLowerCase();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const { n } = this.#db
        .prepare("SELECT COUNT(*) AS n FROM run_ledger WHERE repo_key = ? AND at >= ?")
        .get(key, at - windowMs) as { n: number };
      const allowed = n < limit;
      if (allowed) {
        this.#db.prepare("INSERT INTO run_ledger (repo_key, at) VALUES (?, ?)").run(key, at);
        this.#db.prepare("DELETE FROM run_ledger WHERE repo_key = ? AND at < ?").run(key, at - KEEP_MS);
      }
      this.#db.exec("COMMIT");
      return { allowed, count: n };
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async countSince(repoKey: string, since: number): Promise<number> {
    const row = this.#db
      .prepare("SELECT COUNT(*) AS n FROM run_ledger WHERE repo_key = ? AND at >= ?")
      .get(repoKey.toLowerCase(), since) as { n: number };
    return row.n;
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

/** KEYS: the repo's sorted set. ARGV: at, since, limit, member, dropBefore, keepMs. → {allowed, count} */
const RESERVE = `
local n = redis.call('ZCOUNT', KEYS[1], ARGV[2], '+inf')
if n >= tonumber(ARGV[3]) then return {0, n} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {1, n}
`;

export class RedisRunLedger implements RunLedger {
  readonly #redis: Redis;
  readonly #p: string;

  constructor(options: { redisUrl: string; prefix?: string }) {
    this.#p = `${options.prefix ?? "auto-fix"}:runs:`;
    this.#redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 });
    this.#redis.on("error", () => {
      // Surfaced to the caller as a rejected call; the connection retries on its own.
    });
  }

  async record(repoKey: string, at: number): Promise<void> {
    const key = this.#p + repoKey.toLowerCase();
    await this.#redis
      .multi()
      .zadd(key, at, `${at}:${randomUUID()}`)
      .zremrangebyscore(key, "-inf", `(${at - KEEP_MS}`)
      .pexpire(key, KEEP_MS)
      .exec();
  }

  async reserve(
    repoKey: string,
    at: number,
    windowMs: number,
    limit: number,
  ): Promise<{ allowed: boolean; count: number }> {
    const key = this.#p + repoKey.toLowerCase();
    const [allowed, count] = (await this.#redis.eval(
      RESERVE,
      1,
      key,
      at,
      at - windowMs,
      limit,
      `${at}:${randomUUID()}`,
      at - KEEP_MS,
      KEEP_MS,
    )) as [number, number];
    return { allowed: allowed === 1, count };
  }

  async countSince(repoKey: string, since: number): Promise<number> {
    return this.#redis.zcount(this.#p + repoKey.toLowerCase(), since, "+inf");
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
