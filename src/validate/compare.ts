import { mergeIntegrity } from "./canaries.ts";
import type { TestRun } from "./run-tests.ts";
import type { TestOutcome } from "./parsers.ts";

export type ValidationStatus =
  /** The suite passes after the patch (and nothing that passed before fails). */
  | "passed"
  /** Nothing that passed before fails now, but the suite is not green (it was not green before either). */
  | "no-regressions"
  | "regressions"
  /** No test command for this repository. */
  | "no-tests"
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
     * regression was already shown; unpatched-too-slow: its unpatched run did not finish within its
     * limit. Absent: ran (a record from before budgets). */
    run?: "ran" | "over-budget" | "after-regression" | "unpatched-too-slow" | undefined;
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

/** Compares the baseline run with the run after a patch; pure. */
export function compareRuns(before: TestRun | null, after: TestRun | null): ValidationResult {
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
  const base = {
    command: after.command,
    before: summarize(before),
    after: summarize(after),
  };
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
  if (after.tests && after.tests.size === 0 && after.passed + after.failed === 0 && green(after)) {
    // A green run of nothing is no evidence: say so rather than call the patch validated.
    return {
      ...base,
      status: "no-tests",
      regressions: [],
      fixed: [],
      perTest: true,
      summary: `the test command \`${after.command}\` ran no tests after the patch: the patch was not validated by the repository's tests`,
    };
  }
  // A failing run after the patch whose output names no test at all (the runner stopped before its
  // tests: a test file no longer loads) is compared as a run of none: every test that passed before
  // no longer runs.
  const afterTests = after.tests ?? (before.tests && !green(after) ? new Map<string, TestOutcome>() : null);
  if (before.tests && afterTests) {
    const regressions: string[] = [];
    const fixed: string[] = [];
    for (const [id, outcome] of before.tests) {
      const now = afterTests.get(id);
      if (outcome === "passed" && now === "failed") regressions.push(id);
      else if (outcome === "passed" && now === undefined && !green(after))
        regressions.push(`${id} (no longer runs)`);
      if (outcome === "failed" && now === "passed") fixed.push(id);
    }
    const newFailures = [...afterTests]
      .filter(([id, o]) => o === "failed" && !before.tests!.has(id))
      .map(([id]) => id);
    regressions.push(...newFailures.filter((id) => id.endsWith("<collection>") || id.endsWith("<package>")));
    const status: ValidationStatus =
      regressions.length > 0 ? "regressions" : green(after) ? "passed" : "no-regressions";
    return {
      ...base,
      status,
      regressions,
      fixed,
      perTest: true,
      summary:
        status === "regressions"
          ? `${regressions.length} test(s) passed before the patch and fail after: ${regressions.slice(0, 5).join(", ")}`
          : `${after.passed} passed, ${after.failed} failed after the patch (before: ${before.passed} passed, ${before.failed} failed); no regressions${fixed.length > 0 ? `; ${fixed.length} fixed` : ""}`,
    };
  }
  // Exit codes only.
  if (green(before) && !green(after)) {
    return {
      ...base,
      status: "regressions",
      regressions: ["(test suite: passed before the patch, fails after)"],
      fixed: [],
      perTest: false,
      summary: `the test suite passed before the patch and fails after (exit ${after.exec.exitCode}); no per-test results`,
    };
  }
  return {
    ...base,
    status: green(after) ? "passed" : "no-regressions",
    regressions: [],
    fixed: [],
    perTest: false,
    summary: green(after)
      ? "the test suite passes after the patch"
      : `the test suite failed before and after the patch (exit ${before.exec.exitCode} → ${after.exec.exitCode}); no per-test results, so no regression can be named`,
  };
}

/**
 * Whether the tests show the patch fixing something: a test that failed before passes after, or a
 * suite that failed before passes after. A suite that passes before and after shows that nothing broke,
 * not that the bug is gone.
 */
export function showsFix(v: ValidationResult): boolean {
  if (v.status !== "passed" && v.status !== "no-regressions") return false;
  if (v.fixed.length > 0) return true;
  const green = (r: RunSummary | null): boolean => r !== null && r.exitCode === 0 && r.limit === null;
  return v.before !== null && !green(v.before) && green(v.after);
}

