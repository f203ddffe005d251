/**
 * The embedded job store: one `node:sqlite` database under the app's data folder. A job row is committed
 * (WAL, synchronous=FULL) before `enqueue` resolves, so an acknowledged webhook survives a crash. Workers
 * run in-process; a lease renewed by a heartbeat lets a restarted process take up jobs of a dead one.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { JobMetrics } from "./metrics.ts";
import { NO_METRICS } from "./metrics.ts";
import { errorText, JobCancelledError, JobShutdownError } from "./errors.ts";
import { ownerId, ownerIsDeadLocal } from "./liveness.ts";
import { type ActiveRun, type LeaseStatus, type Logger, type RunResult, runJob } from "./runner.ts";
import { issueKey, parseJobSpec, retryDelayMs } from "./spec.ts";
import { openJobDatabase } from "./sqlite-schema.ts";
import type {
  EnqueueOutcome,
  HeldDelivery,
  HeldSummary,
  Job,
  JobHandler,
  JobQueue,
  JobSpec,
  JobStartOptions,
  JobState,
} from "./types.ts";
import { JOB_STATES } from "./types.ts";

export interface SqliteQueueOptions {
  dataDir: string;
  /** How long a worker holds a job without renewing it (default 60 s). */
  leaseMs?: number;
  /** Lease renewal interval (default leaseMs / 4). */
  heartbeatMs?: number;
  /** How often idle workers look for jobs enqueued by other processes (default 1 s). */
  pollMs?: number;
  /** Takes of one job (crashes and retryable failures included) before it fails for good (default 3). */
  maxAttempts?: number;
  /** First delay before retrying a retryable failure, doubled each time (default 30 s). */
  retryBaseMs?: number;
  /** Finished jobs and remembered delivery ids older than this are removed (default 30 days). */
  retainMs?: number;
  metrics?: JobMetrics;
  log?: Logger;
}

interface JobRow {
  id: string;
  spec: string;
  state: string;
  attempts: number;
  stage: string | null;
  checkpoint: string;
  error: string | null;
  reason: string | null;
  lease_owner: string | null;
  created_at: number;
  updated_at: number;
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    spec: JSON.parse(row.spec),
    state: row.state as JobState,
    attempts: row.attempts,
    stage: row.stage,
    checkpoint: JSON.parse(row.checkpoint),
    error: row.error,
    reason: row.reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class SqliteJobQueue implements JobQueue {
  readonly kind = "embedded" as const;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #pollMs: number;
  readonly #maxAttempts: number;
  readonly #retryBaseMs: number;
  readonly #retainMs: number;
  #prunedAt = 0;
  readonly #metrics: JobMetrics;
  readonly #log: Logger;
  readonly #wake = new EventEmitter();
  readonly #pending: Array<{
    spec: JobSpec;
    resolve: (o: EnqueueOutcome) => void;
    reject: (err: unknown) => void;
  }> = [];
  readonly #running = new Map<string, ActiveRun & { settled: Promise<void> }>();
  #handler: JobHandler | null = null;
  #cleanup: ((job: Job) => Promise<void>) | null = null;
  #concurrency = 1;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #closed = false;

