/**
 * The pipeline's one map from failures to outcomes: which errors a stage must let through (they end the
 * run) and which it may turn into its own "the stage failed" result, and how the error that stopped a
 * run becomes its status and reason. Errors are told apart by class (`instanceof`), never by name.
 */
import {
  BudgetExceeded,
  ContextLengthExceeded,
  ModelRequestRejected,
  ModelUnavailable,
  NonJsonAnswer,
} from "../model/errors.ts";
import { type EvidenceVerdict, judgeEvidence, loadingTests, reproducerShowsFix } from "./fix-evidence.ts";
import type { FixResult, FixState, PatchCandidate } from "./pipeline.ts";

/** The run was interrupted (Ctrl-C, cancellation) before it finished; `stage`: the stage it stopped in. */
export class RunInterrupted extends Error {
  readonly stage: string | null;
  constructor(options?: { cause?: unknown; stage?: string | null }) {
    super(
      options?.stage
        ? `the run was interrupted during the ${options.stage} stage`
        : "the run was interrupted",
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.name = "RunInterrupted";
    this.stage = options?.stage ?? null;
  }
}

/** How an error ends a run. */
export interface FailureRule {
  /** The stage that met it must not absorb it: the run stops. */
  stopsRun: boolean;
  /** The run ends as "error" (no applicable patch found before it counts for nothing less). */
  fatal: boolean;
  /** The words the result's reason carries. */
  reason: (error: Error) => string;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Most specific class first: `NonJsonAnswer` is a `ModelRequestRejected`, `UnusableAnswers` a
 * `BudgetExceeded`. An error matching no class is an internal error that a stage may absorb.
 */
const RULES: readonly (readonly [ErrorClass, FailureRule])[] = [
  [RunInterrupted, { stopsRun: true, fatal: true, reason: (e) => e.message }],
  [BudgetExceeded, { stopsRun: true, fatal: false, reason: (e) => `the run stopped: ${e.message}` }],
  // A prompt too long for one stage does not stop the others; when it reaches the top it stops the run.
  [ContextLengthExceeded, { stopsRun: false, fatal: false, reason: (e) => `the run stopped: ${e.message}` }],
  [
    ModelUnavailable,
    { stopsRun: true, fatal: true, reason: (e) => `the model endpoint is unavailable: ${e.message}` },
  ],
  [NonJsonAnswer, { stopsRun: true, fatal: true, reason: (e) => e.message }],
  [
    ModelRequestRejected,
    { stopsRun: true, fatal: true, reason: (e) => `the model endpoint refused the request: ${e.message}` },
  ],
];

const INTERNAL: FailureRule = {
  stopsRun: false,
  fatal: true,
  reason: (e) => `internal error: ${e.message}`,
};

/** The rule for an error (any thrown value). */
export function failureRule(error: unknown): FailureRule {
  for (const [cls, rule] of RULES) if (error instanceof cls) return rule;
  return INTERNAL;
}

/**
 * Whether a stage must rethrow this error rather than report its own failure: an interruption, a spent
 * budget, a model endpoint that is down or refuses every request.
 */
export function stopsRun(error: unknown): boolean {
  return failureRule(error).stopsRun;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Why the run ended without an applicable patch, from what the stages left behind. */
function noPatchReason(state: FixState): string {
  const s = state.search;
  const where = !s
    ? "the search did not finish"
    : s.status === "located"
      ? `the search located ${s.locations.length} code unit(s)`
      : s.status === "repeating"
        ? "the model kept repeating the same searches and named no bug location that resolved"
        : `the search reached its round limit (${s.rounds.length} rounds) without a bug location that resolved`;
  const n = state.candidates.length;
  const best = state.chosen ? `; best attempt: ${state.chosen.result.status}` : "";
  return `${where}; ${n} patch attempt(s), none applicable${best}`;
}

/**
 * Maps the end of a run (the chosen candidate and the error that stopped it, if any) to the result's
 * status and reason. This is the one place where failures become outcomes.
 */
export function decideOutcome(
  state: FixState,
  error: unknown,
): { status: FixResult["status"]; reason: string } {
  const c = state.chosen;
  const patched = c?.applicable === true;
  const rule = error ? failureRule(error) : null;
  const stopped = rule ? rule.reason(asError(error)) : null;
  if (patched) {
    // "fixed" needs evidence that ran and that the model did not write (fix-evidence.ts).
    const verdict = candidateVerdict(c);
    const base = verdict.fixed
      ? `fixed: ${state.chosenWhy}; it rests on ${verdict.restsOn}`
      : `patch applies: ${state.chosenWhy}; not "fixed": ${verdict.notFixed}`;
    return {
      status: verdict.fixed ? "fixed" : "patched",
      reason: stopped ? `${base} (then ${stopped})` : base,
    };
  }
  if (rule?.fatal && stopped) return { status: "error", reason: stopped };
  return { status: "no-patch", reason: stopped ?? noPatchReason(state) };
}

/** The evidence rule applied to one candidate (its review, its validation, its code change). */
export function candidateVerdict(c: PatchCandidate): EvidenceVerdict {
  const v = c.validation;
  const rep = c.review?.data?.reproducer;
  return judgeEvidence({
    codeChanged: c.codeChange?.changed,
    reviewApproved: c.review ? c.review.approved : undefined,
    reproducerFixed: reproducerShowsFix(rep?.before, rep?.after),
    reproducerBacks: rep?.evidence,
    loading: loadingTests(v?.data?.tests),
    validationStatus: v ? (v.data?.status ?? (v.passed ? "no-regressions" : "error")) : undefined,
    validationSummary: v?.summary,
    testsShowFix: v?.showsFix === true,
    testsFixed: v?.showsFix ? (v.data?.fixed ?? []) : [],
    stillFailingRelated: v?.data?.stillFailingRelated ?? [],
    related: v?.data?.related,
    patchFindings: c.scan?.findings,
  });
}
