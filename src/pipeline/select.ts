import type { PatchEngine } from "../agents/patch-agent.ts";
import type { PatchCandidate } from "../contract/pipeline.ts";

/**
 * Default selection (design stage 9): reviewer-approved and regression-free first, then regression-free,
 * then the best patch status; ties go to the earliest candidate. Says why.
 */
export function selectCandidate(
  candidates: PatchCandidate[],
  engine: Pick<PatchEngine, "compare">,
): { chosen: PatchCandidate | null; why: string } {
  if (candidates.length === 0) return { chosen: null, why: "no patch was written" };
  const applicable = candidates.filter((c) => c.applicable);
  const clean = (c: PatchCandidate) => !c.validation || c.validation.passed;
  const approved = applicable.find((c) => c.review?.approved && clean(c));
  if (approved)
    return { chosen: approved, why: `${approved.source}: approved by the reviewer, no regressions` };
  const validated = applicable.find((c) => c.validation?.passed);
  if (validated) return { chosen: validated, why: `${validated.source}: the repository's tests pass` };
  const regressionFree = applicable.find(clean);
  if (regressionFree) {
    return {
      chosen: regressionFree,
      why: `${regressionFree.source}: applies cleanly (no review or test evidence)`,
    };
  }
  if (applicable[0])
    return { chosen: applicable[0], why: `${applicable[0].source}: applies, but breaks tests` };
  let best = candidates[0]!;
  for (const c of candidates) if (engine.compare(c.result.status, best.result.status) > 0) best = c;
  return { chosen: best, why: `no attempt applied; the closest was ${best.source} (${best.result.status})` };
}
