import { anyRunnerResults } from "../runners/index.ts";
import type { TestRun } from "./run-tests.ts";

/**
 * What a run of the repository's tests can stand for as evidence. A run is evidence only when its tests
 * ran and were counted one by one: an exit code alone, nothing collected, every module failing to load
 * or every test skipped shows nothing about the patch, and a run whose report was tampered with shows
 * less than nothing. Pure functions over a run's parsed results.
 */

export { FILE_ENTRY_NAME, fileEntryId } from "../runners/shared/results-outcomes.ts";

/**
 * A result id that stands for a file, module, package or class as a whole, not for a test (a file
 * that could not be collected or imported, a package that failed to build, a test file that ran no test
 * of its own, a class that could not be loaded): whichever runner's entry it is, as that runner tells
 * (`RunnerResults.loadedName`). Such an entry that failed is a load
 * failure; one that passed (a file that ran no test and exited 0) is not a test that ran either.
 */
export const isLoadFailure = (id: string): boolean => anyRunnerResults.loadedName(id) !== null;

/** The file, module, package or class a load failure stands for, as a person names it. */
export const loadedName = (id: string): string => anyRunnerResults.loadedName(id) ?? id;

/** How many of a run's results are tests that ran (passed or failed), and how many are load failures. */
export interface RunCount {
  /** Tests that ran: passed or failed, load failures not included. */
  ran: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Files, modules, packages or classes that failed to load (entries for them that failed). */
  loadFailures: string[];
}

export function countRun(run: TestRun): RunCount | null {
  if (run.tests === null) return null;
  const c: RunCount = { ran: 0, passed: 0, failed: 0, skipped: 0, loadFailures: [] };
  for (const [id, o] of run.tests) {
    if (isLoadFailure(id)) {
      // An entry for a file as a whole that passed (node --test: the file ran no test and exited 0)
      // is neither a test nor a failure to load.
      if (o === "failed") c.loadFailures.push(id);
      continue;
    }
    if (o === "passed") c.passed++;
    else if (o === "failed") c.failed++;
    else c.skipped++;
    if (o !== "skipped") c.ran++;
  }
  return c;
}

const exitText = (run: TestRun): string =>
  run.exec.limit !== null
    ? `it was stopped by the ${run.exec.limit} limit`
    : run.exec.exitCode === null
      ? `it was killed${run.exec.signal ? ` by ${run.exec.signal}` : ""}`
      : `it exited with code ${run.exec.exitCode}`;

const firstOf = (ids: readonly string[]): string =>
  ids.length === 0
    ? ""
    : `: ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ` and ${ids.length - 3} more` : ""}`;

/**
 * Why a run's tests cannot be evidence (in words that follow "tests could not be run: "), or null when
 * tests ran and were counted.
 */
export function whyNotCounted(run: TestRun): string | null {
  const c = countRun(run);
  if (c === null || run.perTestUnavailable) {
    // A quiet runner whose report options could not be added names at most its failures: no test can
    // be shown to pass.
    const why = run.perTestUnavailable ?? "its output named no single test";
    return `only an exit code: ${why}, so single tests cannot be judged (${exitText(run)})`;
  }
  if (c.ran > 0) return null;
  if (c.loadFailures.length > 0) {
    return `every test module failed to load (${c.loadFailures.length}${firstOf(c.loadFailures.map(loadedName))})`;
  }
  if (c.skipped > 0) return `every test was skipped (${c.skipped}); none ran`;
  return `the runner collected no test (${exitText(run)})`;
}

/** Why a run's report cannot be trusted (its canaries were lost or misreported), or null. */
export function tamperOf(run: TestRun | null): string | null {
  return run?.integrity?.state === "tampered" ? run.integrity.detail : null;
}

/** Why a run's report could not be checked for tampering, or null when it was checked (or never asked). */
export function unverifiedOf(run: TestRun | null): string | null {
  return run?.integrity?.state === "unverified" ? run.integrity.detail : null;
}
