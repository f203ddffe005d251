import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_TREE_SEARCH_CONFIG, type TreeSearchConfig } from "../../src/config/tree-search.ts";
import { runTreeSearch, type TreeSearchEvent } from "../../src/strategies/tree/search.ts";
import { callBudget, makeWorld, unlimited } from "./fake-world.ts";

const cfg: TreeSearchConfig = { ...DEFAULT_TREE_SEARCH_CONFIG };
const evidence = { failure: "AssertionError: wrong for <unpatched>" };

test("finds a fix that exists only at depth 2 and stops at once", async () => {
  const world = makeWorld({
    proposals: { "": ["a", "b", "c", "d"], a: ["a1", "a2"], b: ["b1", "b2", "b3"], c: [] },
    scores: { a: 20, b: 60, c: 40 },
    outcomes: { "b>b2": "pass" },
  });
  const result = await runTreeSearch({ config: cfg, ...world, budget: unlimited(), evidence });
  assert.equal(result.stop, "solved");
  assert.equal(result.solved, true);
  assert.equal(result.best?.diff, "b>b2");
  assert.equal(result.best?.depth, 2);
  // Root expansion keeps max_expansion (3) of the 4 candidates; the 4th is never applied or checked.
  assert.equal(result.tree.nodes[0]?.childIds.length, 3);
  assert.ok(!world.checked.includes("d"));
  // The best child (b, 60) is expanded next; b3 is never checked because b2 passed first.
  assert.deepEqual(world.checked, ["a", "b", "c", "b>b1", "b>b2"]);
  assert.equal(result.stats.rollouts, 2);
  assert.equal(result.stats.candidates, 7); // 4 from the root's expansion, 3 from b's
  assert.equal(result.stats.checks, 5);
  // The passing node is never sent to the reward model.
  assert.ok(world.rewarded.every((r) => r.diff !== "b>b2"));
});

test("a child's expansion request carries its parent's patch, failure and reflection", async () => {
  const world = makeWorld({
    proposals: { "": ["a"], a: ["a1"] },
    outcomes: { a: { failure: "AssertionError: 3 != 4" }, "a>a1": "pass" },
  });
  await runTreeSearch({ config: cfg, ...world, budget: unlimited(), evidence });
  const second = world.expandRequests[1]!;
  assert.equal(second.node.diff, "a");
  assert.equal(second.node.reflection, "try a");
  assert.equal(second.node.evaluation.failure, "AssertionError: 3 != 4");
  assert.deepEqual(
    second.ancestors.map((n) => n.id),
    [0],
  );
  assert.equal(second.count, cfg.branch);
});

test("a failure identical to the parent's scores 0 without asking the reward model", async () => {
  const world = makeWorld({
    proposals: { "": ["a", "b"] },
    // The same failure, run at another time from another temporary directory.
    outcomes: { a: { failure: "File /tmp/run-b/t.py, line 3\nAssertionError:  3 != 4   (took 0.31s)" } },
    scores: { b: 55 },
  });
  const result = await runTreeSearch({
    config: { ...cfg, maxRollout: 1 },
    ...world,
    budget: unlimited(),
    evidence: { failure: "File /tmp/run-a/t.py, line 3\nAssertionError: 3 != 4 (took 1.2s)\n" },
  });
  const [a, b] = [result.tree.nodes[1]!, result.tree.nodes[2]!];
  assert.equal(a.evaluation.reward, 0);
  assert.equal(a.evaluation.sameFailureAsParent, true);
  assert.equal(a.evaluation.rewardSource, "rule");
  assert.equal(b.evaluation.reward, 0.55);
  assert.deepEqual(
    world.rewarded.map((r) => r.diff),
    ["b"],
  );
  assert.equal(result.stop, "max-rollouts");
  assert.equal(result.best?.id, b.id);
});

test("broken candidates score −1, are kept in the tree and never expanded; crashes too", async () => {
  const world = makeWorld({
    proposals: { "": ["x", "y", "a", "z"], a: ["a1"] },
    broken: { x: "not-applicable", y: "syntax-error" },
    outcomes: { z: "timeout", "a>a1": "crash" },
  });
  const result = await runTreeSearch({ config: cfg, ...world, budget: unlimited(), evidence });
  const byAnswer = new Map(result.tree.nodes.map((n) => [n.answer, n]));
  assert.equal(byAnswer.get("fix x")?.evaluation.status, "not-applicable");
  assert.equal(byAnswer.get("fix y")?.evaluation.status, "syntax-error");
  assert.equal(byAnswer.get("fix z")?.evaluation.status, "timeout");
  assert.equal(byAnswer.get("fix a1")?.evaluation.status, "crash");
  for (const n of result.tree.nodes.filter((n) => n.evaluation.reward === -1)) assert.equal(n.expansions, 0);
  // Broken candidates do not count towards max_expansion: a and z were still evaluated.
  assert.deepEqual(world.checked, ["a", "z", "a>a1"]);
  assert.equal(result.stats.notApplicable, 2);
  assert.equal(result.best?.diff, "a");
});

test("candidates identical to an earlier node are not evaluated twice", async () => {
  const world = makeWorld({
    // "a" again from the root; "n" is a no-op on top of a (same program as a); "b" twice in one answer.
    proposals: { "": ["a", "b", "b", "a"], a: ["n", "a1"], b: [] },
    noops: ["n"],
    scores: { a: 50, b: 10 },
  });
  const result = await runTreeSearch({
    config: { ...cfg, maxRollout: 2 },
    ...world,
    budget: unlimited(),
    evidence,
  });
  assert.deepEqual(world.checked, ["a", "b", "a>a1"]);
  assert.equal(result.stats.duplicates, 3);
  assert.equal(result.tree.nodes[0]?.duplicatesSkipped, 2);
  assert.equal(result.tree.nodes[1]?.duplicatesSkipped, 1);
});

