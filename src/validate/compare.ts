import { failureMessages, type TestFailure } from "./failure-messages.ts";
import type { TestRun } from "./run-tests.ts";
import type { TestOutcome } from "../runners/parts/results.ts";
import { countRun, isLoadFailure, tamperOf, whyNotCounted } from "./evidence.ts";
import { plural } from "../core/words.ts";

export type ValidationStatus =
  /** Tests ran and were counted on both trees, nothing regressed, and the run after the patch is green. */
  | "passed"
  /** Tests ran and were counted on both trees and nothing regressed, but the run after the patch is not green. */
  | "no-regressions"
  | "regressions"
  /** No test command for this repository, or no test of it relates to the change and none ran. */
  | "no-tests"
  /**
   * The tests could not be run as evidence: nothing collected, every module failed to load, every test
   * skipped, zero tests, or only an exit code. Never a pass; the summary says why.
   */
  | "could-not-run"
  /** A run's report cannot be trusted: its canaries were lost or misreported. Never a pass. */
  | "tampered"
  /** The suite could not be judged (e.g. it hit a limit after the patch but not before). */
  | "error";

/** What the repository's own tests say about one candidate patch. */
export interface ValidationResult {
  status: ValidationStatus;
  command: string | null;
  /** Tests that passed before the patch and fail (or no longer run) after it. */
  regressions: string[];
  /** Tests that failed before and pass after. */
  fixed: string[];
  /**
   * How the regressions fail: each test's message from the run after the patch (assertion text, the last
   * lines of its traceback), bounded and cleaned, untrusted. Absent when nothing regressed.
   */
  failures?: TestFailure[] | undefined;
  /** Tests that failed before the patch and still fail after it. */
  stillFailing?: string[] | undefined;
  /**
   * Of `stillFailing`, those that relate to the change (selected for a reason other than having failed
   * before): the patch did not make them pass, so the run is not "fixed".
   */
  stillFailingRelated?: string[] | undefined;
  /** Tests that ran (passed or failed) and were counted on each tree; absent when they were not counted. */
  counted?: { before: number; after: number } | undefined;
  /**
   * How many of the tests that ran relate to the change (selected for a reason other than having failed
   * before); absent when no selection was made (the whole suite ran on its own).
   */
  related?: number | undefined;
  /** The tamper checks of the run after the patch: intact, or why it is tampered or unverified. */
  integrity?: { state: "intact" | "tampered" | "unverified"; detail: string } | undefined;
  perTest: boolean;
  before: RunSummary | null;
  after: RunSummary | null;
  summary: string;
  /** Which tests ran and why, and which did not (absent: the whole suite ran, as before targeting). */
  tests?: TestsRan | undefined;
}

/** What a candidate's validation ran, for the report. */
export interface TestsRan {
  /** targeted: only the selected tests; targeted+rest: then the whole suite; full: the whole suite only. */
  kind: "targeted" | "targeted+rest" | "full";
  runner: string | null;
  /** How the selection came out, or why the whole suite ran. */
  why: string;
  /** In the order they ran (best able to show a regression first), each with whether it ran. */
  selected: {
    target: string;
    reasons: string[];
    detail?: string | undefined;
    /** ran; over-budget: left out, past the budget for related tests; after-regression: left out, a
     * regression was already shown; unpatched-too-slow: could not be judged here, its unpatched run did
     * not finish within its limit (timed out before the patch); needs-network: its tests failed before
     * the patch only because the network is off, not judged. Absent: ran (a record from before budgets). */
    run?: "ran" | "over-budget" | "after-regression" | "unpatched-too-slow" | "needs-network" | undefined;
    /** Why it did not run, when more can be said than its `run` (e.g. its batch was stopped at the budget). */
    reason?: string | undefined;
    /** Over the budget because its batch was stopped at the budget: after how long (ms). */
    stoppedAfterMs?: number | undefined;
    /** How long the same tests (its batch) took on the unpatched tree (ms), when known. */
    unpatchedMs?: number | undefined;
  }[];
  /** Test targets (files, modules, packages, classes) the tree holds, when known. */
  total: number | null;
  /** The command that ran the selected tests (or the whole suite). */
  command: string | null;
  /** What did not run and why; null when everything ran. */
  notRun: string | null;
  /** Runs on the unpatched tree this candidate needed (0 when the job had its results already). */
  pristineRuns: number;
  /** The budget for the related tests (ms); null when none applied (`validation: full`). */
  relatedBudgetMs?: number | null | undefined;
  /** Wall time the candidate's validation took (ms). */
  durationMs?: number | undefined;
}

