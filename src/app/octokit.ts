/**
 * The app's Octokit: Probot's, with one change to its rate-limit handling. Probot waits out a spent rate
 * limit inside the request (up to an hour), holding a worker slot; here a request waits inline only for a
 * short limit, once, and otherwise fails as a `GitHubApiError` that says when GitHub resets, so that the
 * job goes back to the queue and waits there (src/issue-run/failures.ts).
 */
import { ProbotOctokit } from "probot";

/** The longest rate-limit wait a request sits through (seconds); a longer one is the queue's. */
export const INLINE_RATE_LIMIT_WAIT_SECONDS = 60;

/** Whether the throttling plugin retries this request after `retryAfter` seconds. */
export function waitsInline(retryAfter: number, retryCount: number): boolean {
  return retryCount < 1 && retryAfter <= INLINE_RATE_LIMIT_WAIT_SECONDS;
}

type Options = Record<string, unknown> & { throttle?: Record<string, unknown> };

export const AutoFixOctokit = ProbotOctokit.defaults((options: Options) => ({
  ...options,
  throttle: {
    ...options.throttle,
    onRateLimit: (retryAfter: number, _request: unknown, _octokit: unknown, retryCount: number) =>
      waitsInline(retryAfter, retryCount),
    onSecondaryRateLimit: (retryAfter: number, _request: unknown, _octokit: unknown, retryCount: number) =>
      waitsInline(retryAfter, retryCount),
  },
}));
