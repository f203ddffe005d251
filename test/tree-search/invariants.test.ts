import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_TREE_SEARCH_CONFIG } from "../../src/config/tree-search.ts";
import { diffKey } from "../../src/strategies/tree/evaluate.ts";
import { runTreeSearch } from "../../src/strategies/tree/search.ts";
import { isDead } from "../../src/strategies/tree/tree.ts";
import type { CheckResult, Evaluator, Expander } from "../../src/strategies/tree/types.ts";
import { rng } from "../support/rng.ts";

/** A random world: edits from a small alphabet (so duplicates happen), random breakage and scores. */
function randomWorld(seed: number) {
  const r = rng(seed);
  const outcome = new Map<string, CheckResult>();
  const expander: Expander = {
    async expand(req) {
      const n = Math.floor(r() * (req.count + 1));
      return Array.from({ length: n }, () => {
        const edit = "abcdef"[Math.floor(r() * 6)]!;
        return { answer: `${edit}${r() < 0.15 ? "!" : ""}`, reflection: edit };
      });
    },
  };
  const evaluator: Evaluator = {
    async apply(c, parent) {
      if (c.answer.endsWith("!")) return { ok: false, status: "not-applicable", message: "broken" };
      // Edits commute (sorted), so different orders reach the same program: duplicates across branches.
      const parts = parent.diff ? parent.diff.split(",") : [];
      if (parts.includes(c.answer)) return { ok: true, diff: parent.diff, changedFiles: ["f"] };
      const diff = [...parts, c.answer].sort().join(",");
      return { ok: true, diff, changedFiles: ["f"] };
    },
    async check(applied) {
      let o = outcome.get(applied.diff);
      if (!o) {
        const x = r();
        o =
          x < 0.03
            ? { outcome: "passed" }
            : x < 0.1
              ? { outcome: "crash", message: "boom" }
              : { outcome: "failed", failure: r() < 0.2 ? "same" : `fail ${applied.diff}` };
        outcome.set(applied.diff, o);
      }
      return o;
    },
    async reward() {
      return { score: Math.floor(r() * 101), reason: "" };
    },
  };
  return { expander, evaluator };
}

test("search invariants hold on random worlds (visits, values, duplicates, stop reasons)", async () => {
  for (let seed = 1; seed <= 200; seed++) {
    const config = { ...DEFAULT_TREE_SEARCH_CONFIG, maxRollout: 1 + (seed % 20), c: (seed % 5) / 2 };
    const result = await runTreeSearch({
      config,
      ...randomWorld(seed),
      budget: { exhausted: () => false, describe: () => "none" },
      evidence: { failure: "same" },
    });
    const nodes = result.tree.nodes;
    const root = nodes[0]!;
    const at = `seed ${seed}`;
    assert.equal(root.visits, result.stats.rollouts, at);
    assert.ok(result.stats.rollouts <= config.maxRollout, at);
    for (const n of nodes) {
      assert.ok(n.value >= -1 && n.value <= 1, `${at}: value ${n.value}`);
      const kids = n.childIds.map((id) => nodes[id]!);
      assert.ok(
        kids.reduce((s, k) => s + k.visits, 0) <= n.visits,
        `${at}: children visited more than #${n.id}`,
      );
      assert.ok(kids.filter((k) => !isDead(k)).length <= config.maxExpansion * Math.max(1, n.expansions), at);
      if (isDead(n)) assert.equal(n.expansions, 0, `${at}: dead node #${n.id} expanded`);
      for (const k of kids) assert.equal(k.depth, n.depth + 1, at);
    }
    // No two evaluated nodes hold the same program, and none holds the original.
    const live = nodes.filter((n) => n.parentId !== null && n.evaluation.status !== "not-applicable");
    const keys = live.map((n) => diffKey(n.diff));
    assert.equal(new Set(keys).size, keys.length, `${at}: duplicate program evaluated`);
    assert.ok(!keys.includes(diffKey("")), at);
    // A failure equal to the parent's scored 0 without asking.
    for (const n of live) {
      if (n.evaluation.sameFailureAsParent) assert.equal(n.evaluation.reward, 0, at);
    }
    // The stop reason agrees with the tree.
    if (result.stop === "solved") assert.equal(result.best?.evaluation.status, "passed", at);
    else assert.ok(!nodes.some((n) => n.evaluation.status === "passed"), at);
    if (result.stop === "max-rollouts") assert.equal(result.stats.rollouts, config.maxRollout, at);
  }
});