export interface RunSummary {
  exitCode: number | null;
  limit: string | null;
  passed: number;
  failed: number;
  skipped: number;
  parser: string;
  durationMs: number;
  /** What was not read of the output or the reports (past their caps, refused), when anything was. */
  notes?: string[];
}

export const summarize = (r: TestRun): RunSummary => ({
  exitCode: r.exec.exitCode,
  limit: r.exec.limit,
  passed: r.passed,
  failed: r.failed,
  skipped: r.skipped,
  parser: r.parser,
  durationMs: r.exec.durationMs,
  ...(r.notes && r.notes.length > 0 ? { notes: r.notes } : {}),
});

const green = (r: TestRun): boolean => r.exec.exitCode === 0 && r.exec.limit === null;

const listed = (ids: readonly string[], n = 5): string =>
  `${ids.slice(0, n).join(", ")}${ids.length > n ? ` and ${ids.length - n} more` : ""}`;

/** The words every status comment, report and pull request uses for runs that judge nothing. */
export const COULD_NOT_RUN = "tests could not be run";

/** Compares the baseline run with the run after a patch; pure. */
export function compareRuns(before: TestRun | null, after: TestRun | null): ValidationResult {
  const result = compareRunsOnly(before, after);
  if (result.status === "regressions" && after) {
    const failures = failureMessages(after.exec, result.regressions);
    if (failures.length > 0) result.failures = failures;
  }
  return result;
}

function compareRunsOnly(before: TestRun | null, after: TestRun | null): ValidationResult {
  if (!before || !after) {
    return {
      status: "no-tests",
      command: before?.command ?? after?.command ?? null,
      regressions: [],
      fixed: [],
      perTest: false,
      before: before ? summarize(before) : null,
      after: after ? summarize(after) : null,
      summary: "no test command: the patch was not validated by the repository's tests",
    };
  }
  const integrity = after.integrity;
  const base = {
    command: after.command,
    before: summarize(before),
    after: summarize(after),
    ...(integrity ? { integrity } : {}),
  };
  return (
    cannotTrust(before, after, base) ??
    nothingCounted(before, after, base) ??
    perTestVerdict(before, after, base)
  );
}

/** What every verdict of two runs carries: the command, both runs' summaries, the canaries' account. */
type VerdictBase = Pick<ValidationResult, "command" | "before" | "after" | "integrity">;

/** A run whose report cannot be trusted (tampered), or a limit hit after the patch only; else null. */
function cannotTrust(before: TestRun, after: TestRun, base: VerdictBase): ValidationResult | null {
  const tamperedAfter = tamperOf(after);
  const tamperedBefore = tamperOf(before);
  if (tamperedAfter !== null || tamperedBefore !== null) {
    return {
      ...base,
      status: "tampered",
      regressions: [],
      fixed: [],
      perTest: before.tests !== null && after.tests !== null,
      summary:
        tamperedAfter !== null
          ? `the test run after the patch cannot be trusted: ${tamperedAfter}`
          : `the test run on the unpatched tree cannot be trusted: ${tamperedBefore}`,
    };
  }
  if (after.exec.limit !== null && before.exec.limit === null) {
    return {
      ...base,
      status: "regressions",
      regressions: [`(test suite: ${after.exec.limit} limit hit after the patch, not before)`],
      fixed: [],
      perTest: false,
      summary: `the test suite hit the ${after.exec.limit} limit after the patch but not before`,
    };
  }
  return null;
}

/**
 * Nothing was counted before the patch: a whole-suite regression, a new load failure, or "could not
 * run"; null when the run before the patch was counted.
 */
function nothingCounted(before: TestRun, after: TestRun, base: VerdictBase): ValidationResult | null {
  const whyBefore = whyNotCounted(before);
  if (whyBefore === null) return null;
  // Nothing was counted before the patch: no test can be said to pass, to regress or to be fixed one
  // by one. A suite that was green before and fails after is still a regression of the whole suite.
  if ((before.tests === null || before.perTestUnavailable !== undefined) && green(before) && !green(after)) {
    return {
      ...base,
      status: "regressions",
      regressions: ["(test suite: passed before the patch, fails after)"],
      fixed: [],
      perTest: false,
      summary: `the test suite passed before the patch and fails after (exit ${after.exec.exitCode}); no per-test results`,
    };
  }
  // A failure after the patch that the run before did not name: a file that no longer loads, or (from
  // a runner that names only its failures) a test that fails now.
  const newLoadFailures = [...(after.tests ?? [])]
    .filter(
      ([id, o]) =>
        o === "failed" &&
        (isLoadFailure(id) || before.perTestUnavailable !== undefined) &&
        before.tests?.get(id) !== "failed",
    )
    .map(([id]) => id);
  if (newLoadFailures.length > 0) {
    return {
      ...base,
      status: "regressions",
      regressions: newLoadFailures,
      fixed: [],
      perTest: true,
      summary: `${plural(newLoadFailures.length, "test or test file", "tests or test files")} ${newLoadFailures.length === 1 ? "fails" : "fail"} after the patch and did not before: ${listed(newLoadFailures)}`,
    };
  }
  return {
    ...base,
    status: "could-not-run",
    regressions: [],
    fixed: [],
    perTest: before.tests !== null && after.tests !== null,
    summary: `${COULD_NOT_RUN}: before the patch, ${whyBefore}; the patch was not validated by the repository's tests`,
  };
}

