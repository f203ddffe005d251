/**
 * The pull request body and the status comment say each fact once, in plain words, with code spans only
 * around code; the reproducer is shown by its failure, its harness collapsed. (The same rules are
 * checked on real dry runs in Python, JavaScript and Go in test/cli/pull-request-e2e.test.ts.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderPullBody } from "../../src/github/render/pr-body.ts";
import { noteMarkdown, renderStatus } from "../../src/github/render/status-comment.ts";
import { pullPlan } from "../../src/issue-run/pull-plan.ts";
import { pipelineStages } from "../../src/issue-run/run-report.ts";
import { fakeResult, fakeReview } from "../support/fix-result.ts";
import { internalTerms, plainWordProblems, proseInCode, repeatedSentences } from "../support/plain-words.ts";

const HARNESS = Array.from({ length: 80 }, (_, i) => `def helper_${i}():\n    return ${i}\n`).join("\n");
const PYTEST_OUT = [
  "F                                                                        [100%]",
  "=================================== FAILURES ===================================",
  "____________________________ test_mean ____________________________",
  "",
  "    def test_mean():",
  ">       assert mean([2, 4]) == 3",
  "E       assert 6.0 == 3",
  "E        +  where 6.0 = mean([2, 4])",
  "",
  "tests/test_mean.py:5: AssertionError",
  "=========================== short test summary info ============================",
  "FAILED tests/test_mean.py::test_mean - assert 6.0 == 3",
  " +  where 6.0 = mean([2, 4])",
  "1 failed in 0.14s",
].join("\n");
const TRACEBACK = [
  ...Array.from({ length: 30 }, (_, i) => `harness: setting up fixture ${i}`),
  "Traceback (most recent call last):",
  '  File "reproducer.py", line 170, in <module>',
  "    check_mean()",
  '  File "reproducer.py", line 166, in check_mean',
  "    assert result == 3, f'expected 3, got {result}'",
  "AssertionError: expected 3, got 6.0",
].join("\n");

function fixedResult() {
  return fakeResult({
    status: "fixed",
    patch: "--- a/stats.py\n+++ b/stats.py\n@@ -1 +1 @@\n-x\n+y\n",
    evidence: {
      code_changed: true,
      code: "the patch changes code in stats.py",
      rests_on: "the reproducer, which failed by an assertion before the patch and passes after it",
      not_fixed: null,
    },
    review: fakeReview({ approved: true, "patch-correct": "yes", "test-correct": "yes", rounds: 1 }),
    reproducer: {
      script: `${HARNESS}\ndef check_mean():\n    result = mean([2, 4])\n    assert result == 3\n`,
      before: { exitCode: 1, stderr: TRACEBACK },
      after: { exitCode: 0 },
    },
    regression_test: {
      status: "added",
      path: "tests/test_mean_regression.py",
      framework: "pytest",
      summary: "added",
      command: "python3 -m pytest tests/test_mean_regression.py",
      before: {
        exitCode: 1,
        signal: null,
        limit: null,
        stdout: PYTEST_OUT,
        stderr: "",
        truncated: false,
        durationMs: 5,
      },
      after: null,
    } as never,
  });
}

test("the checks catch what they are for: a sentence twice, prose in code, an internal term", () => {
  assert.deepEqual(
    repeatedSentences("The fix rests on the test run.\n\nIt does. The fix rests on the test run."),
    ["the fix rests on the test run."],
  );
  assert.deepEqual(proseInCode("- ✅ Reviewed — `the patch and the reproducer are correct`"), [
    "the patch and the reproducer are correct",
  ]);
  assert.deepEqual(proseInCode("Run `python3 -m pytest -q tests/test_x.py` and `tests/a.py::test_b`"), []);
  assert.deepEqual(internalTerms("counted on both trees; the canary tests"), ["both trees", "canary"]);
});

test("the pull request body says each fact once, in plain words, and shows the reproducer by its failure", () => {
  const result = fixedResult();
  const { body } = renderPullBody({
    issueNumber: 7,
    issueTitle: "mean is off by one",
    result,
    run: 1,
    seconds: 3,
    model: "m",
    files: ["stats.py"],
    artifactsPath: "/tmp/a",
  });
  assert.deepEqual(plainWordProblems(body), [], body);
  // The fix's grounds are said in Evidence only.
  assert.equal(body.split("rests on").length - 1, 1, body);
  const rep = body.slice(body.indexOf("## Reproducer"), body.indexOf("## Regression test"));
  const [shown, collapsed] = rep.split("<details>") as [string, string];
  assert.match(shown, /AssertionError: expected 3, got 6\.0/);
  assert.match(shown, /line 166, in check_mean/);
  assert.doesNotMatch(shown, /helper_|setting up fixture/, "the harness stays in the collapsed part");
  assert.match(collapsed, /The reproducer script \(\d+ lines\) and its full output/);
  assert.match(collapsed, /def helper_0/);
  // pytest's recap of a failure it already printed in full is left out.
  assert.equal(body.split("assert 6.0 == 3").length - 1, 1, body);
  assert.match(body, /1 failed in 0\.14s/);
});

test("the status comment says the reviewer's verdict and the fix's grounds once, with no prose in code", () => {
  const result = fixedResult();
  const plan = pullPlan({
    data: { run: 1 } as never,
    guidance: undefined,
    result,
    pushed: { commit: "a".repeat(40), files: ["stats.py"] },
    branch: "auto-fix/issue-7",
    base: "main",
    title: "t",
    body: "b",
    existingPull: 0,
    points: [],
    replyInThreads: false,
    stages: Object.fromEntries(pipelineStages(result)),
    advice: undefined,
  });
  const status = renderStatus({
    state: { runs: 1 } as never,
    run: 1,
    maxRuns: 5,
    trigger: "started by @maintainer (label `auto-fix`)",
    phase: "finished",
    stages: { cloned: { status: "done", note: "main at 8d2b872" }, ...plan.stages },
    final: { ok: true, headline: "Opened draft pull request #2.", details: plan.details, next: [] },
  });
  assert.deepEqual(plainWordProblems(status), [], status);
  assert.match(status, /Reviewed patch and reproducer — the patch and the reproducer are correct/);
  assert.equal(status.split("rests on").length - 1, 1, status);
  assert.doesNotMatch(status, /The reviewer judged/);
});

test("a stage's note: names as code, words as escaped text", () => {
  assert.equal(noteMarkdown("stats/a.py, stats/b.py"), "`stats/a.py`, `stats/b.py`");
  assert.equal(noteMarkdown("tests/t.py::test_a"), "`tests/t.py::test_a`");
  assert.equal(noteMarkdown("3 files"), "3 files");
  assert.doesNotMatch(noteMarkdown("see **this** @octocat"), /\*\*this\*\*|(?<!\\)@octocat/);
});
