/**
 * A trigger from someone without write access never holds the issue's one active slot: the sender's
 * access is known before a job is stored, so the maintainer's trigger that follows is never answered
 * "already in progress" and lost. Real parts: the app in a Probot server, signed webhooks over HTTP,
 * the fake GitHub REST API on 127.0.0.1, clone and push against `git http-backend`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Pipeline } from "../../src/contract/app-result.ts";
import type { FakeUser } from "../support/fake-github.ts";
import { FIX_PATCH, type Harness, MAINTAINER, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";
import { fakeResult } from "../support/fix-result.ts";

/** Can label issues (triage) but has no write access. */
const TRIAGER: FakeUser = { login: "labeller", type: "User" };
const ran: string[] = [];

const pipeline: Pipeline = async (req) => {
  ran.push(req.issueFile);
  return fakeResult({
    status: "patched",
    patch: FIX_PATCH,
    usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0.001 },
  });
};

let h: Harness;
before(async () => {
  h = await startHarness({ pipeline });
  h.repo.permissions.set(TRIAGER.login, "triage");
});
after(async () => {
  await h.close();
});

const pullFor = (issue: number) =>
  [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${issue}`);
const busyReplies = (issue: number) =>
  h.github.commentsOn(OWNER, REPO, issue).filter((c) => /already in progress/.test(c.body));

test("a stranger's label and /retry, then a maintainer's label: the maintainer's run happens", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) is -1" });
  // All three arrive before GitHub answers anything: the strangers' deliveries come first.
  const release = h.github.holdResponses();
  try {
    assert.equal(await h.labeled(issue.number, { sender: TRIAGER, id: "triager-label" }), 200);
    assert.equal(
      await h.comment(issue.number, "/retry now", { sender: STRANGER, id: "stranger-retry" }),
      200,
    );
    assert.equal(await h.labeled(issue.number, { sender: MAINTAINER, id: "maintainer-label" }), 200);
  } finally {
    release();
  }
  await h.idle();
  assert.deepEqual(h.outcomes.get("triager-label"), { action: "denied" });
  assert.deepEqual(h.outcomes.get("stranger-retry"), { action: "denied" });
  const run = h.outcomes.get("maintainer-label");
  assert.equal(run?.action, "queued", JSON.stringify(run));
  const job = await h.queue.get(run.action === "queued" ? run.jobId : "");
  assert.equal(job?.state, "done");
  assert.equal(job?.spec.sender, MAINTAINER.login);
  assert.ok(pullFor(issue.number), "the maintainer's run opened its pull request");
  assert.deepEqual(busyReplies(issue.number), [], "nobody was told a run is in progress");
  const polite = h.github.commentsOn(OWNER, REPO, issue.number).filter((c) => /write access/.test(c.body));
  assert.deepEqual(polite.map((c) => c.body.match(/@[\w-]+/)?.[0]).sort(), ["@drive-by", "@labeller"]);
});

test("a stranger's /retry answered first, then a maintainer's /retry: the maintainer's run happens", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "sub() adds", body: "sub(3, 1) is 4" });
  const before = ran.length;
  await h.comment(issue.number, "/retry", { sender: STRANGER, id: "stranger-first" });
  await h.settle();
  assert.deepEqual(h.outcomes.get("stranger-first"), { action: "denied" });
  await h.comment(issue.number, "/retry", { sender: MAINTAINER, id: "maintainer-second" });
  await h.idle();
  assert.equal(h.outcomes.get("maintainer-second")?.action, "queued");
  assert.equal(ran.length, before + 1, "one run, the maintainer's");
  assert.ok(pullFor(issue.number));
  assert.deepEqual(busyReplies(issue.number), []);
});

test("a maintainer's second trigger while the first is stored is told to wait; the run is not repeated", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "twice", body: "b" });
  const before = ran.length;
  const release = h.github.holdResponses();
  try {
    await h.labeled(issue.number, { id: "first" });
    await h.comment(issue.number, "/retry", { id: "second" });
  } finally {
    release();
  }
  await h.idle();
  assert.equal(h.outcomes.get("first")?.action, "queued");
  assert.equal(h.outcomes.get("second")?.action, "active");
  assert.equal(busyReplies(issue.number).length, 1);
  assert.equal(ran.length, before + 1);
});
