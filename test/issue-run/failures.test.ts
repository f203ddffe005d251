import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "@octokit/request-error";
import { GitHubApiError, toGitHubApiError } from "../../src/github/errors.ts";
import {
  admissionFailure,
  failureLogFields,
  runEndedFailed,
  runFailureState,
  startFailure,
} from "../../src/issue-run/failures.ts";
import { JobFailure } from "../../src/jobs/errors.ts";
import { retryDelayMs } from "../../src/jobs/spec.ts";

const NOW = 1_700_000_000_000;
const request = { method: "GET" as const, url: "https://ghe.example/api/v3/repos/o/r/issues/1", headers: {} };

/** The error Octokit throws for an answer with this status and these headers. */
function answered(status: number, message: string, headers: Record<string, string> = {}): GitHubApiError {
  const error = new RequestError(message, status, {
    request,
    response: {
      status,
      url: request.url,
      headers: { "x-github-request-id": "C0DE:1234:ABCD", ...headers },
      data: { message },
    },
  });
  return toGitHubApiError(error, "GET", "/repos/{owner}/{repo}/issues/{issue_number}", () => NOW);
}

test("GitHub API errors: status, request id, route, retry-after, and which are worth retrying", () => {
  const cases: { error: GitHubApiError; retryable: boolean; rateLimited: boolean; after: number | null }[] = [
    { error: answered(500, "Server Error"), retryable: true, rateLimited: false, after: null },
    { error: answered(502, "Bad Gateway"), retryable: true, rateLimited: false, after: null },
    {
      error: answered(429, "slow down", { "retry-after": "30" }),
      retryable: true,
      rateLimited: true,
      after: 30,
    },
    {
      error: answered(403, "API rate limit exceeded", {
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(NOW / 1000 + 600),
      }),
      retryable: true,
      rateLimited: true,
      after: 600,
    },
    {
      error: answered(403, "You have exceeded a secondary rate limit", { "retry-after": "60" }),
      retryable: true,
      rateLimited: true,
      after: 60,
    },
    {
      error: answered(403, "Resource not accessible by integration"),
      retryable: false,
      rateLimited: false,
      after: null,
    },
    { error: answered(404, "Not Found"), retryable: false, rateLimited: false, after: null },
    { error: answered(422, "Validation Failed"), retryable: false, rateLimited: false, after: null },
  ];
  for (const c of cases) {
    const what = `${c.error.status} ${c.error.message}`;
    assert.ok(c.error instanceof GitHubApiError);
    assert.equal(c.error.retryable, c.retryable, what);
    assert.equal(c.error.rateLimited, c.rateLimited, what);
    assert.equal(c.error.retryAfterSeconds, c.after, what);
    assert.equal(c.error.requestId, "C0DE:1234:ABCD");
    assert.equal(c.error.method, "GET");
    assert.equal(c.error.route, "/repos/{owner}/{repo}/issues/{issue_number}");
    assert.match(
      c.error.message,
      /^GitHub API GET \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\} failed: \d{3}: .+ \(request id C0DE:1234:ABCD\)$/,
    );
  }
  // No answer at all (Octokit says 500, without a response): retryable, with no status.
  const offline = toGitHubApiError(new RequestError("connect ECONNREFUSED", 500, { request }), "GET", "/x");
  assert.equal(offline.status, null);
  assert.equal(offline.requestId, null);
  assert.equal(offline.retryable, true);
  assert.match(offline.message, /failed: no answer: connect ECONNREFUSED$/);
  // Not wrapped twice.
  assert.equal(toGitHubApiError(offline, "POST", "/y"), offline);
});

test("the app's failure map: each failure → retried or not, the reason label, the wait GitHub asked for", () => {
  const rows: { error: unknown; retryable: boolean; retryAfterMs: number | null }[] = [
    { error: answered(503, "Unavailable"), retryable: true, retryAfterMs: null },
    { error: answered(429, "slow down", { "retry-after": "30" }), retryable: true, retryAfterMs: 30_000 },
    // GitHub asking for more than an hour is capped: the queue's back-off never exceeds an hour.
    {
      error: answered(429, "slow down", { "retry-after": "99999" }),
      retryable: true,
      retryAfterMs: 3_600_000,
    },
    { error: answered(404, "Not Found"), retryable: false, retryAfterMs: null },
    { error: answered(403, "Resource not accessible by integration"), retryable: false, retryAfterMs: null },
    // Not a GitHub answer (a stored trigger that does not parse, a bug): the same next time.
    { error: new TypeError("cannot read properties of undefined"), retryable: false, retryAfterMs: null },
  ];
  for (const row of rows) {
    const admission = admissionFailure(row.error);
    assert.ok(admission instanceof JobFailure);
    assert.equal(admission.reason, "admission-failed");
    assert.equal(admission.retryable, row.retryable, admission.message);
    assert.equal(admission.retryAfterMs, row.retryAfterMs, admission.message);
    assert.match(admission.message, /^checking the trigger failed: /);
    const start = startFailure(row.error);
    assert.equal(start.reason, "auth-failed");
    assert.equal(start.retryable, row.retryable);
  }
  const ended = runEndedFailed("the pipeline exited with code 2");
  assert.equal(ended.retryable, false, "the issue was already told: no second run");
  assert.equal(ended.reason, "run-failed");
  // The queue waits the longer of its back-off and GitHub's wish.
  assert.equal(retryDelayMs(30_000, 1, 7_000), 30_000);
  assert.equal(retryDelayMs(1_000, 1, 7_000), 7_000);
  assert.equal(retryDelayMs(1_000, 3), 4_000);
});

test("the log fields carry GitHub's request id, through the job failure that wraps it", () => {
  const error = answered(502, "Bad Gateway");
  const fields = failureLogFields(admissionFailure(error));
  assert.deepEqual(fields, {
    githubStatus: 502,
    githubRequestId: "C0DE:1234:ABCD",
    githubRoute: "GET /repos/{owner}/{repo}/issues/{issue_number}",
  });
  assert.deepEqual(failureLogFields(new Error("not GitHub")), {});
});

test("what the issue is told: the route and request id of a failed GitHub call, and what to do next", () => {
  const limited = runFailureState(
    answered(403, "API rate limit exceeded", {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(NOW / 1000 + 600),
    }),
    (t) => t,
  );
  assert.equal(limited.ok, false);
  assert.match(
    limited.details[0]!,
    /GitHub answered 403 to `GET \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}` \(request id `C0DE:1234:ABCD`\)/,
  );
  assert.match(limited.next[0]!, /rate limit was reached; it resets in about 10 minute\(s\)/);
  const forbidden = runFailureState(answered(403, "Resource not accessible by integration"), (t) => t);
  assert.match(forbidden.next[0]!, /still installed on this repository with the permissions/);
  const down = runFailureState(answered(502, "Bad Gateway"), (t) => t);
  assert.match(down.next[0]!, /GitHub had trouble answering/);
  // Secrets are removed from whatever the error says.
  const other = runFailureState(new Error("push to https://x-access-token:ghs_secret@ghe/o/r failed"), (t) =>
    t.split("ghs_secret").join("***"),
  );
  assert.equal(other.headline, "The run failed before it could finish.");
  assert.doesNotMatch(other.details.join("\n"), /ghs_secret/);
  assert.match(other.details[0]!, /\*\*\*/);
});
