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

test("without an error the outcome comes from the evidence: approval or tests that show the fix", () => {
  assert.equal(decideOutcome(state(applicable), null).status, "patched");
  assert.equal(
    decideOutcome(state({ ...applicable, review: { approved: true, summary: "ok" } }), null).status,
    "fixed",
  );
  const none = decideOutcome(state(null), null);
  assert.equal(none.status, "no-patch");
  assert.match(none.reason, /the search did not finish; 0 patch attempt\(s\), none applicable/);
});
