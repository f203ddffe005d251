/**
 * What the repository's tests did, said once and in plain words wherever a person reads it (the pull
 * request body, the status comment, report.md): related tests that did not run are never "no test
 * relates" beside "1 of 26 test files relate", never "nothing was left out" beside related tests left
 * out; a run that cannot be trusted is said so without the product's own words for its checks.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FixRunRecord } from "../../src/contract/pipeline.ts";
import type { FixResult } from "../../src/contract/result.ts";
import { renderPullBody } from "../../src/github/render/pr-body.ts";
import { renderStatus } from "../../src/github/render/status-comment.ts";
import { pullPlan } from "../../src/issue-run/pull-plan.ts";
import { pipelineStages } from "../../src/issue-run/run-report.ts";
import { renderReport } from "../../src/report/report.ts";
import { fakeResult, fakeReview } from "../support/fix-result.ts";
import { internalTerms, plainWordProblems } from "../support/plain-words.ts";

type Validation = NonNullable<FixResult["validation"]>;

const RUN = {
  exitCode: 0,
  limit: null,
  passed: 3,
  failed: 0,
  skipped: 0,
  parser: "pytest",
  durationMs: 10,
  notes: [],
};

function validation(fields: Partial<Validation>): Validation {
  return {
    passed: true,
    shows_fix: false,
    status: "passed",
    command: "python3 -m pytest",
    regressions: [],
    fixed: [],
    perTest: true,
    before: RUN,
    after: RUN,
    summary: "3 tests ran before the patch and 3 after: no regressions",
    ...fields,
  };
}

/** The related test file went over the time given to related tests: nothing of the repository judged. */
const OVER_BUDGET = validation({
  passed: false,
  status: "no-tests",
  before: null,
  after: null,
  summary:
    "none of the related tests could be run (see what was not run): the patch was not validated by the repository's tests",
  tests: {
    kind: "targeted",
    runner: "pytest",
    why: "1 of 26 pytest test files relates to the change",
    selected: [
      { target: "tests/test_websocket.py", reasons: ["imports a changed module"], run: "over-budget" },
    ],
    total: 26,
    command: "python3 -m pytest tests/test_websocket.py",
    notRun:
      "tests/test_websocket.py (1 related test, over the 45 s budget for related tests, validation.related-budget); the other 25 tests of the suite: not run, the related tests already took the budget for related tests",
    pristineRuns: 0,
    relatedBudgetMs: 45_000,
  },
});

/** An older validation's words for the same thing: "no test relates", while its selection names one. */
const SAYS_NONE_RELATES = validation({
  ...OVER_BUDGET,
  summary:
    "no test of the repository relates to the change: the patch was not validated by the repository's tests",
});

/** Related tests outside what the test command runs were left out; everything the command runs ran. */
const WITHIN_COMMAND = validation({
  related: 1,
  counted: { before: 3, after: 3 },
  tests: {
    kind: "targeted",
    runner: "pytest",
    why: "1 of 3 pytest test files relates to the change within what the test command runs (`tests/test_use.py`; 80 related tests outside it left out, validation.within-command)",
    selected: [{ target: "tests/test_use.py", reasons: ["imports a changed module"], run: "ran" }],
    total: 1,
    command: "python3 -m pytest tests/test_use.py",
    notRun: null,
    pristineRuns: 0,
  },
});

/** The run after the patch cannot be trusted: the check test's file was not there. */
const UNTRUSTED = validation({
  passed: false,
  status: "tampered",
  summary: "the test run after the patch cannot be trusted: its proof file could not be read (ENOENT)",
  integrity: { state: "tampered", detail: "its proof file could not be read (ENOENT)" },
});

/** Counted, and the runner checks held. */
const CHECKS_HELD = validation({
  related: 1,
  counted: { before: 3, after: 3 },
  integrity: {
    state: "intact",
    detail:
      "the check tests ran: the one that must fail was reported failed, the one that must pass passed and left its file",
  },
});

function resultWith(v: Validation): FixResult {
  return fakeResult({
    status: "patched",
    patch: "--- a/ws.py\n+++ b/ws.py\n@@ -1 +1 @@\n-x\n+y\n",
    review: fakeReview({ approved: true, "patch-correct": "yes", "test-correct": "yes", rounds: 1 }),
    validation: v,
  });
}

function body(r: FixResult): string {
  return renderPullBody({
    issueNumber: 7,
    issueTitle: "websocket close is lost",
    result: r,
    run: 1,
    seconds: 3,
    model: "m",
    files: ["ws.py"],
    artifactsPath: "/tmp/a",
  }).body;
}

