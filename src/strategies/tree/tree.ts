import type { TreeSearchConfig } from "../../config/tree-search.ts";
import type { NodeEvaluation, NodeStatus, RunRecord, TreeNode } from "./types.ts";

/** The search tree: nodes by id (the root is id 0). */
export interface SearchTree {
  nodes: TreeNode[];
}

/** Statuses that end a branch: the patch is broken, so it is never expanded or selected. */
const DEAD: ReadonlySet<NodeStatus> = new Set(["not-applicable", "syntax-error", "crash", "timeout"]);

export function isDead(node: TreeNode): boolean {
  return DEAD.has(node.evaluation.status);
}

/** The root: the unpatched program and the evidence that it fails. */
export function createTree(evidence: {
  failure: string;
  reproducer?: RunRecord;
  tests?: RunRecord;
}): SearchTree {
  const evaluation: NodeEvaluation = {
    status: "root",
    reward: 0,
    rewardSource: "rule",
    failure: evidence.failure,
  };
  if (evidence.reproducer) evaluation.reproducer = evidence.reproducer;
  if (evidence.tests) evaluation.tests = evidence.tests;
  return {
    nodes: [
      {
        id: 0,
        parentId: null,
        depth: 0,
        diff: "",
        changedFiles: [],
        reflection: "",
        answer: "",
        evaluation,
        visits: 0,
        value: 0,
        childIds: [],
        expansions: 0,
        duplicatesSkipped: 0,
      },
    ],
  };
}

export function getNode(tree: SearchTree, id: number): TreeNode {
  const node = tree.nodes[id];
  if (!node) throw new Error(`tree search: no node #${id}`);
  return node;
}

export function root(tree: SearchTree): TreeNode {
  return getNode(tree, 0);
}

export function childrenOf(tree: SearchTree, node: TreeNode): TreeNode[] {
  return node.childIds.map((id) => getNode(tree, id));
}

/** From the root down to the node's parent. */
export function ancestorsOf(tree: SearchTree, node: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  let id = node.parentId;
  while (id !== null) {
    const n = getNode(tree, id);
    out.push(n);
    id = n.parentId;
  }
  return out.reverse();
}

/** Adds an evaluated child; its value starts at its own reward and it has not been visited. */
export function addChild(
  tree: SearchTree,
  parent: TreeNode,
  child: Pick<TreeNode, "diff" | "changedFiles" | "reflection" | "answer" | "evaluation">,
): TreeNode {
  const node: TreeNode = {
    id: tree.nodes.length,
    parentId: parent.id,
    depth: parent.depth + 1,
    diff: child.diff,
    changedFiles: child.changedFiles,
    reflection: child.reflection,
    answer: child.answer,
    evaluation: child.evaluation,
    visits: 0,
    value: child.evaluation.reward,
    childIds: [],
    expansions: 0,
    duplicatesSkipped: 0,
  };
  tree.nodes.push(node);
  parent.childIds.push(node.id);
  return node;
}

/**
 * Upper confidence bound `V + c·sqrt(2·ln N_parent / n_child)`. An unvisited child scores +∞ so it is
 * tried before any visited sibling.
 */
export function ucb(value: number, parentVisits: number, childVisits: number, c: number): number {
  if (childVisits <= 0) return Number.POSITIVE_INFINITY;
  const n = Math.max(parentVisits, 1);
  return value + c * Math.sqrt((2 * Math.log(n)) / childVisits);
}

/**
 * Whether a rollout can still do something under this node: it is alive and either can be expanded
 * (never expanded yet, or again when it has fewer than `maxExpansion` live children and no open child)
 * or has an open child.
 */
export function isOpen(tree: SearchTree, node: TreeNode, config: TreeSearchConfig): boolean {
  if (isDead(node) || node.evaluation.status === "passed") return false;
  if (node.expansions === 0) return true;
  if (childrenOf(tree, node).some((ch) => isOpen(tree, ch, config))) return true;
  return canExpandAgain(tree, node, config);
}

function canExpandAgain(tree: SearchTree, node: TreeNode, config: TreeSearchConfig): boolean {
  const live = childrenOf(tree, node).filter((ch) => !isDead(ch)).length;
  return node.expansions < config.expandAttempts && live < config.maxExpansion;
}

/**
 * Picks the child to descend into: open children only; unvisited ones first (the best reward among
 * them), then the highest UCB. Ties go to the older node. Null when no child is open.
 */
export function selectChild(tree: SearchTree, node: TreeNode, config: TreeSearchConfig): TreeNode | null {
  let best: TreeNode | null = null;
  let bestKey: [number, number] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const child of childrenOf(tree, node)) {
    if (!isOpen(tree, child, config)) continue;
    const score = ucb(child.value, node.visits, child.visits, config.c);
    // Among unvisited children (all +∞) the better-valued one goes first.
    const key: [number, number] = [score, child.value];
    if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
      best = child;
      bestKey = key;
    }
  }
  return best;
}

/** Descends from the root by UCB to the node the next rollout expands; null when the tree is exhausted. */
export function selectLeaf(tree: SearchTree, config: TreeSearchConfig): TreeNode | null {
  let node = root(tree);
  if (!isOpen(tree, node, config)) return null;
  for (;;) {
    if (node.expansions === 0) return node;
    const next = selectChild(tree, node, config);
    if (next) {
      node = next;
      continue;
    }
    return canExpandAgain(tree, node, config) ? node : null;
  }
}

/**
 * After expanding `leaf`: every node from the leaf up to the root counts one more visit and recomputes
 * its value as `(1−w)·reward + w·max(child values)` (the root, which has no reward of its own, takes the
 * best child value). A node without children keeps its own reward.
 */
export function backPropagate(tree: SearchTree, leaf: TreeNode, config: TreeSearchConfig): void {
  let node: TreeNode | null = leaf;
  while (node) {
    node.visits += 1;
    node.value = recomputeValue(tree, node, config.valueMix);
    node = node.parentId === null ? null : getNode(tree, node.parentId);
  }
}

export function recomputeValue(tree: SearchTree, node: TreeNode, valueMix: number): number {
  const kids = childrenOf(tree, node);
  const own = node.evaluation.reward;
  if (kids.length === 0) return node.parentId === null ? 0 : own;
  const bestChild = Math.max(...kids.map((k) => k.value));
  if (node.parentId === null) return bestChild;
  return (1 - valueMix) * own + valueMix * bestChild;
}

/**
 * The node to report: a passing one when there is one, else the live node with the highest reward
 * (scored by the reward model before unscored, shallower and older first on ties). Null when nothing
 * applied.
 */
export function bestNode(tree: SearchTree): TreeNode | null {
  const passed = tree.nodes.find((n) => n.evaluation.status === "passed");
  if (passed) return passed;
  let best: TreeNode | null = null;
  for (const n of tree.nodes) {
    if (n.evaluation.status !== "failing") continue;
    if (!best || better(n, best)) best = n;
  }
  return best;
}

function better(a: TreeNode, b: TreeNode): boolean {
  if (a.evaluation.reward !== b.evaluation.reward) return a.evaluation.reward > b.evaluation.reward;
  const scoredA = a.evaluation.rewardSource !== "unscored";
  const scoredB = b.evaluation.rewardSource !== "unscored";
  if (scoredA !== scoredB) return scoredA;
  if (a.depth !== b.depth) return a.depth < b.depth;
  return a.id < b.id;
}
