import type { TreeSearchConfig } from "../../config/tree-search.ts";
import { diffKey, evaluateApplied } from "./evaluate.ts";
import {
  addChild,
  ancestorsOf,
  backPropagate,
  bestNode,
  childrenOf,
  createTree,
  type SearchTree,
  selectLeaf,
} from "./tree.ts";
import type {
  BudgetGate,
  Candidate,
  Evaluator,
  Expander,
  RunRecord,
  StopReason,
  TreeNode,
  TreeSearchStats,
} from "./types.ts";

export type TreeSearchEvent =
  | { type: "rollout"; rollout: number; nodeId: number; depth: number }
  | { type: "node"; node: TreeNode }
  | { type: "duplicate"; parentId: number }
  | { type: "stop"; reason: StopReason; detail: string };

export interface TreeSearchOptions {
  config: TreeSearchConfig;
  expander: Expander;
  evaluator: Evaluator;
  budget: BudgetGate;
  /** The unpatched program's failure (reproducer/test output) that the root carries. */
  evidence: { failure: string; reproducer?: RunRecord; tests?: RunRecord };
  signal?: AbortSignal;
  onEvent?: (event: TreeSearchEvent) => void;
}

export interface TreeSearchResult {
  stop: StopReason;
  /** A sentence for the report: why the search stopped. */
  detail: string;
  solved: boolean;
  /** The passing node, else the best-rewarded live one, else null. */
  best: TreeNode | null;
  tree: SearchTree;
  config: TreeSearchConfig;
  stats: TreeSearchStats;
  /** Wall time of the search in milliseconds. */
  ms: number;
}

/**
 * Monte Carlo tree search over patches. Each rollout selects a node by UCB, asks the expander for
 * `branch` candidates, keeps up to `maxExpansion` distinct applicable ones, evaluates them and
 * back-propagates the values to the root. It stops when a candidate passes every check, after
 * `maxRollout` rollouts, when the budget is spent, when no node is left to expand, on abort, or on an
 * error from a port (the error is reported; what was found so far is kept).
 */
export async function runTreeSearch(options: TreeSearchOptions): Promise<TreeSearchResult> {
  const { config, expander, evaluator, budget, signal } = options;
  const emit = options.onEvent ?? (() => {});
  const started = Date.now();
  const tree = createTree(options.evidence);
  const stats: TreeSearchStats = {
    rollouts: 0,
    expansions: 0,
    candidates: 0,
    duplicates: 0,
    notApplicable: 0,
    checks: 0,
    rewardCalls: 0,
  };
  const seenDiffs = new Set<string>([diffKey("")]);
  const seenBroken = new Set<string>();

  const finish = (stop: StopReason, detail: string): TreeSearchResult => {
    emit({ type: "stop", reason: stop, detail });
    const best = bestNode(tree);
    return {
      stop,
      detail,
      solved: best?.evaluation.status === "passed",
      best,
      tree,
      config,
      stats,
      ms: Date.now() - started,
    };
  };

  for (;;) {
    if (signal?.aborted) return finish("aborted", "the run was cancelled");
    if (stats.rollouts >= config.maxRollout) {
      return finish("max-rollouts", `stopped after ${config.maxRollout} rollouts without a passing patch`);
    }
    if (budget.exhausted()) return finish("budget", `model budget spent (${budget.describe()})`);
    const leaf = selectLeaf(tree, config);
    if (!leaf) return finish("exhausted", "no node left to expand: every branch ended in a broken patch");

    stats.rollouts += 1;
    emit({ type: "rollout", rollout: stats.rollouts, nodeId: leaf.id, depth: leaf.depth });
    leaf.expansions += 1;
    stats.expansions += 1;

    let candidates: Candidate[];
    try {
      candidates = await expander.expand({
        node: leaf,
        ancestors: ancestorsOf(tree, leaf),
        children: childrenOf(tree, leaf),
        count: config.branch,
      });
    } catch (err) {
      backPropagate(tree, leaf, config);
      if (budget.exhausted()) return finish("budget", `model budget spent (${budget.describe()})`);
      return finish("error", `asking the model for candidates failed: ${errorText(err)}`);
    }

    stats.candidates += Math.min(candidates.length, config.branch);
    let kept = 0;
    let solved = false;
    let stopAfter: { stop: StopReason; detail: string } | null = null;
    for (const candidate of candidates.slice(0, config.branch)) {
      if (kept >= config.maxExpansion || signal?.aborted) break;
      try {
        const applied = await evaluator.apply(candidate, leaf);
        if (!applied.ok) {
          const key = candidate.answer.trim();
          if (seenBroken.has(key)) {
            leaf.duplicatesSkipped += 1;
            stats.duplicates += 1;
            emit({ type: "duplicate", parentId: leaf.id });
            continue;
          }
          seenBroken.add(key);
          stats.notApplicable += 1;
          const node = addChild(tree, leaf, {
            diff: "",
            changedFiles: [],
            reflection: candidate.reflection,
            answer: candidate.answer,
            evaluation: {
              status: applied.status,
              reward: -1,
              rewardSource: "rule",
              failure: applied.message,
              message: applied.message,
            },
          });
          emit({ type: "node", node });
          continue;
        }
        const key = diffKey(applied.diff);
        if (seenDiffs.has(key)) {
          leaf.duplicatesSkipped += 1;
          stats.duplicates += 1;
          emit({ type: "duplicate", parentId: leaf.id });
          continue;
        }
        seenDiffs.add(key);
        kept += 1;
        stats.checks += 1;
        const outcome = await evaluateApplied(evaluator, budget, leaf, candidate, applied);
        if (outcome.rewardAsked) stats.rewardCalls += 1;
        const node = addChild(tree, leaf, {
          diff: applied.diff,
          changedFiles: applied.changedFiles,
          reflection: candidate.reflection,
          answer: candidate.answer,
          evaluation: outcome.evaluation,
        });
        emit({ type: "node", node });
        if (node.evaluation.status === "passed") {
          solved = true;
          break;
        }
        if (node.evaluation.rewardSource === "unscored" && budget.exhausted()) {
          stopAfter = { stop: "budget", detail: `model budget spent (${budget.describe()})` };
          break;
        }
      } catch (err) {
        stopAfter = { stop: "error", detail: `evaluating a candidate failed: ${errorText(err)}` };
        break;
      }
    }
    backPropagate(tree, leaf, config);
    if (solved) {
      const best = bestNode(tree);
      return finish("solved", `node #${best?.id ?? "?"} passes the reproducer and the regression tests`);
    }
    if (stopAfter) return finish(stopAfter.stop, stopAfter.detail);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
