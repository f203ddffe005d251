/**
 * The app's one map from failures to a job's outcome: whether the queue tries the job again (and after
 * how long), the reason it is recorded under, what the issue's status comment says, and the fields the
 * log line carries. Errors are told apart by class (`instanceof`), never by name or duck typing.
 */
import { inlineCode } from "../core/inert-markdown.ts";
import { GitHubApiError } from "../github/errors.ts";
import type { FinalState } from "../github/render/status-comment.ts";
import { JobFailure } from "../jobs/errors.ts";

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The GitHub API error behind an error (itself, or a cause of it), if any. */
export function gitHubCause(error: unknown): GitHubApiError | null {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof GitHubApiError) return e;
    e = e.cause;
  }
  return null;
}

/** Structured fields for the log line of a failed step (GitHub's request id, the route, the status). */
export function failureLogFields(failure: unknown): Record<string, unknown> {
  const error = gitHubCause(failure);
  if (!error) return {};
  return {
    githubStatus: error.status,
    githubRequestId: error.requestId,
    githubRoute: `${error.method} ${error.route}`,
    ...(error.retryAfterSeconds !== null ? { githubRetryAfterSeconds: error.retryAfterSeconds } : {}),
  };
}

/** How long GitHub asked to wait, in milliseconds (at most an hour), when it said. */
const retryAfterMs = (error: GitHubApiError): number | undefined =>
  error.retryAfterSeconds === null ? undefined : Math.min(error.retryAfterSeconds, 3600) * 1000;

/**
 * The admission step (the checks that need GitHub, before any run work) failed. GitHub unreachable,
 * failing (5xx) or rate limiting: the job goes back to the queue with back-off, no sooner than GitHub
 * asked. Anything else (a 404, a refused permission, a stored trigger that does not parse) answers the
 * same next time: the job fails for good.
 */
export function admissionFailure(error: unknown): JobFailure {
  const retryable = error instanceof GitHubApiError && error.retryable;
  const after = error instanceof GitHubApiError ? retryAfterMs(error) : undefined;
  return new JobFailure("admission-failed", `checking the trigger failed: ${messageOf(error)}`, {
    retryable,
    cause: error,
    ...(after !== undefined ? { retryAfterMs: after } : {}),
  });
}

/**
 * The job could not start: authenticating as the installation failed. Retried like an admission failure
 * when GitHub was down or rate limiting; an uninstalled app or a revoked key fails for good.
 */
export function startFailure(error: unknown): JobFailure {
  const retryable = error instanceof GitHubApiError && error.retryable;
  const after = error instanceof GitHubApiError ? retryAfterMs(error) : undefined;
  return new JobFailure("auth-failed", `authenticating as the installation failed: ${messageOf(error)}`, {
    retryable,
    cause: error,
    ...(after !== undefined ? { retryAfterMs: after } : {}),
  });
}

/**
 * A run that ended as failed after the issue was told so: recorded as failed, not retried (the status
 * comment already offers `/retry`, and a second run would post a second answer).
 */
export function runEndedFailed(reason: string | undefined): JobFailure {
  return new JobFailure("run-failed", reason ?? "failed");
}

/**
 * What the status comment says when a run fails before it could finish. `redact` removes secrets (the
 * git token) from whatever the error says.
 */
export function runFailureState(error: unknown, redact: (text: string) => string): FinalState {
  const message = redact(messageOf(error));
  const reason = `Reason: ${inlineCode(message.split("\n").filter(Boolean).slice(0, 3).join(" — "), 600)}`;
  if (error instanceof GitHubApiError) {
    const what = error.status === null ? "did not answer" : `answered ${error.status}`;
    const details = [
      `GitHub ${what} to ${inlineCode(`${error.method} ${error.route}`, 200)}${error.requestId ? ` (request id ${inlineCode(error.requestId, 80)})` : ""}.`,
      reason,
    ];
    const next = error.rateLimited
      ? [
          `GitHub's rate limit was reached${error.retryAfterSeconds !== null ? `; it resets in about ${Math.max(1, Math.ceil(error.retryAfterSeconds / 60))} minute(s)` : ""}. Comment \`/retry\` after that.`,
        ]
      : error.retryable
        ? ["GitHub had trouble answering; comment `/retry` to try again."]
        : [
            "Check that the app is still installed on this repository with the permissions it asks for, then comment `/retry`.",
          ];
    return {
      ok: false,
      headline: "The run failed before it could finish: a GitHub request failed.",
      details,
      next,
    };
  }
  return {
    ok: false,
    headline: "The run failed before it could finish.",
    details: [reason],
    next: ["Comment `/retry` to try again; if it keeps failing, the app's operator can check the logs."],
  };
}
