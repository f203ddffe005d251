import { patchKey } from "../../contract/tried-patches.ts";
import type { BudgetGate, Candidate, Evaluator, NodeEvaluation, TreeNode } from "./types.ts";

/**
 * Failure text with the noise that differs between two runs of the same failure removed: durations,
 * memory addresses, temporary paths, process ids, timestamps and whitespace runs. Two failures are "the
 * same" when their normalised forms are equal.
 */
export function normalizeFailure(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/0x[0-9a-f]{4,}/gi, "0x?")
    .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?\b/g, "<time>")
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b/g, "<dur>")
    .replace(/(?:\/tmp|\/var\/folders|\/private\/var)\/[^\s:'")]+/g, "<tmp>")
    .replace(/\bpid[ =:]\s*\d+/gi, "pid ?")
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n+ */g, "\n")
    .trim();
}

export function sameFailure(a: string, b: string): boolean {
  return normalizeFailure(a) === normalizeFailure(b);
}

/** A key under which identical patches meet (the job's one notion of "the same patch"). */
export const diffKey = (diff: string): string => patchKey(diff);

export interface EvaluationOutcome {
  evaluation: NodeEvaluation;
  /** True when the reward model was asked. */
  rewardAsked: boolean;
}

/**
 * Runs the checks on an applied candidate and turns the result into a reward:
 * crash/timeout → −1; all checks pass → 1 (done); the parent's failure again → 0 without asking;
 * otherwise the reward model's 0–100 score / 100 (or 0, marked unscored, when the budget is spent).
 */
export async function evaluateApplied(
  evaluator: Evaluator,
  budget: BudgetGate,
  parent: TreeNode,
  candidate: Candidate,
  applied: { diff: string; changedFiles: string[] },
): Promise<EvaluationOutcome> {
  const check = await evaluator.check(applied, parent);
  const runs: Pick<NodeEvaluation, "reproducer" | "tests"> = {};
  if (check.reproducer) runs.reproducer = check.reproducer;
  if (check.tests) runs.tests = check.tests;
  if (check.outcome === "crash" || check.outcome === "timeout") {
    return {
      evaluation: {
        status: check.outcome,
        reward: -1,
        rewardSource: "rule",
        failure: check.message,
        message: check.message,
        ...runs,
      },
      rewardAsked: false,
    };
  }
  if (check.outcome === "passed") {
    return {
      evaluation: { status: "passed", reward: 1, rewardSource: "rule", failure: "", ...runs },
      rewardAsked: false,
    };
  }
  if (sameFailure(check.failure, parent.evaluation.failure)) {
    return {
      evaluation: {
        status: "failing",
        reward: 0,
        rewardSource: "rule",
        failure: check.failure,
        sameFailureAsParent: true,
        ...runs,
      },
      rewardAsked: false,
    };
  }
  if (budget.exhausted()) {
    return {
      evaluation: {
        status: "failing",
        reward: 0,
        rewardSource: "unscored",
        scoreReason: "the model budget was spent",
        failure: check.failure,
        ...runs,
      },
      rewardAsked: false,
    };
  }
  let reward: Awaited<ReturnType<Evaluator["reward"]>>;
  try {
    reward = await evaluator.reward({
      parent,
      diff: applied.diff,
      reflection: candidate.reflection,
      failure: check.failure,
    });
  } catch (err) {
    // The budget ran out during the call: keep the checked node, unscored, and let the search stop.
    if (!budget.exhausted()) throw err;
    return {
      evaluation: {
        status: "failing",
        reward: 0,
        rewardSource: "unscored",
        scoreReason: "the model budget was spent",
        failure: check.failure,
        ...runs,
      },
      rewardAsked: true,
    };
  }
  if (reward.unusable) {
    return {
      evaluation: {
        status: "failing",
        reward: 0,
        rewardSource: "unscored",
        scoreReason: reward.reason,
        failure: check.failure,
        ...runs,
      },
      rewardAsked: true,
    };
  }
  const score = Math.min(100, Math.max(0, Number.isFinite(reward.score) ? reward.score : 0));
  const evaluation: NodeEvaluation = {
    status: "failing",
    reward: score / 100,
    rewardSource: "model",
    score,
    failure: check.failure,
    ...runs,
  };
  if (reward.reason) evaluation.scoreReason = reward.reason;
  return { evaluation, rewardAsked: true };
}