  constructor(options: SqliteQueueOptions) {
    mkdirSync(options.dataDir, { recursive: true });
    this.path = join(options.dataDir, "jobs.sqlite");
    this.#db = openJobDatabase(this.path);
    // host|pid|start time|nonce: a restarted process can tell a dead holder from a live one at once.
    this.#owner = ownerId(randomUUID());
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(this.#leaseMs / 4));
    this.#pollMs = options.pollMs ?? 1000;
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#retryBaseMs = options.retryBaseMs ?? 30_000;
    this.#retainMs = options.retainMs ?? 30 * 24 * 3600 * 1000;
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#log = options.log ?? (() => {});
    this.#wake.setMaxListeners(0);
  }

  #tx<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const r = fn();
      this.#db.exec("COMMIT");
      return r;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /**
   * Stores the job before resolving. Enqueues that arrive while a commit is being written are committed
   * together in the next transaction (one fsync for the group), which keeps acknowledgements fast when
   * many deliveries arrive at once.
   */
  enqueue(input: Parameters<JobQueue["enqueue"]>[0]): Promise<EnqueueOutcome> {
    let spec: JobSpec;
    try {
      spec = parseJobSpec(input);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ spec, resolve, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending());
    });
  }

  #commitPending(): void {
    const batch = this.#pending.splice(0);
    if (batch.length === 0) return;
    let outcomes: EnqueueOutcome[];
    try {
      outcomes = this.#tx(() => batch.map((p) => this.#insert(p.spec)));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      this.#metrics.enqueued(outcome.status);
      p.resolve(outcome);
    });
    if (outcomes.some((o) => o.status === "queued")) this.#wake.emit("job");
  }

  #insert(spec: JobSpec): EnqueueOutcome {
    const key = issueKey(spec.owner, spec.repo, spec.issueNumber);
    const now = Date.now();
    const seen = this.#db
      .prepare("SELECT job_id FROM deliveries WHERE delivery_id = ?")
      .get(spec.deliveryId) as { job_id: string } | undefined;
    if (seen) return { status: "duplicate", jobId: seen.job_id };
    const active = this.#db
      .prepare("SELECT id FROM jobs WHERE issue_key = ? AND state IN ('queued','running')")
      .get(key) as { id: string } | undefined;
    const jobId = active?.id ?? randomUUID();
    if (!active) {
      this.#db
        .prepare(
          `INSERT INTO jobs (id, delivery_id, issue_key, spec, state, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'queued', ?, ?)`,
        )
        .run(jobId, spec.deliveryId, key, JSON.stringify(spec), now, now);
    }
    this.#db
      .prepare("INSERT INTO deliveries (delivery_id, job_id, created_at) VALUES (?, ?, ?)")
      .run(spec.deliveryId, jobId, now);
    return active ? { status: "active", jobId } : { status: "queued", jobId };
  }

  async holdDelivery(held: HeldDelivery): Promise<void> {
    this.#db
      .prepare(
        `INSERT OR REPLACE INTO held_deliveries (delivery_id, event, payload, held_at, owner)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(held.deliveryId, held.event, JSON.stringify(held.payload ?? null), Date.now(), this.#owner);
  }

  async releaseDelivery(deliveryId: string): Promise<void> {
    this.#db.prepare("DELETE FROM held_deliveries WHERE delivery_id = ?").run(deliveryId);
  }

  async listHeld(): Promise<HeldSummary[]> {
    const rows = this.#db
      .prepare("SELECT delivery_id, event, held_at FROM held_deliveries ORDER BY held_at")
      .all() as Array<{ delivery_id: string; event: string; held_at: number }>;
    return rows.map((r) => ({ deliveryId: r.delivery_id, event: r.event, heldAt: r.held_at }));
  }

  /** The embedded store is a file in the data folder: durable as long as that folder is kept. */
  async durability(): Promise<{ ok: boolean; detail: string }> {
    return { ok: true, detail: "a SQLite file in the data folder (keep it on a volume)" };
  }

  /**
   * Held deliveries left alone for `olderThanMs`, and at once those of a dead process of this machine.
   * Each is claimed for this process (its time reset, its holder now us).
   */
  async takeHeldDeliveries(olderThanMs: number): Promise<HeldDelivery[]> {
    const now = Date.now();
    const rows = this.#tx(() => {
      const all = this.#db
        .prepare("SELECT delivery_id, event, payload, held_at, owner FROM held_deliveries ORDER BY held_at")
        .all() as Array<{
        delivery_id: string;
        event: string;
        payload: string;
        held_at: number;
        owner: string | null;
      }>;
      const found = all.filter(
        (r) => r.held_at <= now - olderThanMs || ownerIsDeadLocal(r.owner, this.#owner),
      );
      const claim = this.#db.prepare(
        "UPDATE held_deliveries SET held_at = ?, owner = ? WHERE delivery_id = ?",
      );
      for (const r of found) claim.run(now, this.#owner, r.delivery_id);
      return found;
    });
    return rows.flatMap((r) => {
      try {
        return [{ deliveryId: r.delivery_id, event: r.event, payload: JSON.parse(r.payload) as unknown }];
      } catch {
        this.#db.prepare("DELETE FROM held_deliveries WHERE delivery_id = ?").run(r.delivery_id);
        this.#log("dropped a held delivery whose stored body is not JSON", { deliveryId: r.delivery_id });
        return [];
      }
    });
  }

  async get(jobId: string): Promise<Job | null> {
    const row = this.#db.prepare("SELECT * FROM jobs WHERE id = ?").get(jobId) as JobRow | undefined;
    return row ? toJob(row) : null;
  }

  async counts(): Promise<Record<JobState, number>> {
    const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    const rows = this.#db.prepare("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").all() as Array<{
      state: JobState;
      n: number;
    }>;
    for (const r of rows) out[r.state] = r.n;
    return out;
  }

  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      this.#db.prepare("SELECT 1").get();
      return { ok: true, detail: `sqlite ${this.path}` };
    } catch (err) {
      return { ok: false, detail: errorText(err) };
    }
  }

  async cancel(owner: string, repo: string, issueNumber: number): Promise<boolean> {
    const now = Date.now();
    const key = issueKey(owner, repo, issueNumber);
    const rows = this.#tx(() => {
      const before = this.#db
        .prepare("SELECT * FROM jobs WHERE issue_key = ? AND state IN ('queued','running')")
        .all(key) as unknown as Array<JobRow & { lease_until: number }>;
      this.#db
        .prepare(
          `UPDATE jobs SET state = 'cancelled', reason = 'cancelled', updated_at = ?
           WHERE issue_key = ? AND state IN ('queued','running')`,
        )
        .run(now, key);
      return before;
    });
    for (const row of rows) {
      const local = this.#running.get(row.id);
      if (local) {
        // The worker's settle step runs the cleanup once the handler has stopped.
        local.abort(new JobCancelledError());
      } else if (row.stage !== null && (row.state === "queued" || row.lease_until < now)) {
        // Started before and nobody holds it now: its work folder is left for us to remove.
        await this.#runCleanup({ ...toJob(row), state: "cancelled", updatedAt: now });
      }
      // A job running in another live process sees the cancellation at its next heartbeat or checkpoint.
    }
    return rows.length > 0;
  }

  start(handler: JobHandler, options?: JobStartOptions): void {
    if (this.#loop !== null) throw new Error("the job queue is already started");
    this.#handler = handler;
    this.#cleanup = options?.cleanup ?? null;
    this.#concurrency = Math.max(1, Math.floor(options?.concurrency ?? 1));
    this.#stopping = false;
    // The dispatcher's first pass (synchronous, within this call) releases leases of dead local holders.
    this.#loop = this.#dispatch();
  }

  /**
   * Leases held by a dead process on this machine are released at once instead of waiting for expiry.
   * Checked at start and whenever the dispatcher looks for work: a holder killed just before this process
   * started may take a moment to die (and its parent a moment longer to reap it).
   */
  #reclaimDeadLocalLeases(): void {
    const now = Date.now();
    const rows = this.#db
      .prepare("SELECT id, lease_owner FROM jobs WHERE state = 'running' AND lease_until >= ?")
      .all(now) as Array<{
      id: string;
      lease_owner: string | null;
    }>;
    for (const r of rows) {
      if (ownerIsDeadLocal(r.lease_owner, this.#owner)) {
        this.#db
          .prepare("UPDATE jobs SET lease_until = 0 WHERE id = ? AND state = 'running' AND lease_owner = ?")
          .run(r.id, r.lease_owner);
        this.#log("taking up a job of a dead worker", { jobId: r.id });
      }
    }
  }

  /** Removes finished jobs and delivery ids older than the retention; returns how many jobs went. */
  prune(now = Date.now()): number {
    const cutoff = now - this.#retainMs;
    this.#prunedAt = now;
    return this.#tx(() => {
      this.#db
        .prepare(
          `DELETE FROM deliveries WHERE created_at < ?
             AND job_id NOT IN (SELECT id FROM jobs WHERE state IN ('queued','running'))`,
        )
        .run(cutoff);
      const r = this.#db
        .prepare("DELETE FROM jobs WHERE state IN ('done','failed','cancelled') AND updated_at < ?")
        .run(cutoff);
      return Number(r.changes);
    });
  }

  async #dispatch(): Promise<void> {
    while (!this.#stopping) {
      if (Date.now() - this.#prunedAt > 3600_000) this.prune();
      if (this.#running.size < this.#concurrency) this.#reclaimDeadLocalLeases();
      let claimed = false;
      while (!this.#stopping && this.#running.size < this.#concurrency) {
        const job = this.#claim();
        if (!job) break;
        claimed = true;
        this.#launch(job);
      }
      if (this.#stopping) break;
      if (this.#running.size >= this.#concurrency) {
        await this.#waitFor("slot", this.#pollMs);
      } else if (!claimed) {
        await this.#waitFor("job", this.#pollMs);
      }
    }
  }

  #waitFor(event: "job" | "slot", ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake.off(event, done);
        this.#wake.off("stop", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake.once(event, done);
      this.#wake.once("stop", done);
    });
  }

  #claim(): Job | null {
    const now = Date.now();
    return this.#tx(() => {
      const exhausted = this.#db
        .prepare(
          `UPDATE jobs SET state = 'failed', reason = 'lease-expired', lease_owner = NULL, updated_at = ?,
             error = 'the worker running this job stopped responding ' || attempts || ' times'
           WHERE state = 'running' AND lease_until < ? AND attempts >= ? RETURNING id`,
        )
        .all(now, now, this.#maxAttempts) as Array<{ id: string }>;
      for (const _ of exhausted) this.#metrics.failure("lease-expired");
      const row = this.#db
        .prepare(
          `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?,
             updated_at = ?
           WHERE id = (SELECT id FROM jobs
                       WHERE (state = 'queued' AND run_after <= ?) OR (state = 'running' AND lease_until < ?)
                       ORDER BY seq LIMIT 1)
           RETURNING *`,
        )
        .get(this.#owner, now + this.#leaseMs, now, now, now) as JobRow | undefined;
      return row ? toJob(row) : null;
    });
  }

  #leaseStatus(jobId: string): LeaseStatus {
    const row = this.#db.prepare("SELECT state, lease_owner FROM jobs WHERE id = ?").get(jobId) as
      | { state: string; lease_owner: string | null }
      | undefined;
    if (row?.state === "cancelled") return "cancelled";
    return "lost";
  }

  #launch(job: Job): void {
    const handler = this.#handler!;
    const id = job.id;
    const renew = (stageAndData?: [string, Record<string, unknown>]): LeaseStatus => {
      const now = Date.now();
      const r = stageAndData
        ? this.#db
            .prepare(
              `UPDATE jobs SET stage = ?, checkpoint = ?, lease_until = ?, updated_at = ?
               WHERE id = ? AND lease_owner = ? AND state = 'running'`,
            )
            .run(stageAndData[0], JSON.stringify(stageAndData[1]), now + this.#leaseMs, now, id, this.#owner)
        : this.#db
            .prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND state = 'running'")
            .run(now + this.#leaseMs, id, this.#owner);
      return r.changes === 1 ? "ok" : this.#leaseStatus(id);
    };
    const run = runJob(
      job,
      handler,
      {
        checkpoint: async (stage, data) => renew([stage, data]),
        heartbeat: async () => renew(),
      },
      { heartbeatMs: this.#heartbeatMs, metrics: this.#metrics, log: this.#log },
    );
    const settled = run.result
      .then((result) => this.#settle(run, result))
      .catch((err: unknown) => this.#log("job bookkeeping failed", { jobId: id, error: errorText(err) }))
      .finally(() => {
        this.#running.delete(id);
        this.#wake.emit("slot");
      });
    this.#running.set(id, { ...run, settled });
  }

  async #settle(run: ActiveRun, result: RunResult): Promise<void> {
    const { job } = run;
    const now = Date.now();
    const own = "WHERE id = ? AND lease_owner = ? AND state = 'running'";
    let final: JobState | null = null;
    if (result.kind === "done") {
      const r = this.#db
        .prepare(`UPDATE jobs SET state = 'done', error = NULL, lease_owner = NULL, updated_at = ? ${own}`)
        .run(now, job.id, this.#owner);
      final = r.changes === 1 ? "done" : this.#leaseStatus(job.id) === "cancelled" ? "cancelled" : null;
      if (final === "done") this.#metrics.finished("done", run.seconds());
    } else if (result.kind === "failed") {
      const retry = result.retryable && job.attempts < this.#maxAttempts;
      const r = retry
        ? this.#db
            .prepare(
              `UPDATE jobs SET state = 'queued', error = ?, reason = ?, lease_owner = NULL, lease_until = 0,
                 run_after = ?, updated_at = ? ${own}`,
            )
            .run(
              result.error,
              result.reason,
              now + retryDelayMs(this.#retryBaseMs, job.attempts, result.retryAfterMs),
              now,
              job.id,
              this.#owner,
            )
        : this.#db
            .prepare(
              `UPDATE jobs SET state = 'failed', error = ?, reason = ?, lease_owner = NULL, updated_at = ? ${own}`,
            )
            .run(result.error, result.reason, now, job.id, this.#owner);
      this.#metrics.failure(result.reason);
      if (r.changes === 1) this.#metrics.finished(retry ? "requeued" : "failed", run.seconds());
      final = r.changes === 1 && !retry ? "failed" : null;
      if (r.changes === 0 && this.#leaseStatus(job.id) === "cancelled") final = "cancelled";
      this.#log(retry ? "job failed, will retry" : "job failed", { jobId: job.id, error: result.error });
    } else if (result.kind === "shutdown") {
      // Back to the queue without counting the attempt: the next start resumes from the last checkpoint.
      this.#db
        .prepare(
          `UPDATE jobs SET state = 'queued', attempts = MAX(attempts - 1, 0), lease_owner = NULL,
             lease_until = 0, updated_at = ? ${own}`,
        )
        .run(now, job.id, this.#owner);
      this.#metrics.finished("requeued", run.seconds());
    } else if (result.kind === "cancelled") {
      final = "cancelled";
      this.#metrics.finished("cancelled", run.seconds());
    } else {
      this.#log("lease lost; another worker has the job", { jobId: job.id });
    }
    if (final) {
      const latest = await this.get(job.id);
      if (latest) await this.#runCleanup(latest);
    }
  }

  async #runCleanup(job: Job): Promise<void> {
    if (!this.#cleanup) return;
    try {
      await this.#cleanup(job);
    } catch (err) {
      this.#log("cleanup failed", { jobId: job.id, error: errorText(err) });
    }
  }

  async stop(graceMs = 30_000): Promise<void> {
    this.#stopping = true;
    this.#wake.emit("stop");
    await this.#loop;
    this.#loop = null;
    const all = (): Promise<unknown> => Promise.all([...this.#running.values()].map((r) => r.settled));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (graceOver) {
      for (const r of this.#running.values()) r.abort(new JobShutdownError());
      await all();
    }
  }

  async close(): Promise<void> {
    if (this.#loop !== null) await this.stop(0);
    if (!this.#closed) {
      this.#closed = true;
      this.#db.close();
    }
  }
}
