import assert from "node:assert/strict";
import { test } from "node:test";
import { decideOutcome, failureRule, RunInterrupted, stopsRun } from "../../src/contract/failures.ts";
import type { FixState, PatchCandidate } from "../../src/contract/pipeline.ts";
import {
  BudgetExceeded,
  ContextLengthExceeded,
  ModelConfigError,
  ModelRequestRejected,
  ModelUnavailable,
  NonJsonAnswer,
  UnusableAnswers,
} from "../../src/model/errors.ts";

const applicable: PatchCandidate = {
  id: "c",
  source: "linear attempt 1",
  answer: "",
  result: { status: "APPLICABLE_PATCH", diff: "diff", edits: [], feedback: "" },
  applicable: true,
};
const state = (chosen: PatchCandidate | null): FixState => ({
  reproduction: null,
  search: null,
  candidates: chosen ? [chosen] : [],
  chosen,
  chosenWhy: "linear attempt 1: applies",
  locationsText: null,
  requested: [],
});

// Each error class: does a stage have to let it through, and what does the run end as, with and without
// an applicable patch found before it?
const table: {
  error: Error;
  stops: boolean;
  withoutPatch: { status: string; reason: RegExp };
  withPatch: RegExp;
}[] = [
  {
    error: new RunInterrupted(),
    stops: true,
    withoutPatch: { status: "error", reason: /^the run was interrupted$/ },
    withPatch: /\(then the run was interrupted\)/,
  },
  {
    error: new BudgetExceeded({ usd: 1 }, { tokens: 10, usd: 1.5 }),
    stops: true,
    withoutPatch: { status: "no-patch", reason: /^the run stopped: model budget reached/ },
    withPatch: /\(then the run stopped: model budget reached/,
  },
  {
    error: new UnusableAnswers(3, "3 unusable answers in a row"),
    stops: true,
    withoutPatch: { status: "no-patch", reason: /^the run stopped: 3 unusable answers/ },
    withPatch: /then the run stopped: 3 unusable answers/,
  },
  {
    error: new ContextLengthExceeded("the prompt does not fit"),
    stops: false,
    withoutPatch: { status: "no-patch", reason: /^the run stopped: the prompt does not fit$/ },
    withPatch: /then the run stopped: the prompt does not fit/,
  },
  {
    error: new ModelUnavailable("503 after 4 attempts", 503, 4),
    stops: true,
    withoutPatch: { status: "error", reason: /^the model endpoint is unavailable: 503 after 4 attempts$/ },
    withPatch: /then the model endpoint is unavailable/,
  },
  {
    error: new NonJsonAnswer("the endpoint answered a web page", 200, "text/html", "<html>"),
    stops: true,
    withoutPatch: { status: "error", reason: /^the endpoint answered a web page$/ },
    withPatch: /then the endpoint answered a web page/,
  },
  {
    error: new ModelRequestRejected("401 Unauthorized", 401),
    stops: true,
    withoutPatch: { status: "error", reason: /^the model endpoint refused the request: 401 Unauthorized$/ },
    withPatch: /then the model endpoint refused the request/,
  },
  {
    error: new TypeError("x is undefined"),
    stops: false,
    withoutPatch: { status: "error", reason: /^internal error: x is undefined$/ },
    withPatch: /then internal error: x is undefined/,
  },
];

test("each error class maps to one rule: whether it stops the run, and the status and reason it ends with", () => {
  for (const row of table) {
    const name = row.error.constructor.name;
    assert.equal(stopsRun(row.error), row.stops, name);
    const none = decideOutcome(state(null), row.error);
    assert.equal(none.status, row.withoutPatch.status, name);
    assert.match(none.reason, row.withoutPatch.reason, name);
    const patched = decideOutcome(state(applicable), row.error);
    assert.equal(patched.status, "patched", `${name}: a patch found before the error is kept`);
    assert.match(patched.reason, row.withPatch, name);
  }
});

test("errors are told apart by class, not by name: a look-alike name is an internal error", () => {
  const lookalike = new Error("budget");
  lookalike.name = "BudgetExceeded";
  assert.equal(stopsRun(lookalike), false);
  assert.equal(decideOutcome(state(null), lookalike).status, "error");
  const abort = new DOMException("aborted", "AbortError");
  assert.equal(stopsRun(abort), false, "an abort stops the run as RunInterrupted, which the pipeline throws");
  // A configuration error is the caller's to report before the run; inside a run it is internal.
  const config = new ModelConfigError("no model is configured");
  assert.equal(failureRule(config).stopsRun, false);
  assert.equal(decideOutcome(state(null), config).reason, "internal error: no model is configured");
  assert.equal(stopsRun("a string"), false);
  assert.match(decideOutcome(state(null), "a string").reason, /^internal error: a string$/);
});

test("without an error the outcome comes from evidence that ran, never from the reviewer's approval alone", () => {
  assert.equal(decideOutcome(state(applicable), null).status, "patched");
  // The reviewer is the same model that wrote the patch: its approval alone is no evidence.
  const approvedOnly = decideOutcome(
    state({ ...applicable, review: { approved: true, summary: "ok" } }),
    null,
  );
  assert.equal(approvedOnly.status, "patched");
  assert.match(approvedOnly.reason, /nothing that ran shows the bug gone/);
  const exec = (exitCode: number) => ({
    exitCode,
    signal: null,
    limit: null,
    stdout: "",
    stderr: exitCode === 0 ? "" : "AssertionError",
    truncated: false,
    durationMs: 10,
  });
  const reviewed = (before: number, after: number): NonNullable<PatchCandidate["review"]> => ({
    approved: true,
    summary: "ok",
    data: {
      rounds: 1,
      "patch-correct": "yes",
      "test-correct": "yes",
      "patch-analysis": "",
      "patch-advice": "",
      "test-analysis": "",
      "test-advice": "",
      history: [],
      reproducer: {
        script: "assert f() == 2",
        before: exec(before),
        after: exec(after),
        evidence: {
          backs_fix: true,
          detail: "it failed by AssertionError before the patch and passes after it",
          before: null,
          after: null,
          runs_patch: { before: true, after: true, lines: [] },
        },
      },
    },
  });
  // The reproducer is the model's own script: without a repository test that loads the patched code it
  // is not enough, however it ran.
  const alone = decideOutcome(state({ ...applicable, review: reviewed(1, 0) }), null);
  assert.equal(alone.status, "patched");
  assert.match(
    alone.reason,
    /not "fixed": shown only by the reproducer, which the model wrote; no test of the repository loads this code \(the repository has no test command\)$/,
  );
  // The reproducer still fails after the patch: the approval does not make it fixed.
  assert.equal(decideOutcome(state({ ...applicable, review: reviewed(1, 1) }), null).status, "patched");
  // A patch that changes no code is never fixed, whatever ran.
  const comment = decideOutcome(
    state({
      ...applicable,
      review: reviewed(1, 0),
      codeChange: { changed: false, detail: "only a comment" },
    }),
    null,
  );
  assert.equal(comment.status, "patched");
  assert.match(comment.reason, /changes no code/);
  // Tests that could not be run, or a run that was tampered with, keep it at "patched".
  const withValidation = (status: "could-not-run" | "tampered" | "passed", extra: object = {}) =>
    decideOutcome(
      state({
        ...applicable,
        review: reviewed(1, 0),
        validation: {
          passed: status === "passed",
          showsFix: false,
          regressions: [],
          summary: `status ${status}`,
          data: {
            status,
            command: "pytest",
            regressions: [],
            fixed: [],
            perTest: true,
            before: null,
            after: null,
            summary: `status ${status}`,
            ...extra,
          },
        },
      }),
      null,
    );
  assert.equal(withValidation("could-not-run").status, "patched");
  assert.match(withValidation("could-not-run").reason, /tests could not be run: status could-not-run/);
  assert.equal(withValidation("tampered").status, "patched");
  const loading = (n: number) => ({
    kind: "targeted",
    runner: "pytest",
    why: "",
    selected: Array.from({ length: n }, (_, i) => ({
      target: `tests/test_${i}.py`,
      reasons: ["imports a changed module"],
      run: "ran",
    })),
    total: n,
    command: "pytest",
    notRun: null,
    pristineRuns: 0,
  });
  // Related tests that only name the change do not load it.
  const named = withValidation("passed", {
    related: 2,
    tests: { ...loading(0), selected: [{ target: "tests/test_x.py", reasons: ["named by the model"] }] },
  });
  assert.equal(named.status, "patched");
  assert.match(named.reason, /no test of the repository loads this code$/);
  const fixed = withValidation("passed", { related: 2, tests: loading(2) });
  assert.equal(fixed.status, "fixed");
  assert.match(
    fixed.reason,
    /rests on the reproducer, which failed by an assertion before the patch and passes after it, its runs going through the patched lines \(traced\); the 2 related tests that load the patched code ran before and after the patch with no regression$/,
  );
  // A related test that failed before and still fails: "patched", and the test is named.
  const still = withValidation("passed", {
    related: 2,
    tests: loading(2),
    stillFailingRelated: ["tests/test_a.py::test_bug"],
  });
  assert.equal(still.status, "patched");
  assert.match(still.reason, /still fail after it: tests\/test_a.py::test_bug/);
  const none = decideOutcome(state(null), null);
  assert.equal(none.status, "no-patch");
  assert.match(none.reason, /the search did not finish; 0 patch attempt\(s\), none applicable/);
});
