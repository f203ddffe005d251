/**
 * Results for tests whose pipeline is a stand-in (the app's tests, benchmarks): a complete result of the
 * contract with neutral values for every field a test does not care about, checked by the contract's
 * own schema (a stand-in result that breaks the contract fails the test that builds it).
 */
import {
  type ExecReport,
  type FixResult,
  FixResultSchema,
  type MaintainerReport,
  type ReproducerReport,
  type ReviewReport,
} from "../../src/contract/result.ts";

export type FakeResultFields = Partial<Omit<FixResult, "review" | "reproducer" | "maintainer">> & {
  review?: Partial<ReviewReport> | null;
  maintainer?: Partial<MaintainerReport> | null;
  reproducer?:
    | (Partial<Omit<ReproducerReport, "before" | "after">> & {
        before?: Partial<ExecReport> | null;
        after?: Partial<ExecReport> | null;
      })
    | null;
};

export function fakeExec(fields: Partial<ExecReport> = {}): ExecReport {
  return {
    exitCode: 0,
    signal: null,
    limit: null,
    stdout: "",
    stderr: "",
    truncated: false,
    durationMs: 10,
    ...fields,
  };
}

export function fakeReview(fields: Partial<ReviewReport> = {}): ReviewReport {
  return {
    approved: fields["patch-correct"] === "yes" && fields["test-correct"] === "yes",
    summary: "reviewed",
    rounds: 1,
    "patch-correct": null,
    "test-correct": null,
    "patch-analysis": null,
    "patch-advice": null,
    "test-analysis": null,
    "test-advice": null,
    history: [],
    ...fields,
  };
}

/** The maintainer input a run used: none of each kind unless given. */
export function fakeMaintainer(fields: Partial<MaintainerReport> = {}): MaintainerReport {
  return { instructions: null, guidance: false, review: null, checks: [], points: [], ...fields };
}

export const STAND_IN_EVIDENCE: NonNullable<ReproducerReport["evidence"]> = {
  backs_fix: true,
  detail: "it failed by AssertionError before the patch and passes after it",
  before: { how: "exception", type: "AssertionError", message: "", assertion: true, chain: [], line: null },
  after: { how: "exit", type: null, message: "", assertion: false, chain: [], line: null },
  runs_patch: { before: true, after: true, lines: [] },
};

/** A validation's selection with one related test that loads the patched code, and it ran. */
export const LOADING_TEST: Pick<NonNullable<FixResult["validation"]>, "related" | "tests"> = {
  related: 1,
  tests: {
    kind: "targeted",
    runner: "pytest",
    why: "1 of 1 pytest test file relates to the change",
    selected: [{ target: "tests/test_x.py", reasons: ["imports a changed module"], run: "ran" }],
    total: 1,
    command: "python3 -m pytest tests/test_x.py",
    notRun: null,
    pristineRuns: 0,
  },
};

/** The repository's tests of a stand-in "fixed" result: one related test that loads the patched code. */
function standInValidation(): NonNullable<FixResult["validation"]> {
  const run = {
    exitCode: 0,
    limit: null,
    passed: 1,
    failed: 0,
    skipped: 0,
    parser: "pytest",
    durationMs: 10,
    notes: [],
  };
  return {
    passed: true,
    shows_fix: false,
    status: "passed",
    command: "python3 -m pytest",
    regressions: [],
    fixed: [],
    perTest: true,
    before: run,
    after: run,
    summary: "1 test ran before the patch and 1 after: no regressions",
    ...LOADING_TEST,
  };
}

/** A result with these fields; the rest neutral (nothing found, nothing spent). */
export function fakeResult(fields: FakeResultFields = {}): FixResult {
  const { review, maintainer, ...rest } = fields;
  // A "fixed" stand-in needs what the contract asks of one: evidence that ran and that the model did not
  // write. Unless the test says otherwise, a reviewed one carries a reproducer that failed by an
  // assertion through the patched lines before the patch and passes after it, and the repository's tests
  // ran with a related test that loads the patched code.
  const approved = review && review["patch-correct"] === "yes" && review["test-correct"] === "yes";
  const standIn = rest.status === "fixed" && approved;
  const reproducer =
    standIn && fields.reproducer === undefined
      ? { before: { exitCode: 1, stderr: "AssertionError" }, after: { exitCode: 0 } }
      : fields.reproducer;
  if (standIn && reproducer && reproducer.evidence === undefined) reproducer.evidence = STAND_IN_EVIDENCE;
  if (standIn && rest.validation === undefined) rest.validation = standInValidation();
  const rep = reproducer
    ? {
        status: "reproduced" as const,
        summary: "the script fails with AssertionError",
        path: "reproducer.py",
        command: "python reproducer.py",
        script: "assert False\n",
        attempts: 1,
        ...reproducer,
        before: reproducer.before ? fakeExec({ exitCode: 1, ...reproducer.before }) : null,
        after: reproducer.after ? fakeExec(reproducer.after) : null,
      }
    : null;
  const status = rest.status ?? "no-patch";
  return FixResultSchema.parse({
    patch: null,
    reproduced: rep ? rep.status === "reproduced" : null,
    validation: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    out: "/tmp/auto-fix-test-out",
    reason: `${status} (a stand-in result)`,
    error: status === "error" ? "the stand-in pipeline failed" : null,
    timed_out_after: null,
    summary: "",
    model: null,
    locations: [],
    selection: null,
    seconds: 1,
    ...rest,
    status,
    review: review ? fakeReview(review) : null,
    reproducer: rep,
    maintainer: maintainer ? fakeMaintainer(maintainer) : null,
  });
}