/** The runs of one tree put together (several batches of tests): every test, the time summed. */
export function mergeRuns(runs: readonly TestRun[]): TestRun | null {
  if (runs.length <= 1) return runs[0] ?? null;
  const perTest = runs.every((r) => r.tests !== null);
  const tests = perTest ? new Map<string, "passed" | "failed" | "skipped">() : null;
  for (const r of runs)
    for (const [id, o] of r.tests ?? []) if (tests?.get(id) !== "failed") tests?.set(id, o);
  const first = runs[0]!;
  const failedRun = runs.find((r) => r.exec.exitCode !== 0);
  const limited = runs.find((r) => r.exec.limit !== null);
  return {
    command: runs.map((r) => r.command).join(" + "),
    exec: {
      ...first.exec,
      exitCode: failedRun ? failedRun.exec.exitCode : 0,
      signal: (limited ?? failedRun ?? first).exec.signal,
      limit: limited?.exec.limit ?? null,
      truncated: runs.some((r) => r.exec.truncated),
      stdout: runs.map((r) => r.exec.stdout).join("\n"),
      stderr: runs.map((r) => r.exec.stderr).join("\n"),
      durationMs: runs.reduce((a, r) => a + r.exec.durationMs, 0),
    },
    tests,
    parser: first.parser,
    passed: runs.reduce((a, r) => a + r.passed, 0),
    failed: runs.reduce((a, r) => a + r.failed, 0),
    skipped: runs.reduce((a, r) => a + r.skipped, 0),
    restored: [...new Set(runs.flatMap((r) => r.restored ?? []))],
    notes: runs.flatMap((r) => r.notes ?? []),
    ...mergeIntegrity(runs),
  };
}

const addSummaries = (a: RunSummary | null, b: RunSummary | null): RunSummary | null => {
  if (!a || !b) return a ?? b;
  const notes = [...(a.notes ?? []), ...(b.notes ?? [])];
  return {
    exitCode: a.exitCode !== 0 ? a.exitCode : b.exitCode,
    limit: a.limit ?? b.limit,
    passed: a.passed + b.passed,
    failed: a.failed + b.failed,
    skipped: a.skipped + b.skipped,
    parser: a.parser,
    durationMs: a.durationMs + b.durationMs,
    ...(notes.length > 0 ? { notes } : {}),
  };
};

/**
 * The comparisons of several batches of tests (each against the unpatched results of the same tests)
 * as one: a regression in any is a regression; an error in any (with no regression) is an error.
 */
export function mergeResults(results: readonly ValidationResult[]): ValidationResult {
  if (results.length === 1) return results[0]!;
  if (results.length === 0) return compareRuns(null, null);
  const has = (s: ValidationStatus) => results.some((r) => r.status === s);
  const status: ValidationStatus = has("regressions")
    ? "regressions"
    : has("error")
      ? "error"
      : results.every((r) => r.status === "passed")
        ? "passed"
        : results.every((r) => r.status === "no-tests")
          ? "no-tests"
          : "no-regressions";
  const regressions = results.flatMap((r) => r.regressions);
  const fixed = results.flatMap((r) => r.fixed);
  const before = results.map((r) => r.before).reduce(addSummaries, null);
  const after = results.map((r) => r.after).reduce(addSummaries, null);
  const notable = results.filter((r) => r.status === status);
  const summary =
    status === "passed" || status === "no-regressions"
      ? `${after?.passed ?? 0} passed, ${after?.failed ?? 0} failed after the patch (before: ${before?.passed ?? 0} passed, ${before?.failed ?? 0} failed); no regressions${fixed.length > 0 ? `; ${fixed.length} fixed` : ""}`
      : notable.map((r) => r.summary).join("; ");
  return {
    status,
    command:
      results
        .map((r) => r.command)
        .filter(Boolean)
        .join(" + ") || null,
    regressions,
    fixed,
    perTest: results.every((r) => r.perTest),
    before,
    after,
    summary,
  };
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
