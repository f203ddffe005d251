/**
 * The result contract: every way a run ends gives a result that survives JSON and the schema unchanged,
 * and a result from an older build, a partial one or a hostile one is refused with a message that names
 * what is wrong (the app shows it on the issue instead of crashing or rendering guesses).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FixState, PatchCandidate } from "../../src/contract/pipeline.ts";
import {
  checkFixResult,
  type FixResult,
  failedResult,
  MAX_POINT_REPLY_CHARS,
  type MaintainerReport,
  parseFixResult,
} from "../../src/contract/result.ts";
import { decideOutcome } from "../../src/contract/failures.ts";
import { buildResult, diffFiles, execReport } from "../../src/pipeline/build-result.ts";
import { BudgetExceeded, ModelUnavailable } from "../../src/model/errors.ts";
import type { ExecResult } from "../../src/sandbox/index.ts";

const DIFF = [
  "diff --git a/stats/summary.py b/stats/summary.py",
  "--- a/stats/summary.py",
  "+++ b/stats/summary.py",
  "@@ -1,3 +1,3 @@",
  " def mean(values):",
  "-    return sum(values) / (len(values) - 1)",
  "+    return sum(values) / len(values)",
  "",
].join("\n");

const exec = (fields: Partial<ExecResult>): ExecResult => ({
  exitCode: 0,
  signal: null,
  stdout: "",
  stderr: "",
  truncated: false,
  limit: null,
  durationMs: 40,
  backend: "bwrap",
  ...fields,
});

const BEFORE = exec({ exitCode: 1, stdout: "mean = 6.0\n", stderr: "AssertionError: expected 3\n" });
const AFTER = exec({ exitCode: 0, stdout: "mean = 3.0\n" });
const SCRIPT = "from stats.summary import mean\nprint(f'mean = {mean([2, 4])}')\nassert mean([2, 4]) == 3\n";

function candidate(extra: Partial<PatchCandidate> = {}): PatchCandidate {
  return {
    id: "linear-1",
    source: "linear attempt 1",
    answer: "<file>…",
    result: { status: "APPLICABLE_PATCH", diff: DIFF, edits: [], feedback: "" },
    applicable: true,
    ...extra,
  };
}

function state(chosen: PatchCandidate | null, reproduced: boolean): FixState {
  return {
    reproduction: {
      reproduced,
      lead: reproduced ? "AssertionError: expected 3" : null,
      summary: reproduced ? "the script fails with AssertionError" : "no reproducible example",
      data: {
        status: reproduced ? "reproduced" : "no-example",
        summary: reproduced ? "the script fails with AssertionError" : "no reproducible example",
        path: "reproducer.py",
        command: "python3 reproducer.py",
        script: reproduced ? SCRIPT : null,
        attempts: reproduced ? 1 : 0,
        before: reproduced ? execReport(BEFORE) : null,
        after: null,
      },
    },
    search: {
      status: "located",
      locations: [
        {
          file: "stats/summary.py",
          class: null,
          method: "mean",
          start: 1,
          end: 3,
          intendedBehavior: "Divide by len.",
        },
      ],
      requested: [],
      rounds: [],
      results: [],
      messages: [],
    },
    candidates: chosen ? [chosen] : [],
    chosen,
    chosenWhy: chosen ? `${chosen.source}: approved by the reviewer, no regressions` : "",
    locationsText: null,
    requested: [],
  };
}

/** The reproducer failed by an assertion through the patched line before the patch and passes after it. */
const REPRO_EVIDENCE = {
  backs_fix: true,
  detail: "it failed by AssertionError: expected 3 before the patch and passes after it",
  before: {
    how: "exception" as const,
    type: "AssertionError",
    message: "expected 3",
    assertion: true,
    chain: [],
    line: null,
  },
  after: { how: "exit" as const, type: null, message: "", assertion: false, chain: [], line: null },
  runs_patch: {
    before: true,
    after: true,
    lines: ["stats/summary.py:2 (before)", "stats/summary.py:2 (after)"],
  },
};

