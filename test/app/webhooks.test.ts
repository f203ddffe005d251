import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, beforeEach, test } from "node:test";
import type { FixResult, Pipeline, PipelineRequest } from "../../src/contract/app-result.ts";
import { FIX_PATCH, type Harness, MAINTAINER, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";
import { fakeResult } from "../support/fix-result.ts";

const requests: { issueText: string; req: PipelineRequest }[] = [];
let nextResult: FixResult;

const fixed = (): FixResult =>
  fakeResult({
    status: "fixed",
    patch: FIX_PATCH,
    reproduced: true,
    review: {
      "patch-correct": "yes",
      "test-correct": "yes",
      "patch-analysis": "adds",
      "patch-advice": "keep sub",
    },
    usage: { prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.01 },
  });

/** When set, the pipeline reports a stage and then waits until the run is cancelled. */
let block: { started: () => void } | null = null;
/** When set, the pipeline reports `located` and waits until the status comment shows it. */
let showProgress = false;

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
}

const pipeline: Pipeline = async (req) => {
  requests.push({ issueText: readFileSync(req.issueFile, "utf8"), req });
  if (showProgress) {
    req.onStage("located", "calc.py › add");
    await waitFor(() =>
      [...h.github.comments.values()].some((c) => c.body.includes("✅ Located the bug — `calc.py › add`")),
    );
  }
  if (block) {
    req.onStage("indexed", "3 files");
    block.started();
    await new Promise((_resolve, reject) => {
      req.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
    });
  }
  return nextResult;
};

let h: Harness;
before(async () => {
  h = await startHarness({ pipeline });
});
after(async () => {
  await h.close();
});
beforeEach(() => {
  nextResult = fixed();
  block = null;
  showProgress = false;
});

const callsSince = (n: number) => h.github.calls.slice(n);
const writes = (n: number) => callsSince(n).filter((c) => c.method !== "GET");

test("a delivery with a wrong signature is rejected and starts nothing", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) returns -1" });
  const before = h.github.calls.length;
  const forged = await h.labeled(issue.number, { id: "forged-1", secret: "not-the-secret", label: "bug" });
  assert.equal(forged, 400);
  assert.equal(h.outcomes.has("forged-1"), false, "the handler never saw it");
  assert.equal(h.github.calls.length, before, "no GitHub call");
  // The same delivery, signed with the secret, reaches the handler.
  assert.equal(await h.labeled(issue.number, { id: "signed-1", label: "bug" }), 200);
  // The configured label is read from the repo by the worker: the stored job ends ignored.
  await h.idle();
  assert.deepEqual(h.outcomes.get("signed-1"), { action: "ignored", reason: "label is not auto-fix" });
});

test("a non-collaborator's /retry starts nothing and gets one polite reply at most", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "crash", body: "it crashes" });
  const before = h.github.calls.length;
  assert.equal(await h.comment(issue.number, "/retry please", { sender: STRANGER }), 200);
  assert.equal(await h.comment(issue.number, "/retry now!", { sender: STRANGER }), 200);
  await h.idle();
  const posted = writes(before).filter(
    (c) => c.method === "POST" && c.path.endsWith(`/issues/${issue.number}/comments`),
  );
  assert.equal(posted.length, 1, "one reply");
  assert.match(String((posted[0]!.body as { body: string }).body), /write access/);
  assert.ok(!writes(before).some((c) => c.path.includes("/pulls") || c.path.includes("/reactions")));
  assert.equal(requests.filter((r) => r.issueText.includes("crash")).length, 0, "pipeline never ran");
  const outcome = [...h.outcomes.values()].at(-1);
  assert.deepEqual(outcome, { action: "denied" });
});

test("bots, other labels, closed and locked issues and foreign pull requests are left alone", async () => {
  const open = h.github.addIssue(OWNER, REPO, { title: "t1", body: "b" });
  const closed = h.github.addIssue(OWNER, REPO, { title: "t2", body: "b", state: "closed" });
  const locked = h.github.addIssue(OWNER, REPO, { title: "t3", body: "b", locked: true });
  h.repo.pulls.set(99, {
    number: 99,
    title: "human PR",
    body: "<!-- auto-fix:pr issue=1 -->",
    head: "feature",
    base: "main",
    draft: false,
    state: "open",
    user: { login: "someone", type: "User" },
  });
  const before = h.github.calls.length;
  await h.labeled(open.number, { sender: h.github.bot });
  await h.labeled(open.number, { label: "bug" });
  await h.labeled(closed.number);
  await h.labeled(locked.number);
  await h.comment(99, "/retry");
  await h.comment(open.number, "please /retry this", {});
  await h.idle();
  assert.deepEqual(writes(before), [], "no writes at all");
  const reasons = [...h.outcomes.values()]
    .slice(-6)
    .map((o) => (o.action === "ignored" ? o.reason : o.action));
  assert.deepEqual(reasons, [
    "sender is a bot",
    "label is not auto-fix",
    "issue is closed",
    "issue is locked",
    "pull request is not the app's",
    "not a command",
  ]);
});

