import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_TREE_SEARCH_CONFIG, type TreeSearchConfig } from "../../src/config/tree-search.ts";
import {
  addChild,
  backPropagate,
  bestNode,
  createTree,
  isOpen,
  recomputeValue,
  root,
  selectChild,
  selectLeaf,
  ucb,
} from "../../src/strategies/tree/tree.ts";
import type { NodeEvaluation, NodeStatus } from "../../src/strategies/tree/types.ts";

const near = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

const cfg: TreeSearchConfig = { ...DEFAULT_TREE_SEARCH_CONFIG, c: 1, valueMix: 0.5 };

function ev(status: NodeStatus, reward: number): NodeEvaluation {
  return { status, reward, rewardSource: status === "failing" ? "model" : "rule", failure: `f${reward}` };
}

function child(tree: ReturnType<typeof createTree>, parentId: number, status: NodeStatus, reward: number) {
  const parent = tree.nodes[parentId]!;
  return addChild(tree, parent, {
    diff: `d${tree.nodes.length}`,
    changedFiles: ["a.py"],
    reflection: "",
    answer: "",
    evaluation: ev(status, reward),
  });
}

test("ucb is V + c·sqrt(2·ln N / n), and +∞ for an unvisited child", () => {
  assert.equal(ucb(0.3, 4, 1, 1), 0.3 + Math.sqrt(2 * Math.log(4)));
  assert.equal(ucb(0.3, 10, 5, 0.5), 0.3 + 0.5 * Math.sqrt((2 * Math.log(10)) / 5));
  assert.equal(ucb(0.8, 1, 1, 2), 0.8); // ln 1 = 0: no exploration bonus yet
  assert.equal(ucb(0.1, 10, 5, 0), 0.1); // c = 0: pure exploitation
  assert.equal(ucb(-1, 3, 0, 1), Number.POSITIVE_INFINITY);
  // A rarely visited sibling beats a frequently visited one of equal value.
  assert.ok(ucb(0.5, 10, 1, 1) > ucb(0.5, 10, 9, 1));
});

test("selection tries unvisited children first, best reward first, and skips broken ones", () => {
  const tree = createTree({ failure: "boom" });
  const r = root(tree);
  r.expansions = 1;
  const a = child(tree, 0, "failing", 0.2);
  const b = child(tree, 0, "failing", 0.6);
  child(tree, 0, "syntax-error", -1);
  r.visits = 1;
  assert.equal(selectChild(tree, r, cfg)?.id, b.id);
  b.visits = 1;
  b.expansions = 1;
  // b is visited (finite UCB), a is not: a goes first even though b has the higher value.
  assert.equal(selectChild(tree, r, cfg)?.id, a.id);
  a.visits = 1;
  a.expansions = 1;
  r.visits = 3;
  // Both visited once: plain value decides (same bonus).
  assert.equal(selectChild(tree, r, cfg)?.id, b.id);
  a.visits = 1;
  b.visits = 6;
  r.visits = 8;
  // Exploration: a's bonus sqrt(2 ln 8 / 1) ≈ 2.04 outweighs b's lead.
  assert.equal(selectChild(tree, r, { ...cfg, c: 1 })?.id, a.id);
  assert.equal(selectChild(tree, r, { ...cfg, c: 0 })?.id, b.id);
});

test("selectLeaf descends to an unexpanded node and re-expands a node whose children all broke", () => {
  const tree = createTree({ failure: "boom" });
  assert.equal(selectLeaf(tree, cfg)?.id, 0);
  const r = root(tree);
  r.expansions = 1;
  child(tree, 0, "not-applicable", -1);
  child(tree, 0, "crash", -1);
  backPropagate(tree, r, cfg);
  // No live child: the root may be expanded again (expandAttempts 2)...
  assert.equal(selectLeaf(tree, cfg)?.id, 0);
  r.expansions = 2;
  // ...but not a third time: the tree is exhausted.
  assert.equal(isOpen(tree, r, cfg), false);
  assert.equal(selectLeaf(tree, cfg), null);
});

test("a node holding max_expansion live children is not expanded again; spent leaves close the tree", () => {
  const tree = createTree({ failure: "boom" });
  const r = root(tree);
  r.expansions = 1;
  const kids = [
    child(tree, 0, "failing", 0.1),
    child(tree, 0, "failing", 0.2),
    child(tree, 0, "failing", 0.3),
  ];
  for (const k of kids) k.expansions = cfg.expandAttempts; // each expanded to the limit, no children
  for (const k of kids) k.visits = 1;
  r.visits = 4;
  // Every child has used its expansion attempts without result, and the root already holds
  // max_expansion live children: nothing is left to expand.
  assert.equal(selectLeaf(tree, cfg), null);
  // One child with an attempt left is where the next rollout goes.
  kids[0]!.expansions = 1;
  assert.equal(selectLeaf(tree, cfg)?.id, kids[0]!.id);
});

test("back-propagation counts a visit on every node of the path and mixes values to the root", () => {
  const tree = createTree({ failure: "boom" });
  const r = root(tree);
  r.expansions = 1;
  const a = child(tree, 0, "failing", 0.4);
  child(tree, 0, "failing", 0.2);
  backPropagate(tree, r, cfg);
  assert.equal(r.visits, 1);
  assert.equal(r.value, 0.4); // root: best child value
  a.expansions = 1;
  const a1 = child(tree, a.id, "failing", 0.8);
  child(tree, a.id, "crash", -1);
  backPropagate(tree, a, cfg);
  assert.equal(a.visits, 1);
  assert.equal(r.visits, 2);
  near(a.value, 0.5 * 0.4 + 0.5 * 0.8);
  near(r.value, 0.6);
  a1.expansions = 1;
  child(tree, a1.id, "failing", 0);
  backPropagate(tree, a1, cfg);
  near(a1.value, 0.5 * 0.8 + 0.5 * 0);
  near(a.value, 0.5 * 0.4 + 0.5 * 0.4);
  near(r.value, 0.4);
  assert.deepEqual(
    tree.nodes.map((n) => n.visits),
    [3, 2, 0, 1, 0, 0],
  );
});

test("value mixing weight: 0 keeps a node's own reward, 1 takes the best child's value", () => {
  const tree = createTree({ failure: "boom" });
  const a = child(tree, 0, "failing", 0.3);
  child(tree, a.id, "failing", 0.9);
  assert.equal(recomputeValue(tree, a, 0), 0.3);
  assert.equal(recomputeValue(tree, a, 1), 0.9);
  assert.ok(Math.abs(recomputeValue(tree, a, 0.25) - (0.75 * 0.3 + 0.25 * 0.9)) < 1e-12);
  // A node whose children all broke is pulled down.
  const b = child(tree, 0, "failing", 0.6);
  child(tree, b.id, "syntax-error", -1);
  assert.equal(recomputeValue(tree, b, 0.5), 0.5 * 0.6 - 0.5);
});

test("bestNode prefers a pass, then the highest reward among scored live nodes", () => {
  const tree = createTree({ failure: "boom" });
  assert.equal(bestNode(tree), null);
  child(tree, 0, "crash", -1);
  assert.equal(bestNode(tree), null);
  const a = child(tree, 0, "failing", 0.3);
  const b = child(tree, 0, "failing", 0.7);
  child(tree, a.id, "failing", 0.7); // same reward, deeper: b wins
  assert.equal(bestNode(tree)?.id, b.id);
  const p = child(tree, a.id, "passed", 1);
  assert.equal(bestNode(tree)?.id, p.id);
});
