import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ProbotOctokit } from "probot";
import { createOctokitPulls } from "../../src/github/octokit-pulls.ts";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.ts";

const OWNER = "octo";
const REPO = "logs";
let github: FakeGitHub;

before(async () => {
  github = await startFakeGitHub();
  github.addRepo(OWNER, REPO, { cloneUrl: "http://127.0.0.1:1/unused.git" });
});
after(async () => {
  await github.close();
});

function pulls() {
  const octokit = new ProbotOctokit({
    auth: { token: github.installationToken },
    baseUrl: github.apiUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return createOctokitPulls(octokit, OWNER, REPO);
}

/** A log of `mib` MiB of noise whose last lines say what failed. */
function bigLog(mib: number): string {
  const line = `${"2026-01-01T00:00:00.0000000Z collecting tests ".padEnd(127, ".")}\n`;
  return `FIRST-LINE of the log\n${line.repeat(Math.ceil((mib * 1024 * 1024) / line.length))}FAILED tests/test_x.py::test_tail - AssertionError\nTHE-REAL-END\n`;
}

test("the tail of a job log longer than 64 MiB is its real end, fetched alone with a range request and no token", async () => {
  const log = bigLog(70);
  const run = github.addCheckRun(OWNER, REPO, { name: "tests", headSha: "a".repeat(40), log });
  const before = github.calls.length;
  const tail = await pulls().actionsJobLogTail(run.id, 2000);
  assert.ok(tail, "the log has a tail");
  assert.ok(
    tail.endsWith("FAILED tests/test_x.py::test_tail - AssertionError\nTHE-REAL-END\n"),
    tail.slice(-200),
  );
  assert.ok(!tail.includes("FIRST-LINE"));
  assert.ok(tail.length <= 2000);
  const download = github.calls.slice(before).find((c) => c.path.startsWith("/_job-logs/"));
  assert.ok(download, "the log was fetched from its storage URL");
  assert.equal(download.status, 206);
  assert.equal(download.auth, "none", "the installation token never goes to the storage host");
  assert.ok(
    (download.bytesSent ?? Infinity) <= 8000,
    `${download.bytesSent} bytes sent for a 2,000-character tail`,
  );
});

test("storage that ignores the range sends the whole log: the tail is still read from the stream", async () => {
  const log = bigLog(2);
  const run = github.addCheckRun(OWNER, REPO, {
    name: "tests",
    headSha: "b".repeat(40),
    log,
    logIgnoresRange: true,
  });
  const before = github.calls.length;
  const tail = await pulls().actionsJobLogTail(run.id, 500);
  assert.ok(tail, "the log has a tail");
  assert.ok(tail.endsWith("THE-REAL-END\n"));
  assert.ok(!tail.includes("FIRST-LINE"));
  const download = github.calls.slice(before).find((c) => c.path.startsWith("/_job-logs/"));
  assert.equal(download?.status, 200);
});

test("a tail never starts inside a character: a surrogate pair cut by the character limit is dropped", async () => {
  const log = `${"\u{1F600}".repeat(5000)}\nTHE-REAL-END\n`;
  const run = github.addCheckRun(OWNER, REPO, { name: "tests", headSha: "c".repeat(40), log });
  // 1,001 UTF-16 units: 14 for the last line, 987 (odd) for the emoji before it, two units each.
  const tail = await pulls().actionsJobLogTail(run.id, 1001);
  assert.ok(tail, "the log has a tail");
  assert.ok(tail.endsWith("THE-REAL-END\n"));
  assert.ok(tail.isWellFormed(), "no lone surrogate");
  assert.ok(/^(?:\u{1F600})+\n/u.test(tail));
  assert.equal(tail.length, 1000);
});

test("a job without a log (expired, removed) has no tail", async () => {
  const run = github.addCheckRun(OWNER, REPO, { name: "tests", headSha: "d".repeat(40) });
  assert.equal(await pulls().actionsJobLogTail(run.id, 500), null);
  assert.equal(await pulls().actionsJobLogTail(987654, 500), null);
});