const approvedReview = {
  approved: true,
  summary: "accepted in round 1; 3 passed",
  data: {
    rounds: 1,
    "patch-correct": "yes" as const,
    "test-correct": "yes" as const,
    "patch-analysis": "divides by the count",
    "patch-advice": "",
    "test-analysis": "asserts the mean",
    "test-advice": "",
    history: [{ round: 1, patchId: "linear-1", scriptVersion: 1, action: "accepted" as const, note: "" }],
    reproducer: {
      script: SCRIPT,
      before: execReport(BEFORE),
      after: execReport(AFTER),
      evidence: REPRO_EVIDENCE,
    },
  },
};

const validation = {
  passed: true,
  showsFix: false,
  regressions: [],
  summary: "3 passed, 0 failed after the patch (before: 3 passed, 0 failed); no regressions",
  data: {
    status: "passed" as const,
    command: "pytest -q",
    regressions: [],
    fixed: [],
    perTest: true,
    before: {
      exitCode: 0,
      limit: null,
      passed: 3,
      failed: 0,
      skipped: 0,
      parser: "pytest",
      durationMs: 900,
      notes: [],
    },
    after: {
      exitCode: 0,
      limit: null,
      passed: 3,
      failed: 0,
      skipped: 0,
      parser: "pytest",
      durationMs: 850,
      notes: [],
    },
    summary: "3 passed",
    related: 1,
    tests: {
      kind: "targeted" as const,
      runner: "pytest",
      why: "1 of 1 pytest test file relates to the change",
      selected: [
        { target: "tests/test_summary.py", reasons: ["imports a changed module"], run: "ran" as const },
      ],
      total: 1,
      command: "pytest -q tests/test_summary.py",
      notRun: null,
      pristineRuns: 0,
    },
  },
};

function resultOf(s: FixState, error: unknown = null, maintainer: MaintainerReport | null = null): FixResult {
  const outcome = decideOutcome(s, error);
  return buildResult({
    status: outcome.status,
    reason: outcome.reason,
    state: s,
    usage: { prompt_tokens: 1200, completion_tokens: 300, cost_usd: 0.0021 },
    out: "/runs/1",
    model: "gpt-4o-mini",
    seconds: 12.5,
    maintainer,
  });
}

/** A review-driven run's maintainer report: instructions read, a review of two comments, both answered. */
const REVIEWED: MaintainerReport = {
  instructions: { source: ".github/auto-fix.md", ref: "main", bytes: 20_000, truncated: true },
  guidance: true,
  review: { id: 41, points: 2 },
  checks: ["tests (3.12)"],
  points: [
    { id: 7, status: "addressed", reply: "add() now adds; the test from your comment passes." },
    { id: 8, status: "not-addressed", reply: "sub() is left as it is, as the issue asks." },
  ],
};

const OUTCOMES: Record<string, () => FixResult> = {
  fixed: () => resultOf(state(candidate({ review: approvedReview, validation }), true)),
  patched: () => resultOf(state(candidate({ validation }), false)),
  "no-patch": () =>
    resultOf(
      state(
        candidate({
          applicable: false,
          result: { status: "RAW_PATCH_BUT_UNMATCHED", diff: "", edits: [], feedback: "no match" },
        }),
        true,
      ),
    ),
  "fixed after a review": () =>
    resultOf(state(candidate({ review: approvedReview, validation }), true), null, REVIEWED),
  error: () => resultOf(state(null, false), new ModelUnavailable("connection refused", null, 3)),
  "timed out": () =>
    failedResult({
      out: "/runs/2",
      reason: "timed out after 30 minutes",
      error: "the run timed out after 30 minutes (AUTO_FIX_RUN_TIMEOUT_MINUTES)",
      timedOutAfter: "30 minutes",
      seconds: 1800,
    }),
};

for (const [name, make] of Object.entries(OUTCOMES)) {
  test(`a ${name} result round-trips through JSON and the schema unchanged`, () => {
    const result = make();
    const back = parseFixResult(JSON.stringify(result, null, 2));
    assert.ok(back.ok, back.ok ? "" : back.message);
    assert.deepEqual(back.result, result);
  });
}

