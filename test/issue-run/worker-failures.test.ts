/**
 * GitHub failing while a job is admitted, over real HTTP against the fake GitHub and through the real
 * Probot wiring (installation token, octokit): a server error or a rate limit sends the job back to the
 * queue with back-off (no sooner than GitHub asked), a 404 or a plain 403 fails it for good, and the log
 * line carries GitHub's request id.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { Probot, ProbotOctokit } from "probot";
import { connectInstallation } from "../../src/app/installation.ts";
import { AutoFixOctokit } from "../../src/app/octokit.ts";
import { createOctokitGitHub } from "../../src/github/octokit-github.ts";
import { MemoryRunLedger } from "../../src/issue-run/budgets.ts";
import { type ConnectInstallation, createWorker, type WorkerLog } from "../../src/issue-run/job-worker.ts";
import { readSettings } from "../../src/issue-run/settings.ts";
import { JobFailure } from "../../src/jobs/errors.ts";
import { SqliteLimitStore } from "../../src/jobs/limits.ts";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import type { Job, JobContext, JobSpec } from "../../src/jobs/types.ts";
import { type FakeGitHub, type RecordedCall, startFakeGitHub } from "../support/fake-github.ts";

const OWNER = "octo-org";
const REPO = "calc";
const INSTALLATION = 77;
let github: FakeGitHub;
let dir: string;
let probot: Probot;

before(async () => {
  github = await startFakeGitHub();
  const repo = github.addRepo(OWNER, REPO, { cloneUrl: "http://127.0.0.1:9/calc.git" });
  repo.permissions.set("mona", "write");
  github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) returns -1" });
  dir = mkdtempSync(join(tmpdir(), "auto-fix-worker-failures-"));
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  probot = new Probot({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    baseUrl: github.apiUrl,
    log: pino({ level: "silent" }),
    // The job's own retry is under test: no retries inside the octokit.
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
});
after(async () => {
  await github.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Line {
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps every line with its bindings, in pino's call shape. */
function captureLog(lines: Line[], bindings: Record<string, unknown> = {}): WorkerLog {
  const write = (fieldsOrMessage: unknown, message?: string) =>
    lines.push(
      typeof fieldsOrMessage === "string"
        ? { fields: bindings, message: fieldsOrMessage }
        : { fields: { ...bindings, ...(fieldsOrMessage as object) }, message: message ?? "" },
    );
  return { child: (b) => captureLog(lines, { ...bindings, ...b }), info: write, warn: write };
}

let deliveries = 0;
function spec(): JobSpec {
  const settings = readSettings({});
  return {
    deliveryId: `delivery-${++deliveries}`,
    kind: "run",
    installationId: INSTALLATION,
    owner: OWNER,
    repo: REPO,
    issueNumber: 1,
    sender: "mona",
    data: {
      trigger: {
        kind: "labeled",
        label: settings.label,
        replyTo: 1,
        fromPull: false,
        cloneUrl: "http://127.0.0.1:9/calc.git",
        defaultBranch: "main",
        title: "add() subtracts",
        body: "add(1, 2) returns -1",
      },
    },
  };
}

/**
 * An installation octokit without Probot's throttling (which waits out a rate limit inside the request):
 * the rate-limit answers reach the worker, as they do when the throttling gives up.
 */
