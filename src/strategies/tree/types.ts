/**
 * Tree search over patches (MCTS): the data it keeps and the ports it drives.
 *
 * The core in this folder is pure control logic. Everything that talks to a model, a patch engine or a
 * sandbox comes in through the ports below, so the search itself is tested with plain fakes and runs
 * unchanged on the real parts.
 */

/** What became of one node's patch. `root` is the unpatched program. */
export type NodeStatus =
  | "root"
  | "not-applicable"
  | "syntax-error"
  | "crash"
  | "timeout"
  | "failing"
  | "passed";

/** Where a node's reward came from. */
export type RewardSource =
  /** Fixed by the evaluation itself: −1 for a broken patch, 1 for a pass, 0 for the parent's failure. */
  | "rule"
  /** The reward model's 0–100 score. */
  | "model"
  /** No score: the budget ran out first, or the reward model's answer was unusable; the reward is 0. */
  | "unscored";

/** One execution as the search keeps it (output already cut to what a prompt can carry). */
export interface RunRecord {
  command: string;
  exitCode: number | null;
  /** Combined, truncated output. */
  output: string;
  passed: boolean;
  timedOut?: boolean;
}

export interface NodeEvaluation {
  status: NodeStatus;
  /** −1 (broken), 0..1 (reward model score / 100), or 1 (passed). */
  reward: number;
  rewardSource: RewardSource;
  /** The reward model's raw score 0–100, when it was asked. */
  score?: number;
  /** The reward model's one-line reason, when it gave one. */
  scoreReason?: string;
  /** The failure this patch leaves behind (reproducer/test output), as prompts show it. */
  failure: string;
  /** True when `failure` is the parent's failure again (then the reward is 0 without asking). */
  sameFailureAsParent?: boolean;
  /** The patch engine's or the check runner's message (why it did not apply, what crashed). */
  message?: string;
  reproducer?: RunRecord;
  tests?: RunRecord;
}

export interface TreeNode {
  id: number;
  parentId: number | null;
  depth: number;
  /** Unified diff of this node's program against the original (cumulative over its ancestors). "" at the root. */
  diff: string;
  /** Files the diff changes. */
  changedFiles: string[];
  /** The model's explanation before its code. */
  reflection: string;
  /** The model's full answer (patch blocks included), kept for the artifacts. */
  answer: string;
  evaluation: NodeEvaluation;
  visits: number;
  value: number;
  childIds: number[];
  /** How many times this node has been expanded. */
  expansions: number;
  /** Candidates for this node that repeated an earlier node and were not evaluated again. */
  duplicatesSkipped: number;
}

/** What the model proposes for one child. */
export interface Candidate {
  /** The full answer text (reflection + `<file>/<original>/<patched>` blocks). */
  answer: string;
  /** The explanation before the code (may be empty). */
  reflection: string;
}

/** What the expander sees when it is asked for children of `node`. */
export interface ExpansionRequest {
  node: TreeNode;
  /** From the root down to the node's parent. */
  ancestors: TreeNode[];
  /** Children the node already has (a second expansion should try something else). */
  children: TreeNode[];
  /** How many candidates to ask for (`branch`). */
  count: number;
}

export interface Expander {
  /** Ask the model for up to `count` candidates. May return fewer; may throw (budget, model error). */
  expand(request: ExpansionRequest): Promise<Candidate[]>;
}

/** The result of applying a candidate on top of its parent's program, without running anything. */
export type ApplyResult =
  | { ok: true; diff: string; changedFiles: string[] }
  | { ok: false; status: "not-applicable" | "syntax-error"; message: string };

/** The result of running the checks (reproducer + regression tests) on an applied candidate. */
export type CheckResult =
  | { outcome: "passed"; reproducer?: RunRecord; tests?: RunRecord }
  | { outcome: "failed"; failure: string; reproducer?: RunRecord; tests?: RunRecord }
  | { outcome: "crash"; message: string; reproducer?: RunRecord; tests?: RunRecord }
  | { outcome: "timeout"; message: string; reproducer?: RunRecord; tests?: RunRecord };

export interface RewardRequest {
  parent: TreeNode;
  diff: string;
  reflection: string;
  failure: string;
}

export interface Reward {
  /** 0–100. */
  score: number;
  reason: string;
  /** The reward model gave no usable score: the attempt stays unscored (reward 0) with `reason`. */
  unusable?: boolean;
}

/** Applies and checks candidates; the reward model scores the ones that neither break nor pass. */
export interface Evaluator {
  apply(candidate: Candidate, parent: TreeNode): Promise<ApplyResult>;
  check(applied: { diff: string; changedFiles: string[] }, parent: TreeNode): Promise<CheckResult>;
  reward(request: RewardRequest): Promise<Reward>;
}

/** The run's model budget as the search sees it. */
export interface BudgetGate {
  /** True once no further model call may be made. */
  exhausted(): boolean;
  /** A line for the report ("$0.50 of $0.50 spent", "40 of 40 calls"). */
  describe(): string;
}

export type StopReason = "solved" | "max-rollouts" | "budget" | "exhausted" | "aborted" | "error";

export interface TreeSearchStats {
  rollouts: number;
  expansions: number;
  /** Candidates the model returned (some are never looked at once `maxExpansion` were kept). */
  candidates: number;
  duplicates: number;
  notApplicable: number;
  checks: number;
  rewardCalls: number;
}
