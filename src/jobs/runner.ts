/**
 * Runs one job's handler: abort signal, checkpoints, heartbeat, and the classification of how it ended.
 * Store-agnostic: the embedded and the Redis queue map the result to their own state transitions.
 */
import type { JobMetrics } from "../ops/job-metrics.ts";
import {
  errorText,
  failureReason,
  isRetryable,
  JobCancelledError,
  JobShutdownError,
  LeaseLostError,
} from "./errors.ts";
import type { Job, JobContext, JobHandler } from "./types.ts";

/** What the store says about a job this worker holds. */
export type LeaseStatus = "ok" | "cancelled" | "lost";

export interface RunStore {
  /** Saves the stage and the merged checkpoint data, renewing the lease. */
  checkpoint(stage: string, checkpoint: Record<string, unknown>): Promise<LeaseStatus>;
  /** Renews the lease. */
  heartbeat(): Promise<LeaseStatus>;
}

export type RunResult =
  | { kind: "done" }
  | { kind: "failed"; error: string; reason: string; retryable: boolean }
  | { kind: "cancelled" }
  | { kind: "shutdown" }
  | { kind: "lost" };

export interface ActiveRun {
  job: Job;
  /** Aborts the handler with the given reason (first reason wins). */
  abort(reason: Error): void;
  result: Promise<RunResult>;
  /** Seconds since the handler started. */
  seconds(): number;
}

export type Logger = (message: string, fields?: Record<string, unknown>) => void;

export function runJob(
  job: Job,
  handler: JobHandler,
  store: RunStore,
  options: { heartbeatMs: number; metrics: JobMetrics; log: Logger },
): ActiveRun {
  const controller = new AbortController();
  const abort = (reason: Error): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const react = (status: LeaseStatus): void => {
    if (status === "cancelled") abort(new JobCancelledError());
    else if (status === "lost") abort(new LeaseLostError());
  };
  let checkpointData: Record<string, unknown> = { ...job.checkpoint };
  let lastMark = performance.now();
  let storeBusy: Promise<unknown> = Promise.resolve();
  const ctx: JobContext = {
    signal: controller.signal,
    checkpoint: async (stage, data) => {
      if (controller.signal.aborted) throw controller.signal.reason;
      const merged = { ...checkpointData, ...(data ?? {}) };
      const p = storeBusy.then(() => store.checkpoint(stage, merged));
      storeBusy = p.catch(() => {});
      const status = await p;
      if (status !== "ok") {
        react(status);
        throw controller.signal.reason;
      }
      checkpointData = merged;
      job.stage = stage;
      job.checkpoint = merged;
      const now = performance.now();
      options.metrics.stage(stage, (now - lastMark) / 1000);
      lastMark = now;
    },
    recordUsage: (u) => {
      options.metrics.usage(u.promptTokens, u.completionTokens, u.costUsd);
    },
  };
  const timer = setInterval(() => {
    const p = storeBusy.then(() => store.heartbeat());
    storeBusy = p.catch(() => {});
    p.then(react, (err: unknown) => {
      // The store is unreachable for now; the lease may still hold. Keep going and try again.
      options.log("heartbeat failed", { jobId: job.id, error: errorText(err) });
    });
  }, options.heartbeatMs);
  timer.unref();
  options.metrics.started();
  const started = performance.now();

  const result = (async (): Promise<RunResult> => {
    let outcome: RunResult;
    try {
      await handler(job, ctx);
      // A handler may return early once aborted: a run aborted by shutdown goes back to the queue (it
      // resumes from its checkpoints), a cancelled one stays cancelled.
      outcome = controller.signal.aborted ? fromAbort(controller.signal.reason) : { kind: "done" };
    } catch (err) {
      if (controller.signal.aborted) outcome = fromAbort(controller.signal.reason);
      else
        outcome = {
          kind: "failed",
          error: errorText(err),
          reason: failureReason(err),
          retryable: isRetryable(err),
        };
    } finally {
      clearInterval(timer);
      await storeBusy;
    }
    return outcome;
  })();
  return { job, abort, result, seconds: () => (performance.now() - started) / 1000 };
}

function fromAbort(reason: unknown): RunResult {
  if (reason instanceof JobCancelledError) return { kind: "cancelled" };
  if (reason instanceof JobShutdownError) return { kind: "shutdown" };
  return { kind: "lost" };
}
