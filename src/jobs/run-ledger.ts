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

  async countSince(repoKey: string, since: number): Promise<number> {
    return this.#redis.zcount(this.#p + repoKey.toLowerCase(), since, "+inf");
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
