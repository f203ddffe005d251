import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRepoConfig, RepoConfigError } from "../../src/config/index.ts";
import { DEFAULT_TREE_SEARCH_CONFIG, parseTreeSearchConfig } from "../../src/config/tree-search.ts";

test("defaults: c 0.5, branch 4, max_expansion 3, max_rollout 16, value_mix 0.5", () => {
  const r = parseTreeSearchConfig(undefined);
  assert.deepEqual(r, { ok: true, config: { ...DEFAULT_TREE_SEARCH_CONFIG } });
  assert.deepEqual(r.ok && [r.config.branch, r.config.maxExpansion, r.config.maxRollout], [4, 3, 16]);
});

test("snake_case, camelCase and kebab-case keys; strings from flags are coerced", () => {
  const r = parseTreeSearchConfig({
    c: "1.4",
    max_rollout: 8,
    maxExpansion: 2,
    "value-mix": "0.25",
    branch: "5",
  });
  assert.ok(r.ok);
  assert.deepEqual(r.config, {
    c: 1.4,
    branch: 5,
    maxExpansion: 2,
    maxRollout: 8,
    valueMix: 0.25,
    expandAttempts: 2,
  });
});

test("a smaller branch lowers the default max_expansion with it", () => {
  const r = parseTreeSearchConfig({ branch: 2 });
  assert.ok(r.ok);
  assert.equal(r.config.maxExpansion, 2);
});

test("bad settings are refused with a message that names them", () => {
  const cases: [unknown, RegExp][] = [
    [{ max_rollouts: 0 }, /max_rollout/],
    [{ rollouts: 3 }, /unknown tree search setting: rollouts/],
    [{ value_mix: 1.5 }, /value_mix/],
    [{ branch: 2.5 }, /branch/],
    [{ c: "lots" }, /c:/],
    [{ branch: 2, max_expansion: 3 }, /max_expansion \(3\) cannot exceed branch \(2\)/],
    [[1, 2], /must be a mapping/],
    ["tree", /must be a mapping/],
  ];
  for (const [raw, message] of cases) {
    const r = parseTreeSearchConfig(raw);
    assert.equal(r.ok, false, JSON.stringify(raw));
    if (!r.ok) assert.match(r.message, message);
  }
});

test("the repository configuration carries the tree search's parameters", () => {
  const c = parseRepoConfig(
    "strategy:\n  mode: tree\n  c: 1.2\n  branch: 5\n  max_expansion: 2\n  max_rollout: 20\n  value_mix: 0.3\n",
  );
  assert.deepEqual(c.strategy, {
    mode: "tree",
    c: 1.2,
    branch: 5,
    maxExpansion: 2,
    maxRollout: 20,
    valueMix: 0.3,
    expandAttempts: 2,
  });
  // Older names still work; `strategy: tree` alone takes the defaults; linear stays the default.
  const old = parseRepoConfig("strategy: { iterations: 9, exploration: 2 }").strategy;
  assert.deepEqual([old.mode, old.maxRollout, old.c], ["tree", 9, 2]);
  assert.deepEqual(parseRepoConfig("strategy: tree").strategy, {
    mode: "tree",
    ...DEFAULT_TREE_SEARCH_CONFIG,
  });
  assert.equal(parseRepoConfig(null).strategy.mode, "linear");
});

test("bad tree parameters in the repository configuration name the field", () => {
  assert.throws(
    () => parseRepoConfig("strategy: { mode: tree, branch: 2, max_expansion: 3 }"),
    (e: unknown) =>
      e instanceof RepoConfigError &&
      /strategy: max_expansion \(3\) cannot exceed branch \(2\)/.test(e.message),
  );
  assert.throws(
    () => parseRepoConfig("strategy: { mode: tree, value_mix: 2 }"),
    (e: unknown) => e instanceof RepoConfigError && /value_mix/.test(e.message),
  );
  assert.throws(
    () => parseRepoConfig("strategy: { mode: tree, rollouts: 2 }"),
    (e: unknown) => e instanceof RepoConfigError && /rollouts/.test(e.message),
  );
});