/** Both runs counted: test by test, what regressed, what the patch fixed, what still fails. */
function perTestVerdict(before: TestRun, after: TestRun, base: VerdictBase): ValidationResult {
  // Tests ran and were counted before the patch: every test that had an outcome then must have one
  // after. A run after the patch that names no test (it ended early, its report is gone) loses them all.
  const beforeTests = before.tests!;
  const afterTests = after.tests ?? new Map<string, TestOutcome>();
  const regressions: string[] = [];
  const fixed: string[] = [];
  const stillFailing: string[] = [];
  let vanished = 0;
  for (const [id, outcome] of beforeTests) {
    const now = afterTests.get(id);
    if (now === undefined) {
      if (!isLoadFailure(id)) {
        regressions.push(`${id} (no longer runs)`);
        vanished++;
      }
      continue;
    }
    if (outcome === "passed" && now === "failed") regressions.push(id);
    if (outcome === "failed" && now === "passed") fixed.push(id);
    if (outcome === "failed" && now === "failed" && !isLoadFailure(id)) stillFailing.push(id);
  }
  const newFailures = [...afterTests]
    .filter(([id, o]) => o === "failed" && !beforeTests.has(id) && isLoadFailure(id))
    .map(([id]) => id);
  regressions.push(...newFailures);
  const counted = { before: countRun(before)!.ran, after: countRun(after)?.ran ?? 0 };
  const whyAfter = whyNotCounted(after);
  const status: ValidationStatus =
    regressions.length > 0 ? "regressions" : green(after) ? "passed" : "no-regressions";
  let summary: string;
  if (status === "regressions") {
    const gone =
      vanished > 0 && whyAfter !== null
        ? `; after the patch ${whyAfter}, so ${plural(vanished, "test")} that ran before no longer ${vanished === 1 ? "runs" : "run"}`
        : "";
    summary = `${plural(regressions.length, "regression")}, tests that passed before the patch and fail after or ran before and no longer run: ${listed(regressions)}${gone}`;
  } else {
    summary = `${plural(counted.before, "test")} ran before the patch and ${counted.after} after: ${after.passed} passed, ${after.failed} failed after the patch (before: ${before.passed} passed, ${before.failed} failed); no regressions${fixed.length > 0 ? `; ${fixed.length} fixed` : ""}${stillFailing.length > 0 ? `; ${stillFailing.length} still failing` : ""}`;
  }
  return {
    ...base,
    status,
    regressions,
    fixed,
    ...(stillFailing.length > 0 ? { stillFailing } : {}),
    counted,
    perTest: true,
    summary,
  };
}

/**
 * Whether the tests show the patch fixing something: tests ran and were counted on both trees, nothing
 * regressed, and a test that failed before passes after. A suite that passes before and after shows that
 * nothing broke, not that the bug is gone; an exit code alone shows neither.
 */
export function showsFix(v: ValidationResult): boolean {
  if (v.status !== "passed" && v.status !== "no-regressions") return false;
  return v.fixed.length > 0;
}

/** Whether the tests ran, were counted on both trees and show no regression (the only "pass"). */
export function countedClean(v: ValidationResult): boolean {
  return v.status === "passed" || v.status === "no-regressions";
}

/** Says in `result` which test configuration the patch changed and was put back before the tests ran. */
export function addRestored(result: ValidationResult, run: TestRun | null): void {
  if (run?.restored && run.restored.length > 0) {
    result.summary += `; the patch changed test configuration, which was put back as the unpatched tree has it before the tests ran: ${run.restored.join(", ")}`;
  }
}

/** Unpatched results cut by a limit judge nothing: the comparison becomes an error that says so. */
export function baselineLimit(result: ValidationResult, before: TestRun | null): void {
  if (before && before.exec.limit !== null) {
    result.status = "error";
    result.summary = `the tests hit the ${before.exec.limit} limit before any patch; validation is not meaningful (${result.summary})`;
  }
}
