/**
 * Runs one job's handler: abort signal, checkpoints, heartbeat, and the classification of how it ended.
 * Store-agnostic: the embedded and the Redis queue map the result to their own state transitions.
 */
import type { JobMetrics } from "./metrics.ts";
import {
  errorText,
  failureReason,
  isRetryable,
  JobCancelledError,
  retryAfterMsOf,
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
  | { kind: "failed"; error: string; reason: string; retryable: boolean; retryAfterMs?: number }
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

/**
 * How long a handler aborted by shutdown may take to return before the run is given up as "shutdown"
 * anyway (its job goes back to the queue; the process may exit). What it does after that is never
 * recorded: its checkpoints throw once the signal is aborted.
 */
export const SHUTDOWN_ABANDON_MS = 2000;

/**
 * Of a shutdown grace period, how long running stages may go on before they are aborted: what is left
 * covers the handlers' return (at most `SHUTDOWN_ABANDON_MS`) and closing the stores, so that the
 * process is gone within the grace.
 */
export function stageWaitMs(graceMs: number): number {
  return Math.max(0, graceMs - SHUTDOWN_ABANDON_MS - 1500);
}

export function runJob(
  job: Job,
  handler: JobHandler,
  store: RunStore,
  options: { heartbeatMs: number; metrics: JobMetrics; log: Logger; abandonAfterMs?: number },
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

  // A handler that does not return soon after a shutdown abort (a network call that ignores the signal)
  // must not hold the process: the run ends as "shutdown" and the queue releases the job.
  const abandonMs = options.abandonAfterMs ?? SHUTDOWN_ABANDON_MS;
  let abandonTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<"abandoned">((resolve) => {
    controller.signal.addEventListener(
      "abort",
      () => {
        if (!(controller.signal.reason instanceof JobShutdownError)) return;
        abandonTimer = setTimeout(() => resolve("abandoned"), abandonMs);
        abandonTimer.unref();
      },
      { once: true },
    );
  });
  const result = (async (): Promise<RunResult> => {
    let outcome: RunResult;
    try {
      const handled = Promise.resolve().then(() => handler(job, ctx));
      const first = await Promise.race([handled, abandoned]);
      if (first === "abandoned") {
        handled.catch(() => {});
        options.log("the job's handler did not stop after the shutdown abort; releasing the job", {
          jobId: job.id,
          afterMs: abandonMs,
        });
        return { kind: "shutdown" };
      }
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
          ...(retryAfterMsOf(err) > 0 ? { retryAfterMs: retryAfterMsOf(err) } : {}),
        };
    } finally {
      clearInterval(timer);
      clearTimeout(abandonTimer);
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
