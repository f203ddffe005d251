import { availableParallelism, loadavg } from "node:os";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import { resultsOf } from "./output.ts";
import type { TestRun } from "./run-tests.ts";
import type { RankedTest } from "./targets/rank.ts";

/**
 * How the related tests share a candidate's budget, so that one slow, hanging or network-bound file
 * cannot hold the others' verdicts hostage:
 * - a test file whose time on the unpatched tree is not known yet may take at most its allowance there
 *   (a quarter of the budget, never less than the start-up grace); a batch of such files gets one
 *   allowance beside their estimates, and when it is stopped the files it finished are judged, the file
 *   it was in runs again alone and the ones it did not reach go back to the queue;
 * - a file stopped alone at its allowance could not be judged here (timed out before the patch) and is
 *   not run on the patched tree; a file whose tests failed only for want of the network neither;
 * - a file whose cost is large (over its allowance, or already stopped once) runs alone, after every
 *   cheap one of the related tests.
 */

/** The rank tier of tests that only failed before the patch (see targets/rank.ts). */
export const FAILED_ONLY_TIER = 4;

/** The share of the related-test budget one file of unknown cost may take on the unpatched tree. */
export const FILE_ALLOWANCE_SHARE = 0.25;

/**
 * The time one test file may take on the unpatched tree before it counts as timed out (ms): a quarter
 * of the budget, never less than the start-up grace. None when that is more than half the budget (a
 * budget under twice the grace): the budget itself is then the only limit.
 */
export function fileAllowanceMs(budgetMs: number | null, graceMs: number, load = 1): number | null {
  if (budgetMs === null) return null;
  const ms = Math.max(graceMs, budgetMs * FILE_ALLOWANCE_SHARE);
  return ms * 2 > budgetMs ? null : Math.min(budgetMs / 2, ms * Math.max(1, load));
}

/**
 * The allowance of one file for `runner` (see fileAllowanceMs), null when the runner has none: only a
 * runner whose output tells which test file a stopped run was in (`tellsStoppedFile`) gives each file
 * its own allowance. Others (compiling first, running files side by side) keep the budget as their only
 * limit.
 */
export const allowanceFor = (
  runner: string | null | undefined,
  budgetMs: number | null,
  graceMs: number,
): number | null =>
  resultsOf(runner).tellsStoppedFile ? fileAllowanceMs(budgetMs, graceMs, machineLoad()) : null;

/** How many times over its cores the machine is loaded (1 at most load it can take side by side). */
export const machineLoad = (): number => Math.max(1, loadavg()[0]! / Math.max(1, availableParallelism()));

/** Whether a target is costly: it runs alone, after the cheap ones. */
export function isHeavy(
  store: PristineTests,
  target: string,
  estimateMs: number,
  allowance: number | null,
): boolean {
  if (store.times.atLeast(target) !== undefined) return true;
  return allowance !== null && estimateMs > allowance;
}

/**
 * The pending tests, cheap ones first (each group in rank order); tests that only failed before the
 * patch stay last, as ranked.
 */
export function cheapFirst(
  pending: RankedTest[],
  heavy: (r: RankedTest) => boolean,
  failedOnlyTier: number,
): RankedTest[] {
  const last = (r: RankedTest) => r.tier === failedOnlyTier;
  const light = pending.filter((r) => !last(r) && !heavy(r));
  const costly = pending.filter((r) => !last(r) && heavy(r));
  return [...light, ...costly, ...pending.filter(last)];
}

/**
 * The time limit of the unpatched run of a batch whose `missing` targets have no unpatched result yet:
 * one file's allowance beside the estimates of the others that were never stopped; a file alone has its
 * allowance, whatever its guess.
 */
export function unpatchedLimitMs(
  store: PristineTests,
  missing: readonly string[],
  estimate: (t: string) => number,
  allowance: number,
): number {
  const est = missing.filter((t) => store.times.atLeast(t) === undefined).map(estimate);
  // One file has the allowance (the costliest, by its guess); the others their estimates beside it.
  const rest = est.reduce((a, x) => a + x, 0) - Math.max(0, ...est);
  return Math.round(allowance + rest);
}

/**
 * A copy of `run` without the results of `drop` (targets): what a comparison of the other targets
 * reads. Its exit code is 0 when it was 1 only for failures that were dropped; everything else (limits,
 * tamper checks, notes) is kept.
 */
export function withoutTargets(run: TestRun, drop: ReadonlySet<string>, ownerOf: OwnerOf): TestRun {
  if (!run.tests || drop.size === 0) return run;
  const dropped = (id: string) => {
    if (drop.has(id)) return true;
    const o = ownerOf(id, run.files?.get(id));
    return o !== null && drop.has(o);
  };
  const tests = new Map([...run.tests].filter(([id]) => !dropped(id)));
  const files = run.files ? new Map([...run.files].filter(([id]) => !dropped(id))) : undefined;
  const count = (o: string) => [...tests.values()].filter((v) => v === o).length;
  const failed = count("failed");
  const exitCode = run.exec.exitCode === 1 && failed === 0 && run.failed > 0 ? 0 : run.exec.exitCode;
  return {
    ...run,
    exec: { ...run.exec, exitCode },
    tests,
    ...(files ? { files } : {}),
    passed: count("passed"),
    failed,
    skipped: count("skipped"),
  };
}