test("the maintainer report is carried typed; without a patch it keeps what was read and answers nothing", () => {
  const reviewed = OUTCOMES["fixed after a review"]!();
  assert.deepEqual(reviewed.maintainer, REVIEWED);
  assert.equal(OUTCOMES.fixed!().maintainer, null);
  const unpatched = resultOf(
    state(
      candidate({
        applicable: false,
        result: { status: "RAW_PATCH_BUT_UNMATCHED", diff: "", edits: [], feedback: "no match" },
      }),
      true,
    ),
    null,
    REVIEWED,
  );
  assert.equal(unpatched.status, "no-patch");
  assert.deepEqual(unpatched.maintainer, { ...REVIEWED, points: [] });
});

test("each outcome says what it is, in the fields the contract fixes and in its summary", () => {
  const fixed = OUTCOMES.fixed!();
  assert.equal(fixed.status, "fixed");
  assert.equal(fixed.patch, DIFF);
  assert.equal(fixed.reproduced, true);
  assert.equal(fixed.review?.["patch-correct"], "yes");
  assert.deepEqual(
    fixed.review?.history.map((h) => h.action),
    ["accepted"],
  );
  // The reproducer: the script the reviewer judged, both streams before and after the chosen patch.
  assert.equal(fixed.reproducer?.script, SCRIPT);
  assert.equal(fixed.reproducer?.before?.stdout, "mean = 6.0\n");
  assert.equal(fixed.reproducer?.before?.stderr, "AssertionError: expected 3\n");
  assert.equal(fixed.reproducer?.after?.stdout, "mean = 3.0\n");
  assert.equal(fixed.reproducer?.after?.exitCode, 0);
  assert.equal(fixed.validation?.shows_fix, false);
  assert.equal(fixed.validation?.command, "pytest -q");
  assert.equal(fixed.model, "gpt-4o-mini");
  assert.equal(fixed.error, null);
  assert.equal(
    fixed.summary,
    "The patch changes stats/summary.py. The search located the bug in stats/summary.py (mean). " +
      "A reproducer script fails on the unpatched code (exit 1) and passes with the patch (exit 0). " +
      "The reviewer judged the patch correct and the reproducer correct after 1 review round. " +
      "The repository's tests ran before and after the patch: no test that ran before fails or goes missing after it. " +
      "The fix rests on the reproducer, which failed by an assertion before the patch and passes after it, its runs going through the patched lines (traced); the 1 related test that loads the patched code ran before and after the patch with no regression.",
  );

  const patched = OUTCOMES.patched!();
  assert.equal(patched.status, "patched");
  assert.equal(patched.review, null);
  assert.equal(patched.reproducer?.status, "no-example");
  assert.equal(patched.reproduced, false);
  assert.match(patched.summary, /no reproducible example/);
  assert.match(patched.summary, /No reviewer judged the patch/);

  const none = OUTCOMES["no-patch"]!();
  assert.equal(none.patch, null);
  assert.equal(none.reproducer?.after, null, "no patch ran against the script");
  assert.match(none.summary, /^No patch is proposed: .*none applicable/);

  const error = OUTCOMES.error!();
  assert.equal(error.status, "error");
  assert.match(error.error ?? "", /model endpoint is unavailable: connection refused/);

  const late = resultOf(
    state(candidate({ review: approvedReview, validation }), true),
    new BudgetExceeded({ usd: 1 }, { tokens: 10, usd: 1.2 }),
  );
  assert.equal(late.status, "fixed", "a patch found before the budget ran out is kept");
  assert.equal(late.error, null);

  const timedOut = OUTCOMES["timed out"]!();
  assert.equal(timedOut.status, "error");
  assert.equal(timedOut.timed_out_after, "30 minutes");
  assert.equal(timedOut.usage.cost_usd, null, "what a killed run spent is unknown, never $0");
});

test("a reproducer's output is kept whole up to a cap, then cut in the middle and marked", () => {
  const long = exec({ stdout: `${"x".repeat(10_000)}END`, stderr: "" });
  const r = execReport(long);
  assert.equal(r.truncated, true);
  assert.ok(r.stdout.length < 4200 && r.stdout.endsWith("END"), r.stdout.slice(-20));
  assert.equal(execReport(BEFORE).truncated, false);
  assert.equal(execReport(exec({ truncated: true })).truncated, true, "the sandbox's own cut is kept");
});

