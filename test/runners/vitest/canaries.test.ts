/** vitest's check tests: only without a configuration, an ES module importing from `vitest`. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const vitest = rulesOf("vitest");

test("a vite or vitest configuration decides its files: no check tests; else beside a *.test file", () => {
  const input = (files: Record<string, string>) => ({
    tree: treeOf(files).tree,
    words: ["vitest", "run"],
    targets: null,
    valueOptions: new Set<string>(),
  });
  assert.deepEqual(vitest.spot(input({ "vite.config.ts": "", "src/a.test.ts": "" })), {
    unverified: "vitest's configuration (vite.config.ts) decides which test files it takes",
  });
  const spot = vitest.spot(input({ "src/a.test.ts": "", "src/a.ts": "" }));
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["src"]);
  assert.equal(vitest.deselecting(["vitest", "run", "--bail=1"]), "--bail=1");
});

test("with no sample the file imports expect and test from vitest and writes its proof as an ES module", () => {
  const { tree } = treeOf({ "src/a.ts": "" });
  const src = vitest.source(sourceInput(tree, "src"));
  assert.equal(src.name, "kavelomi.test.mjs");
  assert.match(src.text, /^import \{ expect, test \} from "vitest";$/m);
  assert.match(src.text, /\(await import\("node:fs"\)\)\.appendFileSync\(new URL/);
  assert.equal(
    vitest.onlyOneFailed(" Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 4 passed (5)\n"),
    true,
  );
});
