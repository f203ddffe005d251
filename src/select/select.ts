import { PATCH_STATUS_ORDER } from "../patch/index.ts";
import type { ValidationStatus } from "../validate/index.ts";

/** The patch engine's statuses in order, worst first; an unknown status ranks lowest. */
export const STATUS_ORDER: readonly string[] = PATCH_STATUS_ORDER;

/** What selection reads of a candidate's test runs (a `ValidationResult` is one). */
export interface ValidationEvidence {
  status: ValidationStatus;
  regressions: readonly string[];
  /** The run after the patch, when the suite ran (more passing tests break a tie). */
  after?: { passed: number } | null;
}

/** One candidate patch of a run, as selection sees it. */
export interface Candidate {
  id: string;
  status: string;
  /** The reviewer's patch verdict: true = yes, false = no, null = not reviewed. */
  reviewApproved: boolean | null;
  /** The reproducer passed after this patch (null when there is no reproducer). */
  reproducerPasses?: boolean | null;
  validation: ValidationEvidence | null;
}

export interface Selection {
  winner: Candidate | null;
  /** Why the winner won, in words for the report. */
  reason: string;
  ranking: { id: string; tier: number; why: string }[];
}

export function statusRank(status: string): number {
  return STATUS_ORDER.indexOf(status);
}

const regressionFree = (c: Candidate): boolean =>
  c.validation !== null &&
  (c.validation.status === "passed" ||
    c.validation.status === "no-regressions" ||
    c.validation.status === "no-tests" ||
    // Tests that could not run show no regression either: such a patch may be chosen, never "fixed".
    c.validation.status === "could-not-run");

/**
 * Picks the candidate to report: reviewer-approved and regression-free first, then regression-free, then
 * the best patch status. Ties go to the reproducer passing, more passing tests, then the earliest. A
 * regression-free patch that the reviewer rejected and whose reproducer still fails drops to the last tier
 * when another patch was approved and passes the reproducer (its failing tests are named in the report).
 * Only applicable patches can win the first two tiers.
 */
export function selectCandidate(candidates: readonly Candidate[]): Selection {
  const tierOf = (c: Candidate): { tier: number; why: string } => {
    const applicable = c.status === "APPLICABLE_PATCH";
    const vs = c.validation?.status ?? "not validated";
    const noTests = c.validation?.status === "no-tests";
    if (applicable && c.reviewApproved === true && regressionFree(c)) {
      return {
        tier: 1,
        why: `approved by the reviewer and regression-free${noTests ? " (no test suite)" : ` (tests: ${vs})`}`,
      };
    }
    // A patch the reviewer rejected whose reproducer still fails never wins over one the reviewer approved
    // whose reproducer passes, whatever the tests say (a test may pin the behaviour the issue changes).
    const judgedBetter = (o: Candidate): boolean =>
      o.status === "APPLICABLE_PATCH" && o.reviewApproved === true && o.reproducerPasses === true;
    const rejectedAndFailing = c.reviewApproved === false && c.reproducerPasses === false;
    if (applicable && regressionFree(c) && rejectedAndFailing && candidates.some(judgedBetter))
      return {
        tier: 3,
        why: `regression-free (tests: ${vs}), but rejected by the reviewer and the reproducer still fails`,
      };
    if (applicable && regressionFree(c)) {
      const review = c.reviewApproved === false ? "rejected by the reviewer" : "not reviewed";
      return {
        tier: 2,
        why: `regression-free${noTests ? " (no test suite)" : ` (tests: ${vs})`}, ${review}`,
      };
    }
    const problem =
      c.validation?.status === "regressions"
        ? `regressions: ${c.validation.regressions.slice(0, 3).join(", ")}`
        : applicable
          ? `tests: ${vs}`
          : "not applicable";
    const judged = judgedBetter(c) ? "approved by the reviewer, the reproducer passes; " : "";
    return { tier: 3, why: `${judged}status ${c.status} (${problem})` };
  };
  const ranked = candidates.map((c, index) => ({ c, index, ...tierOf(c) }));
  ranked.sort(
    (a, b) =>
      a.tier - b.tier ||
      statusRank(b.c.status) - statusRank(a.c.status) ||
      Number(b.c.reproducerPasses === true) - Number(a.c.reproducerPasses === true) ||
      (b.c.validation?.after?.passed ?? 0) - (a.c.validation?.after?.passed ?? 0) ||
      a.index - b.index,
  );
  const first = ranked[0];
  const ranking = ranked.map((r) => ({ id: r.c.id, tier: r.tier, why: r.why }));
  if (!first || statusRank(first.c.status) <= 0) {
    return {
      winner: null,
      reason: candidates.length === 0 ? "no candidates" : "no candidate produced a patch",
      ranking,
    };
  }
  const others = ranked.length - 1;
  return {
    winner: first.c,
    reason: `candidate ${first.c.id} won: ${first.why}${others > 0 ? ` (over ${others} other candidate${others > 1 ? "s" : ""})` : ""}`,
    ranking,
  };
}