test("the files a patch changes are read from its diff, new and deleted files too", () => {
  const diff = `${DIFF}--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-y = 2\n`;
  assert.deepEqual(diffFiles(diff), ["stats/summary.py", "new.py", "old.py"]);
});

/** Refusals: each must fail and name what is wrong. */
const REFUSED: [string, unknown, RegExp][] = [
  [
    "the shape before the contract (verdict keys spread on review, exit_code, intended_behavior)",
    {
      status: "fixed",
      patch: DIFF,
      reproduced: true,
      review: { approved: true, summary: "ok", "patch-correct": "yes", rounds: 1, data: {} },
      validation: null,
      usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0 },
      out: "/runs/1",
      reason: "fixed",
      reproducer: { script: "x", before: { exit_code: 1 } },
      locations: [{ file: "a.py", intended_behavior: "x" }],
      selection: null,
      seconds: 1,
    },
    /review\.(test-correct|data)|reproducer\.|summary|model|error/,
  ],
  ["an empty object", {}, /status: .*expected one of/i],
  [
    "a partial result (status and patch only)",
    { status: "patched", patch: DIFF },
    /: missing reproduced, review, validation, reproducer, usage, out, reason, error, timed_out_after, summary, model, locations, selection, seconds, maintainer$/,
  ],
  ["not an object", ["fixed"], /\(the result\): .*expected object/i],
];

const valid = (): Record<string, unknown> => JSON.parse(JSON.stringify(OUTCOMES.fixed!()));

const HOSTILE: [string, (r: Record<string, unknown>) => void, RegExp][] = [
  [
    "'fixed' without the reviewer's approval or tests that show the fix",
    (r) => {
      (r.review as Record<string, unknown>).approved = false;
    },
    /status: "fixed" needs evidence/,
  ],
  [
    "'fixed' without a patch",
    (r) => {
      r.patch = null;
    },
    /patch: a "fixed" result needs the patch/,
  ],
  [
    "'no-patch' that carries a patch anyway",
    (r) => {
      r.status = "no-patch";
    },
    /patch: a "no-patch" result carries no patch/,
  ],
  [
    "a negative cost (a refund of the day's budget)",
    (r) => {
      (r.usage as Record<string, unknown>).cost_usd = -5;
    },
    /usage\.cost_usd: .*>=0/i,
  ],
  [
    "fractional or negative token counts",
    (r) => {
      (r.usage as Record<string, unknown>).prompt_tokens = -1.5;
    },
    /usage\.prompt_tokens/,
  ],
  [
    "a status the contract does not know",
    (r) => {
      r.status = "merged";
    },
    /status: .*expected one of "fixed"\|"patched"\|"no-patch"\|"error"/i,
  ],
  [
    "an unknown key (a renamed field, another build)",
    (r) => {
      r.bug_locations = [];
    },
    /unrecognized key.*bug_locations/i,
  ],
  [
    "a __proto__ key in a nested object",
    (r) => {
      Object.defineProperty(r.review, "__proto__", { value: { approved: true }, enumerable: true });
    },
    /review: unrecognized key.*__proto__/i,
  ],
  [
    "a verdict other than yes or no",
    (r) => {
      (r.review as Record<string, unknown>)["patch-correct"] = "yes @maintainer";
    },
    /review\.patch-correct/,
  ],
  [
    "a location that ends before it starts",
    (r) => {
      (r.locations as Record<string, unknown>[])[0]!.end = 0;
    },
    /locations\.0\.end/,
  ],
  [
    "an error without saying what went wrong",
    (r) => {
      r.status = "error";
      r.patch = null;
    },
    /error: an "error" result says what went wrong/,
  ],
  [
    "answers to review comments without a patch",
    (r) => {
      Object.assign(r, { status: "no-patch", patch: null, maintainer: structuredClone(REVIEWED) });
    },
    /maintainer: answers review comments without a patch/,
  ],
  [
    "answers to review comments without a review",
    (r) => {
      r.maintainer = { ...structuredClone(REVIEWED), review: null };
    },
    /maintainer: answers review comments without a review/,
  ],
  [
    "more answers than the review had comments",
    (r) => {
      r.maintainer = { ...structuredClone(REVIEWED), review: { id: 41, points: 1 } };
    },
    /maintainer: answers 2 review comments of 1/,
  ],
  [
    "the same review comment answered twice",
    (r) => {
      const m = structuredClone(REVIEWED);
      m.points[1]!.id = 7;
      r.maintainer = m;
    },
    /maintainer: answers a review comment twice/,
  ],
  [
    "an answer to a review comment past its cap (the model's words, posted in the thread)",
    (r) => {
      const m = structuredClone(REVIEWED);
      m.points[0]!.reply = "x".repeat(MAX_POINT_REPLY_CHARS + 1);
      r.maintainer = m;
    },
    /maintainer\.points\.0\.reply: .*<=1500/i,
  ],
  [
    "an answer status the contract does not know",
    (r) => {
      const m = structuredClone(REVIEWED);
      (m.points[0] as Record<string, unknown>).status = "approved @mona";
      r.maintainer = m;
    },
    /maintainer\.points\.0\.status/,
  ],
  [
    "the instructions' text smuggled into the report (only names and counts belong there)",
    (r) => {
      const m = structuredClone(REVIEWED);
      Object.assign(m.instructions!, { text: "ignore the issue" });
      r.maintainer = m;
    },
    /maintainer\.instructions: unrecognized key.*text/i,
  ],
  [
    "a reproduced flag that disagrees with the reproducer",
    (r) => {
      r.reproduced = false;
    },
    /reproduced: disagrees with the reproducer's status "reproduced"/,
  ],
];

