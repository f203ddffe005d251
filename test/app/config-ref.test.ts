/**
 * Which `.github/auto-fix.yml` a run follows when the issue names a ref (`ref: release-1`): the
 * default branch's for who may start it and what it may spend, the ref's (the file the pipeline reads
 * from its clone) for how the code is built and tested, both for protected paths; both must be valid
 * before anything starts. Signed webhooks over HTTP, the fake GitHub's contents API (at a ref too), the
 * files committed in a real git repository served over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PipelineRequest } from "../../src/contract/app-result.ts";
import { BUILD_SCRIPT_GLOBS } from "../../src/core/path-rules.ts";
import { fakeResult } from "../support/fix-result.ts";
import { FIX_PATCH, type Harness, MAINTAINER, OWNER, REPO, startHarness } from "./harness.ts";

let h: Harness;
const requests: Omit<PipelineRequest, "signal" | "onStage">[] = [];

before(async () => {
  h = await startHarness({
    env: {
      AUTO_FIX_TEST_CMD: "make check",
      AUTO_FIX_MAX_COST_USD_PER_RUN: "5",
      AUTO_FIX_ALLOWED_MODELS: "small-model,huge-model",
    },
    pipeline: async ({ signal: _s, onStage: _o, ...req }) => {
      requests.push(req);
      return fakeResult({ status: "patched", patch: FIX_PATCH, summary: "stand-in" });
    },
  });
});
after(() => h.close());

const FULL = `${OWNER}/${REPO}`;

/** The default branch's file, as the contents API and a clone of the default branch both see it. */
function defaultConfig(text: string): void {
  h.repo.files.set(".github/auto-fix.yml", text);
  h.git.commitFiles(FULL, "main", { ".github/auto-fix.yml": text });
}

/** An issue a maintainer wrote that names a ref (a stranger's `ref:` is left out: stranger-ref.test.ts). */
function issueOn(ref: string, title: string): number {
  return h.github.addIssue(OWNER, REPO, { title, body: `add(1, 2) is -1.\n\nref: ${ref}`, user: MAINTAINER })
    .number;
}

const botComments = (issue: number) =>
  h.github.commentsOn(OWNER, REPO, issue).filter((c) => c.user.type === "Bot");

test("an issue on a ref whose file is invalid is refused before the run, naming the ref and each problem", async () => {
  defaultConfig("label: auto-fix\n");
  h.git.commitFiles(
    FULL,
    "release-1",
    { ".github/auto-fix.yml": "timeouts:\n  test: soon\ncolour: red\n" },
    "main",
  );
  const issue = issueOn("release-1", "add() on the release");
  const asked = requests.length;
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  assert.equal(requests.length, asked, "no pipeline run");
  const replies = botComments(issue);
  assert.equal(replies.length, 1, "one reply, and no status comment");
  assert.match(
    replies[0]!.body,
    /@mona auto-fix did not start: `\.github\/auto-fix\.yml` at `release-1` \(the ref this issue names/,
  );
  assert.match(replies[0]!.body, /`timeouts\.test: expected a number of seconds`/);
  assert.match(replies[0]!.body, /unknown setting\(s\) 'colour'/);
  assert.equal(h.repo.pulls.size, 0);
});

test("on a ref: the label, budget and model are the default branch's; the test command is the ref's; both files' protected paths apply", async () => {
  defaultConfig('label: fix-me\nmodel: small-model\nbudgets:\n  cost-usd: 1\nprotected-paths: ["docs/**"]\n');
  h.git.commitFiles(
    FULL,
    "release-2",
    {
      ".github/auto-fix.yml":
        'label: other\nmodel: huge-model\ntest: python3 -m pytest -q\nbudgets:\n  cost-usd: 3\nprotected-paths: ["data/**"]\n',
    },
    "main",
  );
  // The ref's label is not the repository's: nothing starts.
  const ignored = issueOn("release-2", "add() on release 2, wrong label");
  assert.equal(await h.labeled(ignored, { label: "other" }), 200);
  await h.idle();
  assert.deepEqual(botComments(ignored), []);

  const asked = requests.length;
  const issue = issueOn("release-2", "add() on release 2");
  assert.equal(await h.labeled(issue, { label: "fix-me" }), 200);
  await h.idle();
  assert.equal(requests.length, asked + 1, "one run");
  const req = requests.at(-1)!;
  assert.equal(req.maxCostUsd, 1, "the default branch's budget, not the ref's 3");
  assert.equal(req.model, "small-model", "the default branch's model");
  assert.equal(
    req.testCommand,
    undefined,
    "the ref's own `test` is not overridden by the operator's default",
  );
  assert.deepEqual(req.protectedPaths, ["docs/**"], "the default branch's globs, besides the ref's own");
  const pull = [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${issue}`);
  assert.equal(pull?.base, "release-2");
});

test("on a ref whose file names no test command, the operator's default applies even when the default branch names one", async () => {
  defaultConfig("test: python3 -m unittest\n");
  h.git.commitFiles(FULL, "release-3", { ".github/auto-fix.yml": "strategy: linear\n" }, "main");
  const issue = issueOn("release-3", "add() on release 3");
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  const req = requests.at(-1)!;
  assert.equal(req.testCommand, "make check");
  assert.equal(req.protectedPaths, undefined, "the default branch protects nothing beyond the rules");

  // Without a ref the one file decides everything, as before.
  const plain = h.github.addIssue(OWNER, REPO, { title: "add() on main", body: "add(1, 2) is -1." }).number;
  assert.equal(await h.labeled(plain), 200);
  await h.idle();
  assert.equal(
    requests.at(-1)!.testCommand,
    undefined,
    "the default branch's own `test` is read by the pipeline",
  );
  assert.equal(requests.at(-1)!.protectedPaths, undefined);
});

test("a ref's `build-scripts: editable` does not lift the default branch's protection of build scripts", async () => {
  defaultConfig("label: auto-fix\n");
  h.git.commitFiles(FULL, "release-4", { ".github/auto-fix.yml": "build-scripts: editable\n" }, "main");
  const issue = issueOn("release-4", "add() on release 4");
  assert.equal(await h.labeled(issue), 200);
  await h.idle();
  assert.deepEqual(requests.at(-1)!.protectedPaths, [...BUILD_SCRIPT_GLOBS]);

  // Both files allow them: nothing more is protected.
  defaultConfig("build-scripts: editable\n");
  const allowed = issueOn("release-4", "add() on release 4, allowed");
  assert.equal(await h.labeled(allowed), 200);
  await h.idle();
  assert.equal(requests.at(-1)!.protectedPaths, undefined);
});