function status(r: FixResult): string {
  const plan = pullPlan({
    data: { run: 1 } as never,
    guidance: undefined,
    result: r,
    pushed: { commit: "a".repeat(40), files: ["ws.py"] },
    branch: "auto-fix/issue-7",
    base: "main",
    title: "t",
    body: "b",
    existingPull: 0,
    points: [],
    replyInThreads: false,
    stages: Object.fromEntries(pipelineStages(r)),
    advice: undefined,
  });
  return renderStatus({
    state: { runs: 1 } as never,
    run: 1,
    maxRuns: 5,
    trigger: "started by @maintainer (label `auto-fix`)",
    phase: "finished",
    stages: { cloned: { status: "done", note: "main at 8d2b872" }, ...plan.stages },
    final: { ok: true, headline: "Opened draft pull request #2.", details: plan.details, next: [] },
  });
}

/** report.md's validation section for a run whose chosen patch had this validation. */
function reportValidation(r: FixResult): string {
  const v = r.validation!;
  const { passed, shows_fix, ...data } = v;
  const chosen = {
    id: "p1",
    source: "linear attempt 1",
    answer: "",
    result: { status: "APPLICABLE_PATCH", diff: r.patch, feedback: "" },
    applicable: true,
    validation: { passed, showsFix: shows_fix, regressions: v.regressions, summary: v.summary, data },
  };
  const record = {
    result: r,
    issue: { title: "websocket close is lost", body: "" },
    options: { repo: "/repo" },
    state: { search: null, candidates: [chosen], chosen, chosenWhy: "the only patch", sections: [] },
    timings: [],
    toolMs: { search: 0, apply: 0 },
    usageByStage: {},
    modelCalls: 0,
    indexStats: null,
    notes: [],
    error: null,
    workdir: null,
    artifacts: [],
  } as unknown as FixRunRecord;
  const report = renderReport(record);
  // The whole report is in plain words too (its patch table, its list of artifacts).
  assert.deepEqual(internalTerms(report), [], report);
  assert.match(report, /\| patch attempt 1 \| applies \|/);
  const start = report.indexOf("## Validation");
  assert.ok(start >= 0, report);
  return report.slice(start, report.indexOf("\n## ", start + 1));
}

/** The contradictions a person met about related tests, in one text. */
function contradictions(text: string): string[] {
  const out: string[] = [];
  const noneRelates = /no test (?:of the repository )?relates/i.test(text);
  const someRelate = /\b[1-9]\d* of \d+ [\w ]*?(?:tests?|test files?) relates?\b/i.test(text);
  if (noneRelates && someRelate) out.push("says no test relates and that some do");
  const leftOut = /related tests?[^.\n]*(?:left out|not run|past the|over the)/i.test(text);
  if (leftOut && /Nothing of the suite was left out/.test(text))
    out.push("says related tests were left out and that nothing was");
  return out;
}

for (const [name, v] of [
  ["related tests over the time given to them", OVER_BUDGET],
  ["a validation that says none relates while naming one", SAYS_NONE_RELATES],
  ["related tests outside the test command", WITHIN_COMMAND],
  ["a run that cannot be trusted", UNTRUSTED],
  ["runner checks that held", CHECKS_HELD],
] as const) {
  test(`${name}: the body, the status comment and report.md say one thing, in plain words`, () => {
    const r = resultWith(v);
    for (const [where, text] of [
      ["body", body(r)],
      ["status", status(r)],
      ["report.md", reportValidation(r)],
    ] as const) {
      assert.deepEqual(contradictions(text), [], `${where}:\n${text}`);
      assert.deepEqual(internalTerms(text), [], `${where}:\n${text}`);
      if (where !== "report.md") assert.deepEqual(plainWordProblems(text), [], `${where}:\n${text}`);
    }
  });
}

test("related tests that did not run are said as that: which, and why, never 'no test relates'", () => {
  for (const v of [OVER_BUDGET, SAYS_NONE_RELATES]) {
    const text = body(resultWith(v));
    assert.match(
      text,
      /No test judged the patch: the one related test did not run \(1 not run in the time given to related tests\)/,
    );
    assert.match(text, /`tests\/test_websocket\.py`: imports a changed module — not run: the time given to/);
    assert.match(
      text,
      /^Not run: tests\/test\\_websocket\.py \(1 related test, past the 45 s given to related tests \(setting `validation\.related-budget`\)\)/m,
    );
    assert.doesNotMatch(text, /Nothing of the suite was left out/);
  }
  // With everything the command runs run, the body says so of the command, not of the suite.
  assert.match(body(resultWith(WITHIN_COMMAND)), /Of what the test command runs, no test was left out\./);
});

test("a run that cannot be trusted: the status line's title and the body say so, naming what failed", () => {
  const r = resultWith(UNTRUSTED);
  assert.match(status(r), /The test run cannot be trusted/);
  assert.match(
    body(r),
    /❌ The test run after the patch cannot be trusted: the file the check test writes could not be read \(ENOENT\)/,
  );
});
