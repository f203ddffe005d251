import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Pipeline } from "../../src/contract/app-result.ts";
import { FIX_PATCH, type Harness, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";
import { fakeResult } from "../support/fix-result.ts";

const pipeline: Pipeline = async () =>
  fakeResult({
    status: "patched",
    patch: FIX_PATCH,
    usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0.001 },
  });

let h: Harness;
before(async () => {
  h = await startHarness({ pipeline });
});
after(async () => {
  await h.close();
});

test("webhooks are answered and held while GitHub answers nothing; access is checked, then jobs stored", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) is -1" });
  const other = h.github.addIssue(OWNER, REPO, { title: "other", body: "b" });
  const first = h.github.calls.length;
  const release = h.github.holdResponses();
  let answered: boolean;
  try {
    assert.equal(await h.labeled(issue.number, { id: "held-label" }), 200);
    assert.equal(await h.comment(other.number, "/retry please", { sender: STRANGER, id: "held-retry" }), 200);
    assert.equal(await h.comment(other.number, "/cancel", { sender: STRANGER, id: "held-cancel" }), 200);
    // Every delivery was answered while GitHub had answered no call at all (some may be waiting).
    answered = h.github.calls.slice(first).some((c) => c.status !== 0);
    assert.deepEqual(h.outcomes.get("held-label"), { action: "checking" });
    assert.deepEqual(h.outcomes.get("held-retry"), { action: "checking" });
    assert.deepEqual(h.outcomes.get("held-cancel"), { action: "cancel-requested" });
    // Each was stored durably before its answer, as a held delivery: no job yet holds either issue.
    const held = await h.queue.takeHeldDeliveries(0);
    assert.deepEqual(held.map((d) => [d.deliveryId, d.event]).sort(), [
      ["held-cancel", "issue_comment.created"],
      ["held-label", "issues.labeled"],
      ["held-retry", "issue_comment.created"],
    ]);
  } finally {
    release();
  }
  assert.equal(answered, false, "no GitHub response came before the webhooks were answered");
  await h.idle();
  // Then the checks: the maintainer's label stored a job that opened its pull request, the stranger's
  // /retry stored nothing and got one polite reply, and the stranger's /cancel stopped nothing.
  assert.ok([...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue.number}`));
  assert.deepEqual(h.outcomes.get("held-retry"), { action: "denied" });
  assert.deepEqual(h.outcomes.get("held-cancel"), { action: "denied" });
  const replies = h.github.commentsOn(OWNER, REPO, other.number).filter((c) => /write access/.test(c.body));
  assert.equal(replies.length, 1);
  // Every delivery was released once its check was done.
  assert.deepEqual(await h.queue.takeHeldDeliveries(0), []);
});

test("a non-collaborator's /cancel never stops a maintainer's run", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "keep running", body: "b" });
  const release = h.github.holdResponses();
  try {
    await h.labeled(issue.number, { id: "run-1" });
    await h.comment(issue.number, "/cancel", { sender: STRANGER, id: "cancel-1" });
  } finally {
    release();
  }
  await h.idle();
  assert.deepEqual(h.outcomes.get("cancel-1"), { action: "denied" });
  const run = h.outcomes.get("run-1");
  const job = await h.queue.get(run?.action === "queued" ? run.jobId : "");
  assert.equal(job?.state, "done");
  assert.ok([...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue.number}`));
});

test("a repo's own label is read after the answer; other labels store no job", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "custom label", body: "b" });
  h.repo.files.set(".github/auto-fix.yml", "label: fix-me\n");
  try {
    await h.labeled(issue.number, { id: "custom-bug", label: "bug" });
    await h.labeled(issue.number, { id: "custom-fix", label: "fix-me" });
    assert.deepEqual(h.outcomes.get("custom-fix"), { action: "checking" });
    await h.idle();
    assert.deepEqual(h.outcomes.get("custom-bug"), { action: "ignored", reason: "label is not fix-me" });
    const stored = h.outcomes.get("custom-fix");
    assert.equal(stored?.action, "queued", JSON.stringify(stored));
  } finally {
    h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\n");
  }
  assert.ok([...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue.number}`));
});

test("a /retry on the app's pull request is checked in the worker against the issue it names", async () => {
  const closed = h.github.addIssue(OWNER, REPO, { title: "gone", body: "b", state: "closed" });
  h.repo.pulls.set(199, {
    number: 199,
    title: `Fix #${closed.number}: gone`,
    body: `<!-- auto-fix:pr issue=${closed.number} -->`,
    head: `auto-fix/issue-${closed.number}`,
    base: "main",
    draft: true,
    state: "open",
    user: h.github.bot,
  });
  const before = h.github.calls.length;
  await h.comment(199, "/retry", { id: "pr-retry" });
  await h.idle();
  assert.deepEqual(h.outcomes.get("pr-retry"), { action: "ignored", reason: "issue is closed or locked" });
  assert.deepEqual(
    h.github.calls.slice(before).filter((c) => c.method !== "GET" && !c.path.includes("access_tokens")),
    [],
    "no writes",
  );
});