for (const [name, value, message] of REFUSED) {
  test(`refused with a clear message: ${name}`, () => {
    const r = checkFixResult(value);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.match(r.message, /^the result does not match the contract: /);
      assert.match(r.message, message);
    }
  });
}

for (const [name, spoil, message] of HOSTILE) {
  test(`a hostile result is refused: ${name}`, () => {
    const r = valid();
    assert.ok(checkFixResult(r).ok, "the untouched result passes");
    spoil(r);
    const back = parseFixResult(JSON.stringify(r));
    assert.equal(back.ok, false);
    if (!back.ok) assert.match(back.message, message);
  });
}

test("text that is not JSON is refused as such", () => {
  const r = parseFixResult("Traceback (most recent call last):\n  oops");
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.message, /^the result is not JSON: /);
});

test("a patch the scan found code aimed at the checks in is patched, never fixed, and the result says which lines and why", () => {
  const finding = "the patch reads the environment: `if os.environ.get('CI'):` at stats/summary.py:2";
  const scanned = resultOf(
    state(
      candidate({
        review: approvedReview,
        validation,
        scan: { findings: [finding], shared: [], unscanned: [] },
      }),
      true,
    ),
  );
  assert.equal(scanned.status, "patched");
  assert.match(scanned.reason, /not "fixed": the patch holds code that can tell a test run from other use/);
  assert.ok(scanned.reason.includes(finding), scanned.reason);
  assert.deepEqual(scanned.evidence?.patch_findings, [finding]);
  const clean = resultOf(
    state(
      candidate({
        review: approvedReview,
        validation,
        scan: { findings: [], shared: ["`3` at x.py:1"], unscanned: [] },
      }),
      true,
    ),
  );
  assert.equal(clean.status, "fixed", clean.reason);
  assert.deepEqual(clean.evidence?.shared_literals, ["`3` at x.py:1"]);
  // A child that claims "fixed" over its own findings is refused.
  const claimed = { ...clean, evidence: { ...clean.evidence!, patch_findings: [finding] } };
  const back = checkFixResult(JSON.parse(JSON.stringify(claimed)));
  assert.equal(back.ok, false);
  assert.match(back.ok ? "" : back.message, /"fixed" needs evidence that ran: the patch holds code/);
  // A result from before the scan (no patch_findings) still reads.
  const old = { ...clean, evidence: { ...clean.evidence! } };
  delete old.evidence.patch_findings;
  delete old.evidence.shared_literals;
  assert.ok(checkFixResult(JSON.parse(JSON.stringify(old))).ok);
});
