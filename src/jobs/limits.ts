/**
 * Counters with a time window, for budgets that must hold across workers: runs per issue, runs per repo per
 * day, model spend. `createLimitStore` picks Redis when the queue is on Redis, else the embedded database.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { issueKey } from "./spec.ts";
import { openJobDatabase } from "./sqlite-schema.ts";

export interface LimitDecision {
  allowed: boolean;
  /** The counter after the call (unchanged when refused). */
  value: number;
  limit: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

export interface LimitStore {
  /**
   * Adds `amount` to the counter `key` unless the result would exceed `limit`, atomically across workers.
   * A new window of `windowMs` starts with the first amount added to an absent or expired counter.
   */
  take(key: string, amount: number, limit: number, windowMs: number): Promise<LimitDecision>;
  /** Adds without a limit (spend known only after a model call); returns the new value. */
  add(key: string, amount: number, windowMs: number): Promise<number>;
  /** Takes `amount` back (a reservation larger than what was used), never below 0; the window stays. */
  give(key: string, amount: number): Promise<number>;
  /** The current value; 0 when absent or expired. */
  get(key: string): Promise<number>;
  close(): Promise<void>;
}

const DAY_MS = 24 * 3600 * 1000;

/** Key conventions, so that every worker counts the same thing under the same name. */
export const limitKeys = {
  issueRuns: (owner: string, repo: string, issue: number): string =>
    `runs:issue:${issueKey(owner, repo, issue)}`,
  repoRunsPerDay: (owner: string, repo: string, now = Date.now()): string =>
    `runs:repo:${owner.toLowerCase()}/${repo.toLowerCase()}:${new Date(now).toISOString().slice(0, 10)}`,
  spend: (scope: string): string => `spend:${scope}`,
  repoSpendPerDay: (owner: string, repo: string, now = Date.now()): string =>
    `spend:repo:${owner.toLowerCase()}/${repo.toLowerCase()}:${new Date(now).toISOString().slice(0, 10)}`,
  DAY_MS,
};

/** A tolerance for float sums of dollars. */
const EPSILON = 1e-9;

export class SqliteLimitStore implements LimitStore {
  readonly #db: DatabaseSync;
  readonly #now: () => number;

  constructor(options: { dataDir: string; now?: () => number }) {
    mkdirSync(options.dataDir, { recursive: true });
    this.#db = openJobDatabase(join(options.dataDir, "jobs.sqlite"), { durable: false });
    this.#now = options.now ?? Date.now;
  }

  #current(key: string, now: number): { value: number; expiresAt: number } | null {
    const row = this.#db.prepare("SELECT value, expires_at FROM limits WHERE key = ?").get(key) as
      | { value: number; expires_at: number }
      | undefined;
    return row && row.expires_at > now ? { value: row.value, expiresAt: row.expires_at } : null;
  }

  #apply(key: string, amount: number, limit: number, windowMs: number): LimitDecision {
    assertAmount(amount, windowMs);
    const now = this.#now();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const cur = this.#current(key, now);
      const value = cur?.value ?? 0;
      const resetAt = cur?.expiresAt ?? now + windowMs;
      if (value + amount > limit + EPSILON) {
        this.#db.exec("COMMIT");
        return { allowed: false, value, limit, resetAt };
      }
      this.#db
        .prepare(
          `INSERT INTO limits (key, value, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        )
        .run(key, value + amount, resetAt);
      this.#db.exec("COMMIT");
      return { allowed: true, value: value + amount, limit, resetAt };
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async take(key: string, amount: number, limit: number, windowMs: number): Promise<LimitDecision> {
    return this.#apply(key, amount, limit, windowMs);
  }

  async add(key: string, amount: number, windowMs: number): Promise<number> {
    return this.#apply(key, amount, Number.POSITIVE_INFINITY, windowMs).value;
  }

  async give(key: string, amount: number): Promise<number> {
    assertAmount(amount, 1);
    const now = this.#now();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const cur = this.#current(key, now);
      if (!cur) {
        this.#db.exec("COMMIT");
        return 0;
      }
      const value = Math.max(0, cur.value - amount);
      this.#db.prepare("UPDATE limits SET value = ? WHERE key = ?").run(value, key);
      this.#db.exec("COMMIT");
      return value;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async get(key: string): Promise<number> {
    return this.#current(key, this.#now())?.value ?? 0;
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

export function assertAmount(amount: number, windowMs: number): void {
  if (!Number.isFinite(amount) || amount < 0)
    throw new RangeError(`a limit amount must be >= 0 (got ${amount})`);
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`a limit window must be > 0 ms`);
}
