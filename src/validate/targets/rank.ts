import type { SelectedTest } from "./types.ts";

/**
 * How able a selected test is to show a regression of the change, best first. A test that only failed
 * before the patch comes last: it fails already, so it cannot show a regression (only a fix); with
 * another reason it ranks by that reason.
 */
export const TIERS = [
  "named after a changed module",
  "named by the reproducer or the model",
  "imports a changed module directly, is in a changed package, or is named after the package of one",
  "imports a changed module through a package or a test helper",
  "failed before the patch (and nothing else)",
] as const;

/** The tier (index into TIERS) of a selected test. */
export function tierOf(t: SelectedTest): number {
  const r = t.reasons;
  if (r.includes("named-after-changed") && t.named !== "package") return 0;
  if (r.includes("named-by-reproducer") || r.includes("named-by-model")) return 1;
  if (
    r.includes("same-package") ||
    r.includes("named-after-changed") ||
    (r.includes("imports-changed") && (t.depth ?? 0) === 0)
  )
    return 2;
  if (r.includes("imports-changed")) return 3;
  return 4;
}

export interface RankedTest {
  test: SelectedTest;
  tier: number;
  /** Estimated time of its run on one tree (ms). */
  estimateMs: number;
}

/** Estimates in the same size class (each twice the one before, from a quarter second) count as equal. */
const sizeClass = (ms: number): number => Math.max(0, Math.floor(Math.log2(Math.max(1, ms) / 250)));

/**
 * The selected tests in the order they run: by tier, then by how far their import of the change is, then
 * the cheaper first (known times from the job's unpatched runs, else estimates; by size class, so that
 * small differences of measured time do not reorder them), then by name.
 */
export function rankTests(
  tests: readonly SelectedTest[],
  estimate: (t: SelectedTest) => number,
): RankedTest[] {
  return tests
    .map((test) => ({ test, tier: tierOf(test), estimateMs: estimate(test) }))
    .sort(
      (a, b) =>
        a.tier - b.tier ||
        (a.test.depth ?? 0) - (b.test.depth ?? 0) ||
        sizeClass(a.estimateMs) - sizeClass(b.estimateMs) ||
        (a.test.target < b.test.target ? -1 : a.test.target > b.test.target ? 1 : 0),
    );
}
