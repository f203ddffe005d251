/**
 * A GitHub REST call that failed, with what an operator and a retry policy need: the HTTP status (null
 * when no answer came), GitHub's request id (`x-github-request-id`, quoted to GitHub support), the
 * method and route, and how long GitHub asked to wait (`retry-after`, or the rate limit's reset).
 */
export class GitHubApiError extends Error {
  /** The HTTP status; null when the request got no answer (connection refused, reset, timed out). */
  readonly status: number | null;
  /** `x-github-request-id` of the answer, when there was one. */
  readonly requestId: string | null;
  readonly method: string;
  /** The route template, e.g. `GET /repos/{owner}/{repo}/issues/{issue_number}` without the method. */
  readonly route: string;
  /** Seconds GitHub asked to wait before trying again (`retry-after` or the rate limit's reset). */
  readonly retryAfterSeconds: number | null;
  /** A primary or secondary rate limit (429, or 403 with the rate-limit signs). */
  readonly rateLimited: boolean;

  constructor(fields: {
    message: string;
    status: number | null;
    requestId: string | null;
    method: string;
    route: string;
    retryAfterSeconds: number | null;
    rateLimited: boolean;
    cause?: unknown;
  }) {
    const id = fields.requestId ? ` (request id ${fields.requestId})` : "";
    const status = fields.status === null ? "no answer" : String(fields.status);
    super(`GitHub API ${fields.method} ${fields.route} failed: ${status}: ${fields.message}${id}`, {
      cause: fields.cause,
    });
    this.name = "GitHubApiError";
    this.status = fields.status;
    this.requestId = fields.requestId;
    this.method = fields.method;
    this.route = fields.route;
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.rateLimited = fields.rateLimited;
  }

  /**
   * Worth trying again later: no answer, a server error, or a rate limit. A 404, a plain 403 (the app
   * lacks a permission) or a 422 will answer the same next time.
   */
  get retryable(): boolean {
    return this.status === null || this.status >= 500 || this.rateLimited;
  }
}

type Headers = Record<string, string | number | undefined>;

const header = (headers: Headers | undefined, name: string): string | null => {
  const v = headers?.[name];
  return v === undefined || v === null ? null : String(v);
};

/**
 * The `GitHubApiError` for whatever an Octokit request threw (a `RequestError` carries the status and the
 * response headers; anything else is a request that got no answer). `now` is for the rate limit's reset.
 */
export function toGitHubApiError(
  error: unknown,
  method: string,
  route: string,
  now: () => number = Date.now,
): GitHubApiError {
  if (error instanceof GitHubApiError) return error;
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    status?: unknown;
    message?: unknown;
    response?: { headers?: Headers; data?: unknown };
  };
  const headers = e.response?.headers;
  // Octokit reports a request that got no answer as status 500 without a response.
  const status = typeof e.status === "number" && e.response ? e.status : null;
  const data = e.response?.data as { message?: unknown } | undefined;
  const message =
    typeof data?.message === "string" && data.message
      ? data.message
      : typeof e.message === "string"
        ? e.message
        : String(error);
  const retryAfter = Number(header(headers, "retry-after"));
  const remaining = header(headers, "x-ratelimit-remaining");
  const reset = Number(header(headers, "x-ratelimit-reset"));
  const rateLimited =
    status === 429 ||
    (status === 403 &&
      (remaining === "0" || header(headers, "retry-after") !== null || /rate limit/i.test(message)));
  let retryAfterSeconds: number | null = null;
  if (Number.isFinite(retryAfter) && retryAfter >= 0 && header(headers, "retry-after") !== null) {
    retryAfterSeconds = retryAfter;
  } else if (rateLimited && remaining === "0" && Number.isFinite(reset) && reset > 0) {
    retryAfterSeconds = Math.max(0, Math.ceil(reset - now() / 1000));
  }
  return new GitHubApiError({
    message: message.slice(0, 500),
    status,
    requestId: header(headers, "x-github-request-id"),
    method,
    route,
    retryAfterSeconds,
    rateLimited,
    cause: error,
  });
}