const unthrottled: ConnectInstallation = async (_installationId, owner, repo, signal) => {
  const octokit = new ProbotOctokit({
    auth: { token: github.installationToken },
    baseUrl: github.apiUrl,
    request: { signal },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return { github: createOctokitGitHub(octokit, owner, repo) };
};

function worker(lines: Line[], connect: ConnectInstallation = connectInstallation(probot)) {
  const workDir = mkdtempSync(join(dir, "work-"));
  return createWorker(
    { connect, log: captureLog(lines) },
    {
      pipeline: async () => {
        throw new Error("the pipeline is not reached in these tests");
      },
      settings: readSettings({ AUTO_FIX_WORK_DIR: workDir }),
      model: "scripted",
      ledger: new MemoryRunLedger(),
      limits: new SqliteLimitStore({ dataDir: join(workDir, "data") }),
    },
  );
}

/** Runs the handler once on a fresh job, outside any queue. */
async function attempt(lines: Line[], connect: ConnectInstallation = unthrottled): Promise<unknown> {
  const job: Job = {
    id: `job-${deliveries}`,
    spec: spec(),
    state: "running",
    attempts: 1,
    stage: null,
    checkpoint: {},
    error: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
  const ctx: JobContext = { signal: new AbortController().signal, checkpoint: async () => {} };
  try {
    await worker(lines, connect)(job, ctx);
    return null;
  } catch (error) {
    return error;
  }
}

const isPermission = (c: RecordedCall) =>
  c.method === "GET" && c.path.endsWith("/collaborators/mona/permission");
const isComments = (c: RecordedCall) =>
  c.method === "GET" && c.path === `/repos/${OWNER}/${REPO}/issues/1/comments`;
const runLine = (lines: Line[]) => lines.find((l) => l.fields.stage === "run");

test("a 5xx during admission goes back to the queue with back-off and runs again; the log line carries the request id", async () => {
  github.failMatching(isPermission, { status: 502, message: "Bad Gateway" });
  const before = github.calls.length;
  const lines: Line[] = [];
  const q = new SqliteJobQueue({ dataDir: join(dir, "q-502"), pollMs: 10, heartbeatMs: 50, retryBaseMs: 30 });
  try {
    const { jobId } = (await q.enqueue(spec())) as { jobId: string };
    q.start(worker(lines));
    let job: Job | null = null;
    for (let i = 0; i < 500; i++) {
      job = await q.get(jobId);
      if (job?.state === "failed" || job?.state === "done") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const permissionCalls = github.calls.slice(before).filter(isPermission);
    assert.deepEqual(
      permissionCalls.map((c) => c.status),
      [502, 200],
      "the admission ran again after the server error",
    );
    assert.equal(job?.attempts, 2);
    // The second attempt got past admission: it reached the run (whose clone fails here, for good).
    assert.equal(job?.state, "failed");
    assert.equal(job?.reason, "run-failed");
    const first = lines.find((l) => l.fields.stage === "run" && l.fields.attempt === 1);
    assert.ok(first, JSON.stringify(lines));
    assert.equal(first.fields.githubStatus, 502);
    assert.equal(first.fields.githubRequestId, permissionCalls[0]!.requestId);
    assert.equal(first.fields.githubRoute, "GET /repos/{owner}/{repo}/collaborators/{username}/permission");
    assert.match(String(first.fields.error), new RegExp(`request id ${permissionCalls[0]!.requestId}`));
  } finally {
    await q.stop(1000);
    await q.close();
  }
});

test("a 429 with retry-after is retryable, and the retry waits at least as long as GitHub asked", async () => {
  github.failMatching(isComments, {
    status: 429,
    message: "Too many requests",
    headers: { "retry-after": "7" },
  });
  const lines: Line[] = [];
  const error = await attempt(lines);
  assert.ok(error instanceof JobFailure, String(error));
  assert.equal(error.reason, "admission-failed");
  assert.equal(error.retryable, true);
  assert.equal(error.retryAfterMs, 7000);
  assert.equal(runLine(lines)?.fields.githubRetryAfterSeconds, 7);
});

test("a 403 from a spent rate limit is retryable until the limit resets; a plain 403 is not", async () => {
  const reset = Math.floor(Date.now() / 1000) + 120;
  github.failMatching(isComments, {
    status: 403,
    message: "API rate limit exceeded for installation ID 77.",
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
  });
  const limited = await attempt([]);
  assert.ok(limited instanceof JobFailure, String(limited));
  assert.equal(limited.retryable, true);
  assert.ok(
    limited.retryAfterMs! > 100_000 && limited.retryAfterMs! <= 121_000,
    String(limited.retryAfterMs),
  );

  github.failMatching(isComments, { status: 403, message: "Resource not accessible by integration" });
  const forbidden = await attempt([]);
  assert.ok(forbidden instanceof JobFailure, String(forbidden));
  assert.equal(forbidden.retryable, false);
  assert.match(forbidden.message, /403: Resource not accessible by integration/);
});

test("a 404 during admission fails the job at once, without a retry", async () => {
  github.failMatching(isComments, { status: 404, message: "Not Found" });
  const before = github.calls.length;
  const lines: Line[] = [];
  const q = new SqliteJobQueue({ dataDir: join(dir, "q-404"), pollMs: 10, heartbeatMs: 50, retryBaseMs: 30 });
  try {
    const { jobId } = (await q.enqueue(spec())) as { jobId: string };
    q.start(worker(lines));
    let job: Job | null = null;
    for (let i = 0; i < 500; i++) {
      job = await q.get(jobId);
      if (job?.state === "failed" || job?.state === "done") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(job?.state, "failed");
    assert.equal(job?.attempts, 1);
    assert.equal(job?.reason, "admission-failed");
    assert.equal(github.calls.slice(before).filter(isComments).length, 1);
    const failed = github.calls.slice(before).find(isComments)!;
    assert.equal(runLine(lines)?.fields.githubRequestId, failed.requestId);
    assert.equal(runLine(lines)?.fields.githubStatus, 404);
  } finally {
    await q.stop(1000);
    await q.close();
  }
});

test("GitHub unreachable when the installation token is asked for: retryable, and says no answer came", async () => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const offline = new Probot({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    baseUrl: "http://127.0.0.1:9/api/v3",
    log: pino({ level: "silent" }),
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
  const lines: Line[] = [];
  const handler = createWorker(
    { connect: connectInstallation(offline), log: captureLog(lines) },
    {
      pipeline: async () => {
        throw new Error("not reached");
      },
      settings: readSettings({ AUTO_FIX_WORK_DIR: mkdtempSync(join(dir, "work-")) }),
      model: "scripted",
      ledger: new MemoryRunLedger(),
      limits: new SqliteLimitStore({ dataDir: mkdtempSync(join(dir, "limits-")) }),
    },
  );
  const job: Job = {
    id: "offline",
    spec: spec(),
    state: "running",
    attempts: 1,
    stage: null,
    checkpoint: {},
    error: null,
    createdAt: 0,
    updatedAt: 0,
  };
  const error = await handler(job, { signal: new AbortController().signal, checkpoint: async () => {} }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof JobFailure, String(error));
  // The installation token is fetched with the first request: the admission's first call got no answer.
  assert.equal(error.reason, "admission-failed");
  assert.equal(error.retryable, true);
  assert.match(error.message, /GitHub API GET \/repos\/\{owner\}\/\{repo\}\/[^ ]+ failed: no answer/);
  assert.equal(runLine(lines)?.fields.githubStatus, null);
});

/** The app's own Octokit (its rate-limit handling), as the server and the workers build it. */
function appProbot(): Probot {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return new Probot({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    baseUrl: github.apiUrl,
    log: pino({ level: "silent" }),
    // Server errors are the other tests' subject: no retries of those inside the octokit here.
    Octokit: AutoFixOctokit.defaults({ retry: { enabled: false } }),
  });
}

test("the app's octokit waits out a short rate limit inside the request, once; a long one is the queue's", async () => {
  const app = appProbot();
  github.failMatching(isComments, {
    status: 429,
    message: "You have exceeded a secondary rate limit",
    headers: { "retry-after": "1" },
  });
  const before = github.calls.length;
  const short = await attempt([], connectInstallation(app));
  assert.deepEqual(
    github.calls
      .slice(before)
      .filter(isComments)
      .map((c) => c.status)
      .slice(0, 2),
    [429, 200],
    "the request was repeated after a second",
  );
  // Past admission: the run started (its clone fails here, and the issue was told).
  assert.ok(short instanceof JobFailure, String(short));
  assert.equal(short.reason, "run-failed");

  // An hour's wait is not sat through by a worker: the job fails now, retryable, with GitHub's reset.
  const reset = Math.floor(Date.now() / 1000) + 3600;
  github.failMatching(isComments, {
    status: 403,
    message: "API rate limit exceeded for installation ID 77.",
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
  });
  const long = await attempt([], connectInstallation(app));
  assert.ok(long instanceof JobFailure, String(long));
  assert.equal(long.reason, "admission-failed");
  assert.equal(long.retryable, true);
  assert.ok(long.retryAfterMs! > 3_500_000, String(long.retryAfterMs));
});
