/** Why a running job's abort signal fired. */

export class JobCancelledError extends Error {
  constructor(message = "the job was cancelled") {
    super(message);
    this.name = "JobCancelledError";
  }
}

/** The worker is shutting down; the job goes back to the queue and resumes from its last checkpoint. */
export class JobShutdownError extends Error {
  constructor(message = "the worker is shutting down") {
    super(message);
    this.name = "JobShutdownError";
  }
}

/** The job's lease was lost (it expired, or another worker took the job over); stop without side effects. */
export class LeaseLostError extends Error {
  constructor(message = "the job's lease was lost to another worker") {
    super(message);
    this.name = "LeaseLostError";
  }
}

/** A failure the handler wants reported with a machine-readable reason (e.g. "budget", "no-patch"). */
export class JobFailure extends Error {
  readonly reason: string;
  readonly retryable: boolean;
  /** The earliest a retry may start, in milliseconds from now (a service's `retry-after`). */
  readonly retryAfterMs: number | null;
  constructor(
    reason: string,
    message: string,
    options?: { retryable?: boolean; cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "JobFailure";
    this.reason = reason;
    this.retryable = options?.retryable ?? false;
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

/** The earliest a retry of this failure may start, in milliseconds from now (0: no wish). */
export function retryAfterMsOf(err: unknown): number {
  return err instanceof JobFailure && err.retryAfterMs !== null ? Math.max(0, err.retryAfterMs) : 0;
}

/** The reason label for a failure: the error's `reason` if it has one, else its name in kebab-case. */
export function failureReason(err: unknown): string {
  if (err && typeof err === "object") {
    const r = (err as { reason?: unknown }).reason;
    if (typeof r === "string" && /^[a-z0-9][a-z0-9_-]{0,40}$/i.test(r)) return r.toLowerCase();
    const name = (err as { name?: unknown }).name;
    if (typeof name === "string" && name !== "Error") {
      return (
        name
          .replace(/Error$/, "")
          .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
          .toLowerCase()
          .slice(0, 40) || "error"
      );
    }
  }
  return "error";
}

export function isRetryable(err: unknown): boolean {
  return Boolean(err && typeof err === "object" && (err as { retryable?: unknown }).retryable === true);
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 4000);
  return String(err).slice(0, 4000);
}
