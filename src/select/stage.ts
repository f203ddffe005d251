import type { PatchCandidate, ValidationOutcome } from "../contract/pipeline.ts";
import { compareRuns } from "../validate/index.ts";
import { type Candidate, type Selection, selectCandidate, type ValidationEvidence } from "./select.ts";

export interface SelectInput {
  /** The patch engine's order of statuses (> 0: the first is closer to applying). */
  compare: (a: string, b: string) => number;
  /** The repository has no test command: an applicable patch counts as regression-free. */
  noTests: boolean;
  /** Whether the reproducer passed after this candidate (null: no reproducer ran on it). */
  reproducerPasses?: (candidate: PatchCandidate) => boolean | null;
  /** The full test runs of a validated candidate, when the validation stage kept them. */
  testRuns?: (candidate: PatchCandidate) => ValidationEvidence | null;
}

export interface SelectOutcome {
  chosen: PatchCandidate | null;
  why: string;
  selection: Selection;
}

/** A validation outcome as selection reads it, when the full test runs are not at hand. */
function evidenceOf(v: ValidationOutcome): ValidationEvidence {
  if (v.data) return { status: v.data.status, regressions: v.regressions };
  return {
    status: v.passed
      ? v.showsFix
        ? "passed"
        : "no-regressions"
      : v.regressions.length > 0
        ? "regressions"
        : "error",
    regressions: v.regressions,
  };
}

/**
 * The select stage (design stage 9): ranks the run's candidates (reviewer-approved and regression-free,
 * then regression-free, then the best status; ties to the reproducer passing, more passing tests, then
 * the earliest) and says why. When no candidate applies, the closest attempt is kept for the report.
 */
export function selectStage(candidates: readonly PatchCandidate[], input: SelectInput): SelectOutcome {
  const mapped: Candidate[] = candidates.map((c) => {
    const full = input.testRuns?.(c) ?? null;
    const validation: ValidationEvidence | null =
      full ??
      (c.validation
        ? evidenceOf(c.validation)
        : input.noTests && c.applicable
          ? compareRuns(null, null)
          : null);
    return {
      id: c.id,
      status: c.result.status,
      // A patch the scan found code aimed at the checks in ranks as one the reviewer turned down.
      reviewApproved: c.scan?.findings.length ? false : c.review ? c.review.approved : null,
      reproducerPasses: input.reproducerPasses?.(c) ?? null,
      validation,
    };
  });
  const selection = selectCandidate(mapped);
  const winner = selection.winner ? (candidates.find((c) => c.id === selection.winner!.id) ?? null) : null;
  if (winner?.applicable) {
    // Said with the candidate's source (which strategy and attempt), as the report names it.
    const tier = selection.ranking.find((r) => r.id === winner.id)?.why ?? selection.reason;
    const others = candidates.length - 1;
    const over = others > 0 ? ` (over ${others} other candidate${others > 1 ? "s" : ""})` : "";
    return { chosen: winner, why: `${winner.source}: ${tier}${over}`, selection };
  }
  if (candidates.length === 0) return { chosen: null, why: "no patch was written", selection };
  // Nothing applicable: keep the closest attempt for the report.
  let best = winner ?? candidates[0]!;
  for (const c of candidates) if (input.compare(c.result.status, best.result.status) > 0) best = c;
  return {
    chosen: best,
    why: `no attempt applied; the closest was ${best.source} (${best.result.status})`,
    selection,
  };
}
