/**
 * The ref a run works on comes from someone with write access: a stranger's `ref:` in an issue is left
 * out (the run works on the default branch and says so), a maintainer's command can name one, and a pull
 * request's ref is never checked out, whoever names it. Signed webhooks over HTTP, the fake GitHub, a
 * real git repository served over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fakeResult } from "../support/fix-result.ts";
import { FIX_PATCH, type Harness, MAINTAINER, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";

let h: Harness;
let runs = 0;

before(async () => {
  h = await startHarness({
    pipeline: async () => {
      runs++;
      return fakeResult({ status: "patched", patch: FIX_PATCH, summary: "stand-in" });
    },
  });
  // A release branch a maintainer may name.
  h.git.commitFiles(`${OWNER}/${REPO}`, "release-1", { "NOTES.md": "release 1\n" }, "main");
});
after(() => h.close());

const botComments = (issue: number) =>
  h.github.commentsOn(OWNER, REPO, issue).filter((c) => c.user.type === "Bot");
const pullOf = (issue: number) =>
  [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${issue}`);

test("a stranger's `ref:` is left out: the run works on the default branch and the status comment says why", async () => {
  const issue = h.github.addIssue(OWNER, REPO, {
    title: "add() is wrong",
    body: "add(1, 2) is -1.\n\nref: release-1",
    user: STRANGER,
  }).number;
  const before = runs;
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  assert.equal(runs, before + 1, "the run happened");
  assert.equal(pullOf(issue)?.base, "main", "on the default branch, not the stranger's ref");
  const status = botComments(issue).at(-1)!.body;
  assert.match(status, /names `ref: release-1`, but its author has no write access/);
});

test("a maintainer's issue or command chooses the ref (the ordinary run)", async () => {
  const issue = h.github.addIssue(OWNER, REPO, {
    title: "add() on release 1",
    body: "add(1, 2) is -1.\n\nref: release-1",
    user: MAINTAINER,
  }).number;
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  assert.equal(pullOf(issue)?.base, "release-1");

  // A stranger's issue, and a maintainer names the ref in their command.
  const other = h.github.addIssue(OWNER, REPO, {
    title: "add() on release 1 again",
    body: "add(1, 2) is -1.",
    user: STRANGER,
  }).number;
  assert.equal(await h.comment(other, "/auto-fix\nref: release-1"), 200);
  await h.idle();
  assert.equal(pullOf(other)?.base, "release-1");
});

test("a pull request's ref is never checked out, even a maintainer's, with a clear message", async () => {
  for (const ref of ["refs/pull/7/head", "pull/7/merge"]) {
    const issue = h.github.addIssue(OWNER, REPO, {
      title: `run on ${ref}`,
      body: `add(1, 2) is -1.\n\nref: ${ref}`,
      user: MAINTAINER,
    }).number;
    const before = runs;
    const clones = h.git.requests.filter((r) => r.service === "upload-pack").length;
    assert.equal(await h.labeled(issue), 200);
    await h.idle();
    assert.equal(runs, before, "no run");
    assert.equal(h.git.requests.filter((r) => r.service === "upload-pack").length, clones, "no clone");
    const replies = botComments(issue);
    assert.equal(replies.length, 1);
    assert.match(
      replies[0]!.body,
      /@mona auto-fix did not start: `ref: .*pull\/7\/.*` names a pull request's ref, which auto-fix never checks out/,
    );
  }
});
