/**
 * The job queue contract shared by the GitHub App (which enqueues) and the workers (which run jobs).
 * Implementations: the embedded store (node:sqlite) and the scale-out queue (BullMQ on Redis).
 */

export type JobKind = "run" | "retry";
export type JobState = "queued" | "running" | "done" | "failed" | "cancelled";

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
  attempts: number;
  /** The last stage the job completed (e.g. "cloned", "patched", "pushed", "pr-opened"). */
  stage: string | null;
  /** Data saved with the last checkpoint, so that a resumed job skips work that must not repeat. */
  checkpoint: Record<string, unknown>;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export type EnqueueOutcome =
  | { status: "queued"; jobId: string }
  /** The same delivery id was seen before. */
  | { status: "duplicate"; jobId: string }
  /** A job for the same (repo, issue) is already queued or running. */
  | { status: "active"; jobId: string };

/** Given to a running job's handler. */
export interface JobContext {
  /** Aborted on /cancel or on shutdown past the grace period. */
  signal: AbortSignal;
  /** Records that `stage` completed, with data to resume from; renews the lease. */
  checkpoint(stage: string, data?: Record<string, unknown>): Promise<void>;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface JobQueue {
  enqueue(spec: JobSpec): Promise<EnqueueOutcome>;
  /** Cancels the queued or running job of (owner/repo, issue); false when there was none. */
  cancel(owner: string, repo: string, issueNumber: number): Promise<boolean>;
  get(jobId: string): Promise<Job | null>;
  /** Starts taking jobs with `concurrency` workers in this process. */
  start(handler: JobHandler, options?: { concurrency?: number }): void;
  /** Stops taking jobs; waits up to `graceMs` for running ones, then aborts them. */
  stop(graceMs?: number): Promise<void>;
}
