/**
 * The job queue contract shared by the GitHub App (which enqueues) and the workers (which run jobs).
 * Implementations: the embedded store (node:sqlite) and the scale-out queue (BullMQ on Redis).
 */

export type JobKind = "run" | "retry";
export type JobState = "queued" | "running" | "done" | "failed" | "cancelled";

export const JOB_STATES: readonly JobState[] = ["queued", "running", "done", "failed", "cancelled"];

/** Everything a worker needs to run a repair job; stored durably before the webhook is acknowledged. */
export interface JobSpec {
  /** GitHub's X-GitHub-Delivery id: a repeated delivery of the same id never starts a second job. */
  deliveryId: string;
  kind: JobKind;
  installationId: number;
  owner: string;
  repo: string;
  issueNumber: number;
  /** Login of the sender who triggered the run (already checked for write access). */
  sender: string;
  /** `/retry <guidance>` text (untrusted, sanitised again before it reaches a prompt). */
  guidance?: string;
  /** Free-form data the app needs to resume (clone URL, default branch, issue title, ...). */
  data?: Record<string, unknown>;
}

export interface Job {
  id: string;
  spec: JobSpec;
  state: JobState;
  /** How many times a worker has taken the job (a crash or a retry counts; a clean shutdown does not). */
  attempts: number;
  /** The last stage the job completed (e.g. "cloned", "patched", "pushed", "pr-opened"). */
  stage: string | null;
  /**
   * Data saved with the checkpoints so far (each checkpoint's data is merged over the previous), so that a
   * resumed job skips work that must not repeat.
   */
  checkpoint: Record<string, unknown>;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  /** Short machine-readable reason of a failure ("lease-expired", "error", a handler's `reason`, ...). */
  reason?: string | null;
}

export type EnqueueOutcome =
  | { status: "queued"; jobId: string }
  /** The same delivery id was seen before. */
  | { status: "duplicate"; jobId: string }
  /** A job for the same (repo, issue) is already queued or running. */
  | { status: "active"; jobId: string };

/** Model usage a handler reports, for the Prometheus metrics. */
export interface JobUsage {
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/** Given to a running job's handler. */
export interface JobContext {
  /**
   * Aborted on /cancel or on shutdown past the grace period; `signal.reason` is a `JobCancelledError`,
   * a `JobShutdownError` or a `LeaseLostError` (from `src/jobs/errors.ts`).
   */
  signal: AbortSignal;
  /**
   * Records that `stage` completed, with data to resume from (merged over earlier checkpoint data); renews
   * the lease. Rejects (and aborts `signal`) when the job was cancelled or another worker took it over.
   */
  checkpoint(stage: string, data?: Record<string, unknown>): Promise<void>;
  /** Adds model usage to the metrics (tokens, cost). */
  recordUsage?(usage: JobUsage): void;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface JobStartOptions {
  concurrency?: number;
  /**
   * Called once a job reached `done`, `failed` or `cancelled` in this process (after the handler settled),
   * to remove its sandbox and work folder. Errors are logged, never thrown.
   */
  cleanup?: (job: Job) => Promise<void>;
}

/** A webhook delivery whose handling goes on after it was answered (see `JobQueue.holdDelivery`). */
export interface HeldDelivery {
  deliveryId: string;
  /** The webhook's name with its action, e.g. "issue_comment.created". */
  event: string;
  /** The webhook body as received (untrusted: validated again when it is resumed). */
  payload: unknown;
}

/** A held delivery as health reports it: no body. */
export interface HeldSummary {
  deliveryId: string;
  event: string;
  /** Epoch ms it was held or last claimed by a process resuming it. */
  heldAt: number;
}

export interface JobQueue {
  enqueue(spec: JobSpec): Promise<EnqueueOutcome>;
  /**
   * Stores a delivery whose handling goes on after the webhook is answered (a `/cancel`'s permission
   * check, a custom label's config check), before the answer. `releaseDelivery` drops it when that work
   * is done; a process killed in between leaves it for `takeHeldDeliveries`, so no answered delivery is
   * lost. Holding the same delivery again replaces it.
   */
  holdDelivery(held: HeldDelivery): Promise<void>;
  releaseDelivery(deliveryId: string): Promise<void>;
  /**
   * The held deliveries nobody has touched for `olderThanMs`. Each one returned is claimed (its time is
   * reset), so that of several processes only one resumes it.
   */
  takeHeldDeliveries(olderThanMs: number): Promise<HeldDelivery[]>;
  /** Cancels the queued or running job of (owner/repo, issue); false when there was none. */
  cancel(owner: string, repo: string, issueNumber: number): Promise<boolean>;
  get(jobId: string): Promise<Job | null>;
  /** Starts taking jobs with `concurrency` workers in this process. */
  start(handler: JobHandler, options?: JobStartOptions): void;
  /** Stops taking jobs; waits up to `graceMs` for running ones, then aborts them. */
  stop(graceMs?: number): Promise<void>;
  /**
   * "embedded": the webhook server runs the workers itself (call `start`); "redis": the server only
   * enqueues and `auto-fix worker` processes run the jobs.
   */
  readonly kind?: "embedded" | "redis" | "memory";
  /** Number of jobs in each state (for metrics and health). */
  counts?(): Promise<Record<JobState, number>>;
  /** Checks the store is reachable. */
  health?(): Promise<{ ok: boolean; detail: string }>;
  /**
   * Whether a restart of the store keeps the jobs (Redis: `appendonly yes`); `ok: null` when it could not
   * be asked (a managed Redis that refuses CONFIG).
   */
  durability?(): Promise<{ ok: boolean | null; detail: string }>;
  /** The deliveries held now, with when each was held or last claimed (nothing is claimed). */
  listHeld?(): Promise<HeldSummary[]>;
  /** Releases the store (database handle, Redis connections). Call after `stop`. */
  close?(): Promise<void>;
}
