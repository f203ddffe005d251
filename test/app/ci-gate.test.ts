/**
 * CI on the app's branch waits for a maintainer. The app pushes model-written code into the repository,
 * whose workflows run with its secrets: by default every commit the app pushes says `[skip ci]` (and
 * carries `skip-checks: true`), and only a writer's `/ci` or approving review pushes the empty commit
 * that lets CI run. `ci: immediate` runs it at once. Signed webhooks over HTTP, the fake GitHub, a real
 * git repository served over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fakeResult } from "../support/fix-result.ts";
import {
  FIX_PATCH,
  FIXTURE_FILES,
  type Harness,
  MAINTAINER,
  OWNER,
  REPO,
  SECRET,
  STRANGER,
  startHarness,
} from "./harness.ts";
import { createSigner } from "./webhook-client.ts";

let h: Harness;
let signer: ReturnType<typeof createSigner>;
const FULL = `${OWNER}/${REPO}`;

before(async () => {
  h = await startHarness({
    env: { AUTO_FIX_MAX_RUNS_PER_ISSUE: "10" },
    pipeline: async () => fakeResult({ status: "patched", patch: FIX_PATCH, summary: "stand-in" }),
  });
  signer = createSigner({
    url: h.app.webhookUrl,
    secret: SECRET,
    owner: OWNER,
    repo: REPO,
    cloneUrl: h.repo.cloneUrl,
    github: h.github,
  });
});
after(() => h.close());

const git = (...args: string[]) => h.git.git(FULL, args).trim();
const headOf = (branch: string) => git("rev-parse", branch);
const messageOf = (ref: string) => git("log", "-1", "--format=%B", ref);
const botComments = (n: number) => h.github.commentsOn(OWNER, REPO, n).filter((c) => c.user.type === "Bot");

/** A maintainer's issue, labelled: one run, one pull request. */
async function runFor(title: string): Promise<{ issue: number; pull: number; branch: string }> {
  const issue = h.github.addIssue(OWNER, REPO, { title, body: "add(1, 2) is -1.", user: MAINTAINER }).number;
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  const branch = `auto-fix/issue-${issue}`;
  const pr = [...h.repo.pulls.values()].find((p) => p.head === branch);
  assert.ok(pr, "the pull request was opened");
  return { issue, pull: pr.number, branch };
}

test("by default the app's commit skips CI; a stranger's /ci pushes nothing; a writer's /ci runs CI on exactly that code", async () => {
  const { issue, pull, branch } = await runFor("add() is wrong");
  const pushed = headOf(branch);
  const message = messageOf(branch);
  assert.match(message, /\[skip ci\]/);
  assert.match(message, /\n\n\nskip-checks: true$/);
  assert.match(message, /Fixes #\d+/);
  assert.match(botComments(issue).at(-1)!.body, /CI has not run on this branch .*comment `\/ci`/);

  // A stranger cannot approve.
  assert.equal(await h.comment(pull, "/ci", { sender: STRANGER, id: "ci-stranger" }), 200);
  await h.idle();
  assert.deepEqual(h.outcomes.get("ci-stranger"), { action: "denied" });
  assert.equal(headOf(branch), pushed, "nothing was pushed");

  // A writer approves: an empty commit on top, the same tree, no [skip ci].
  assert.equal(await h.comment(pull, "/ci", { sender: MAINTAINER, id: "ci-writer" }), 200);
  await h.idle();
  const outcome = h.outcomes.get("ci-writer");
  assert.equal(outcome?.action, "ci-approved", JSON.stringify(outcome));
  const approved = headOf(branch);
  assert.notEqual(approved, pushed);
  assert.equal(git("rev-parse", `${approved}^`), pushed, "on top of the approved commit");
  assert.equal(git("rev-parse", `${approved}^{tree}`), git("rev-parse", `${pushed}^{tree}`), "no change");
  assert.doesNotMatch(messageOf(branch), /skip ci|skip-checks/);
  assert.match(botComments(pull).at(-1)!.body, /@mona approved CI for `[0-9a-f]{7}`/);

  // Approving again pushes nothing more.
  assert.equal(await h.comment(pull, "/ci", { sender: MAINTAINER, id: "ci-again" }), 200);
  await h.idle();
  assert.equal(h.outcomes.get("ci-again")?.action, "ignored");
  assert.equal(headOf(branch), approved);
  assert.match(botComments(pull).at(-1)!.body, /CI already runs on `auto-fix\/issue-\d+`/);
});

test("a writer's approving review approves CI; the next run's push waits for approval again", async () => {
  const { issue, pull, branch } = await runFor("add() is still wrong");
  const pushed = headOf(branch);
  const { review } = h.github.addReview(OWNER, REPO, pull, { user: MAINTAINER, state: "APPROVED", body: "" });
  const r = await signer.review(pull, review.id);
  await h.idle();
  assert.equal(h.outcomes.get(r.id)?.action, "ci-approved");
  assert.equal(git("rev-parse", `${branch}^`), pushed);
  assert.doesNotMatch(messageOf(branch), /skip ci/);

  // A stranger's approving review approves nothing.
  const { review: theirs } = h.github.addReview(OWNER, REPO, pull, {
    user: STRANGER,
    state: "APPROVED",
    body: "",
  });
  const before = headOf(branch);
  const s = await signer.review(pull, theirs.id);
  await h.idle();
  assert.deepEqual(h.outcomes.get(s.id), { action: "denied" });
  assert.equal(headOf(branch), before);

  // A retry replaces the branch's commit: CI waits for a maintainer again.
  assert.equal(await h.comment(issue, "/retry"), 200);
  await h.idle();
  assert.notEqual(headOf(branch), before);
  assert.match(messageOf(branch), /\[skip ci\]/);
});

test("`ci: immediate` on the default branch: the app's commit runs CI at once", async () => {
  h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\nci: immediate\n");
  try {
    const { pull, branch } = await runFor("add() is wrong, CI at once");
    const message = messageOf(branch);
    assert.doesNotMatch(message, /skip ci|skip-checks/);
    assert.match(message, /Fixes #\d+/);
    const head = headOf(branch);
    assert.equal(await h.comment(pull, "/ci", { sender: MAINTAINER, id: "ci-immediate" }), 200);
    await h.idle();
    assert.equal(h.outcomes.get("ci-immediate")?.action, "ignored");
    assert.equal(headOf(branch), head);
  } finally {
    h.repo.files.set(".github/auto-fix.yml", FIXTURE_FILES[".github/auto-fix.yml"]!);
  }
});
