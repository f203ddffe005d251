import type { FailureBlock, RunnerResults } from "../parts/results.ts";
import { RUNNERS } from "../registry.ts";

/** The first non-null answer of the runners, in the registry's order. */
function first<T>(ask: (r: RunnerResults) => T | null | undefined): T | null {
  for (const r of RUNNERS) {
    const a = ask(r);
    if (a !== null && a !== undefined) return a;
  }
  return null;
}

/** Each distinct failure report the runners describe (JUnit's three tools share one). */
const REPORTS = [...new Set(RUNNERS.map((r) => r.failureReport).filter((f) => f !== undefined))];

/**
 * What any runner knows of output, for a run whose runner is not known (or not asked): each answer is
 * the first runner's that has one, in the registry's order; a stopped run's file is the last any
 * runner's progress lines name.
 */
export const anyRunnerResults: RunnerResults & {
  readonly failureReports: readonly NonNullable<RunnerResults["failureReport"]>[];
} = {
  parseOutput: (output) =>
    first((r) => {
      const parsed = r.parseOutput(output);
      return parsed !== null && parsed.tests.size > 0 ? parsed : null;
    }),
  loadedName: (id) => first((r) => r.loadedName(id)),
  tellsStoppedFile: false,
  progressAt: (stdout, order) => Math.max(-1, ...RUNNERS.map((r) => r.progressAt?.(stdout, order) ?? -1)),
  failureBlock: (line): FailureBlock | null => first((r) => r.failureBlock?.(line)),
  missingRunner: (output) => first((r) => r.missingRunner?.(output)),
  failureReports: REPORTS,
};