test("labelling runs the fix and opens a draft pull request; a redelivery starts nothing", async () => {
  const issue = h.github.addIssue(OWNER, REPO, {
    title: "add() subtracts",
    body: "add(1, 2) returns -1\n<!-- hidden -->",
  });
  const before = h.github.calls.length;
  showProgress = true;
  assert.equal(await h.labeled(issue.number, { id: "delivery-label-1" }), 200);
  await h.idle();
  assert.equal(await h.labeled(issue.number, { id: "delivery-label-1" }), 200);
  await h.idle();
  assert.deepEqual(h.outcomes.get("delivery-label-1")?.action, "duplicate");

  const pulls = [...h.repo.pulls.values()].filter((p) => p.head === `auto-fix/issue-${issue.number}`);
  assert.equal(pulls.length, 1);
  const pr = pulls[0]!;
  assert.equal(pr.draft, true);
  assert.equal(pr.title, `Fix #${issue.number}: add() subtracts`);
  assert.match(pr.body, new RegExp(`Fixes #${issue.number}\\b`));
  assert.match(pr.body, /\/retry <guidance>/);
  assert.equal(pr.base, "main");
  // The branch holds the patched file; the author is the app.
  const content = h.git.git(`${OWNER}/${REPO}`, ["show", `auto-fix/issue-${issue.number}:calc.py`]);
  assert.match(content, /return a \+ b/);
  assert.match(
    h.git.git(`${OWNER}/${REPO}`, ["log", "-1", "--format=%an", `auto-fix/issue-${issue.number}`]),
    /auto-fix\[bot\]/,
  );
  // The pipeline saw the issue without the hidden HTML comment.
  const seen = requests.at(-1)!.issueText;
  assert.match(seen, /add\(1, 2\) returns -1/);
  assert.doesNotMatch(seen, /hidden/);
  // One 👀 reaction, one status comment that went from queued to the pull request.
  assert.deepEqual(
    h.repo.reactions.filter((r) => r.target === `issue:${issue.number}`).map((r) => r.content),
    ["eyes"],
  );
  const statuses = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .filter((c) => c.body.includes("auto-fix:status"));
  assert.equal(statuses.length, 1);
  const history = statuses[0]!.history;
  assert.match(history[0]!, /is working on this issue/);
  const progress = history.findIndex(
    (b) => /✅ Located the bug — `calc.py › add`/.test(b) && /⬜ Pull request/.test(b),
  );
  assert.ok(progress > 0, "a stage showed before the run finished");
  assert.match(history[progress]!, /✅ Cloned the repository — main at [0-9a-f]{7}\n/);
  assert.match(history[progress]!, /👀 \*\*auto-fix\*\* is working/);
  assert.match(history.at(-1)!, /🚀/);
  assert.match(history.at(-1)!, new RegExp(`Opened draft pull request #${pr.number}`));
  // The token was used for git but appears in no comment, body or clone config.
  assert.ok(
    h.git.requests.some((r) => r.token === h.github.installationToken && r.service === "receive-pack"),
  );
  for (const c of h.github.calls)
    assert.ok(!JSON.stringify(c.body ?? "").includes(h.github.installationToken));
  assert.ok(writes(before).length >= 4);
});

test("/retry with guidance updates the same branch and pull request and says what changed", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "sub is wrong too", body: "x" });
  await h.labeled(issue.number);
  await h.idle();
  const pr = [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${issue.number}`)!;
  const firstHead = h.git.git(`${OWNER}/${REPO}`, ["rev-parse", `auto-fix/issue-${issue.number}`]).trim();
  const pullCount = h.repo.pulls.size;

  nextResult = fakeResult({
    ...fixed(),
    review: { "patch-correct": "yes", "test-correct": "yes" },
  });
  assert.equal(await h.comment(pr.number, "/retry keep sub() unchanged"), 200);
  await h.idle();
  assert.equal(h.repo.pulls.size, pullCount, "no second pull request");
  const secondHead = h.git.git(`${OWNER}/${REPO}`, ["rev-parse", `auto-fix/issue-${issue.number}`]).trim();
  assert.notEqual(secondHead, firstHead, "branch was force-pushed");
  const seen = requests.at(-1)!.req.guidance ?? "";
  assert.match(seen, /Guidance from a maintainer: keep sub\(\) unchanged/);
  assert.match(seen, /Reviewer advice from the previous run:\nOn the patch: keep sub/);
  assert.equal(requests.at(-1)!.issueText, "# sub is wrong too\n\nx\n");
  const prComments = h.github.commentsOn(OWNER, REPO, pr.number);
  assert.ok(prComments.some((c) => /Run 2 replaced this branch's commit/.test(c.body)));
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .filter((c) => c.body.includes("auto-fix:status"));
  assert.equal(status.length, 1, "the same status comment");
  assert.match(status[0]!.body, new RegExp(`Updated draft pull request #${pr.number}`));
  assert.match(status[0]!.body, /Run 2 of at most/);
});