test("max_rollout stops the search and reports the best candidate so far", async () => {
  const world = makeWorld({
    proposals: { "": ["a", "b"], a: ["a1"], b: ["b1"], "a>a1": ["a2"], "b>b1": ["b2"] },
    scores: { a: 30, b: 20, "a>a1": 70, "b>b1": 10, "a>a1>a2": 40, "b>b1>b2": 5 },
  });
  const result = await runTreeSearch({
    config: { ...cfg, maxRollout: 4 },
    ...world,
    budget: unlimited(),
    evidence,
  });
  assert.equal(result.stop, "max-rollouts");
  assert.equal(result.stats.rollouts, 4);
  assert.equal(world.expandRequests.length, 4);
  assert.equal(result.solved, false);
  assert.equal(result.best?.diff, "a>a1");
  assert.equal(result.tree.nodes[0]?.visits, 4);
});

test("a passing candidate proposed only in the last rollout is checked and chosen", async () => {
  const world = makeWorld({
    proposals: { "": ["a"], a: ["a1"], "a>a1": ["a2"] },
    outcomes: { "a>a1>a2": "pass" },
  });
  const result = await runTreeSearch({
    config: { ...cfg, maxRollout: 3 },
    ...world,
    budget: unlimited(),
    evidence,
  });
  assert.equal(world.expandRequests.length, 3);
  assert.deepEqual(world.checked, ["a", "a>a1", "a>a1>a2"]);
  assert.equal(result.stop, "solved");
  assert.equal(result.best?.diff, "a>a1>a2");
});

test("the budget stops a hopeless search, keeping the best candidate so far", async () => {
  const proposals: Record<string, string[]> = {};
  const scores: Record<string, number> = {};
  // An endless tree: every program has two children; scores never reach a pass.
  const world = makeWorld({
    proposals: new Proxy(proposals, {
      get: (_t, key: string) => [`${key.length}l`, `${key.length}r`],
    }),
    scores: new Proxy(scores, { get: (_t, key: string) => (key.endsWith("l") ? 35 : 25) + (key.length % 7) }),
  });
  const budget = callBudget(9, world);
  const result = await runTreeSearch({ config: { ...cfg, maxRollout: 100 }, ...world, budget, evidence });
  assert.equal(result.stop, "budget");
  assert.match(result.detail, /9 of 9 model calls/);
  assert.equal(world.expandRequests.length + world.rewarded.length, 9);
  assert.equal(result.solved, false);
  const best = result.best!;
  const scored = result.tree.nodes.filter((n) => n.evaluation.rewardSource === "model");
  assert.ok(scored.length > 0);
  assert.equal(best.evaluation.reward, Math.max(...scored.map((n) => n.evaluation.reward)));
});

test("a node left unscored by the budget is kept and ends the search", async () => {
  const world = makeWorld({ proposals: { "": ["a", "b", "c"] } });
  const budget = callBudget(2, world); // one expansion + one reward call
  const result = await runTreeSearch({ config: cfg, ...world, budget, evidence });
  assert.equal(result.stop, "budget");
  assert.deepEqual(
    result.tree.nodes.slice(1).map((n) => n.evaluation.rewardSource),
    ["model", "unscored"],
  );
  assert.equal(world.checked.length, 2);
});

test("an exhausted tree stops: every candidate is broken", async () => {
  const world = makeWorld({ proposals: { "": ["x"] }, broken: { x: "not-applicable" } });
  const result = await runTreeSearch({ config: cfg, ...world, budget: unlimited(), evidence });
  assert.equal(result.stop, "exhausted");
  // The root was asked twice (expandAttempts); the repeated broken answer is a duplicate.
  assert.equal(world.expandRequests.length, 2);
  assert.equal(world.expandRequests[1]?.children.length, 1);
  assert.equal(result.stats.duplicates, 1);
  assert.equal(result.best, null);
});

test("a model error ends the search with the reason and what was found so far", async () => {
  const world = makeWorld({ proposals: { "": ["a"] }, scores: { a: 45 }, expanderThrowsAt: "a" });
  const result = await runTreeSearch({ config: cfg, ...world, budget: unlimited(), evidence });
  assert.equal(result.stop, "error");
  assert.match(result.detail, /model endpoint answered 500/);
  assert.equal(result.best?.diff, "a");
  assert.equal(result.tree.nodes[1]?.visits, 1);
});

test("an aborted run stops before the next rollout and events describe the search", async () => {
  const controller = new AbortController();
  const events: TreeSearchEvent[] = [];
  const world = makeWorld({ proposals: { "": ["a", "b"], a: ["a1"] } });
  const result = await runTreeSearch({
    config: cfg,
    ...world,
    budget: unlimited(),
    evidence,
    signal: controller.signal,
    onEvent: (e) => {
      events.push(e);
      if (e.type === "rollout" && e.rollout === 2) controller.abort();
    },
  });
  assert.equal(result.stop, "aborted");
  assert.deepEqual(
    events.map((e) => e.type),
    ["rollout", "node", "node", "rollout", "stop"],
  );
});
