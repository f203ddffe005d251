import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_TREE_SEARCH_CONFIG } from "../../src/config/tree-search.ts";
import { runTreeSearch } from "../../src/strategies/tree/search.ts";
import {
  diffStat,
  parseTreeJson,
  renderTreeOutline,
  treeToJson,
} from "../../src/strategies/tree/serialize.ts";
import { makeWorld, unlimited } from "./fake-world.ts";

async function solvedSearch() {
  const world = makeWorld({
    proposals: { "": ["a", "b", "x"], b: ["b1", "b2"] },
    broken: { x: "syntax-error" },
    scores: { a: 20, b: 60 },
    outcomes: { "b>b2": "pass" },
  });
  return runTreeSearch({
    config: { ...DEFAULT_TREE_SEARCH_CONFIG },
    ...world,
    budget: unlimited(),
    evidence: { failure: "AssertionError" },
  });
}

test("the tree round-trips through JSON", async () => {
  const result = await solvedSearch();
  const text = JSON.stringify(treeToJson(result), null, 2);
  const back = parseTreeJson(text);
  assert.ok(back.ok);
  assert.deepEqual(back.tree.nodes, result.tree.nodes);
  assert.equal(back.file.bestId, result.best?.id);
  assert.equal(back.file.stop, "solved");
  assert.deepEqual(back.file.stats, result.stats);
});

test("a damaged tree file is refused with a reason", async () => {
  const good = treeToJson(await solvedSearch());
  assert.match((parseTreeJson("{not json") as { message: string }).message, /not JSON/);
  assert.match(
    (parseTreeJson(JSON.stringify({ ...good, version: 9 })) as { message: string }).message,
    /version/,
  );
  const orphan = structuredClone(good);
  orphan.nodes[0]!.childIds = [];
  assert.match(
    (parseTreeJson(JSON.stringify(orphan)) as { message: string }).message,
    /not listed under its parent/,
  );
  const badBest = { ...good, bestId: 99 };
  assert.match((parseTreeJson(JSON.stringify(badBest)) as { message: string }).message, /best node #99/);
});

test("the outline shows value, visits and status per node, indented, with the winning path starred", async () => {
  const result = await solvedSearch();
  const outline = renderTreeOutline(result.tree, result.best?.id ?? null);
  const lines = outline.split("\n");
  assert.equal(lines.length, result.tree.nodes.length);
  assert.match(lines[0]!, /^- ★ root · value 0\.80 · visits 2 · unpatched$/);
  assert.match(lines[1]!, /^ {2}- #1 · value 0\.20 · visits 0 · failing \(score 20\) · a\.py/);
  assert.match(lines[2]!, /^ {2}- ★ #2 · value 0\.80 · visits 1 · failing \(score 60\) .*— “try b”$/);
  assert.match(lines[3]!, /^ {4}- #4 · value 0\.10 · visits 0 · failing \(score 10\)/);
  assert.match(lines[4]!, /^ {4}- ★ #5 · value 1\.00 · visits 0 · \*\*passed\*\*/);
  assert.match(lines[5]!, /^ {2}- #3 · value -1\.00 · visits 0 · syntax-error: edit x does not apply/);
});

test("diffStat counts added and removed lines, not file headers", () => {
  assert.deepEqual(diffStat("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n+c\n d\n"), { added: 2, removed: 1 });
});