test("a run that finds no patch opens no pull request and says why", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "vague", body: "something is off" });
  nextResult = fakeResult({
    status: "no-patch",
    patch: null,
    reproduced: false,
    reason: "every candidate patch failed to apply to calc.py",
    usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0.001 },
  });
  const pullsBefore = h.repo.pulls.size;
  await h.labeled(issue.number);
  await h.idle();
  assert.equal(h.repo.pulls.size, pullsBefore);
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.match(status.body, /😕/);
  assert.match(status.body, /No patch passed the checks/);
  assert.match(status.body, /every candidate patch failed to apply/);
  assert.match(status.body, /\/retry <guidance>/);
  assert.throws(() =>
    h.git.git(`${OWNER}/${REPO}`, ["rev-parse", "--verify", `auto-fix/issue-${issue.number}`]),
  );
});

test("maintainers only: read access is denied; budgets name the limit", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "budget", body: "b" });
  h.repo.files.set(".github/auto-fix.yml", "budgets:\n  runs-per-issue: 1\n");
  try {
    await h.labeled(issue.number);
    await h.idle();
    await h.comment(issue.number, "/retry");
    await h.idle();
    const last = [...h.outcomes.values()].at(-1)!;
    assert.equal(last.action, "refused");
    const refusal = h.github.commentsOn(OWNER, REPO, issue.number).at(-1)!;
    assert.match(refusal.body, /runs per issue: 1/);
  } finally {
    h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\n");
  }
  assert.equal(MAINTAINER.login, "mona");
});

test("a config file the command line refuses is refused by the app too, with its messages, inert", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "bad config", body: "b" });
  const before = h.github.commentsOn(OWNER, REPO, issue.number).length;
  h.repo.files.set(
    ".github/auto-fix.yml",
    "budgets:\n  cost-usd: lots\n'@octocat see https://evil.example/x': 1\n",
  );
  try {
    await h.labeled(issue.number);
    await h.idle();
    const last = [...h.outcomes.values()].at(-1)!;
    assert.equal(last.action, "refused");
    assert.match("reason" in last ? last.reason : "", /auto-fix\.yml is not valid/);
    const replies = h.github.commentsOn(OWNER, REPO, issue.number).slice(before);
    assert.equal(replies.length, 1, "one reply, no status comment: no run started");
    const reply = replies[0]!.body;
    assert.match(reply, /budgets\.cost-usd: expected an amount in US dollars/);
    assert.match(reply, /unknown setting/);
    // The hostile key is shown in inline code: no mention, no link.
    assert.match(reply, /`\(top level\): unknown setting\(s\) '@octocat see https:\/\/evil\.example\/x'`/);
    // An oversized file is named as such.
    h.repo.files.set(".github/auto-fix.yml", `# ${"x".repeat(300 * 1024)}\nlabel: auto-fix\n`);
    await h.labeled(issue.number);
    await h.idle();
    assert.match(
      h.github.commentsOn(OWNER, REPO, issue.number).at(-1)!.body,
      /over the limit of 262144 bytes/,
    );
  } finally {
    h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\n");
  }
});

test("/cancel stops a running job; a second trigger while it runs is told to wait", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "slow one", body: "b" });
  const started = new Promise<void>((resolve) => {
    block = { started: resolve };
  });
  await h.labeled(issue.number);
  await started;
  await h.labeled(issue.number);
  await h.settle();
  assert.equal([...h.outcomes.values()].at(-1)!.action, "active");
  assert.match(h.github.commentsOn(OWNER, REPO, issue.number).at(-1)!.body, /already in progress/);
  await h.comment(issue.number, "/cancel");
  assert.deepEqual([...h.outcomes.values()].at(-1), { action: "cancel-requested" });
  // The permission check runs right after the answer; then the run is stopped.
  await h.settle();
  assert.deepEqual([...h.outcomes.values()].at(-1), { action: "cancelled" });
  await h.idle();
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.ok(
    status.history.some((b) => /✅ Indexed the code — 3 files\n/.test(b)),
    "stage progress was shown",
  );
  assert.match(status.body, /cancelled with `\/cancel`/);
  assert.ok(![...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue.number}`));
  await h.comment(issue.number, "/cancel");
  await h.settle();
  assert.deepEqual([...h.outcomes.values()].at(-1), { action: "nothing-to-cancel" });
});

test("a branch named in the issue is cloned and is the pull request's base", async () => {
  h.git.git(`${OWNER}/${REPO}`, ["branch", "release-1", "main"]);
  const issue = h.github.addIssue(OWNER, REPO, {
    title: "add() on the release",
    body: "Broken on\nbranch: release-1\n",
    // A writer's `branch:` counts (a stranger's is left out: stranger-ref.test.ts).
    user: MAINTAINER,
  });
  await h.labeled(issue.number);
  await h.idle();
  const pr = [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${issue.number}`)!;
  assert.equal(pr.base, "release-1");
  const parent = h.git.git(`${OWNER}/${REPO}`, ["rev-parse", `auto-fix/issue-${issue.number}^`]).trim();
  assert.equal(parent, h.git.git(`${OWNER}/${REPO}`, ["rev-parse", "release-1"]).trim());
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.match(status.body, /✅ Cloned the repository — release-1 at/);
});
