/** node --test's check tests: a file with node:test's `test` and the sample's node:assert call. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const nodeTest = rulesOf("node-test");
const SAMPLE =
  'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/calc.js");\n\ntest("adds", () => {\n  assert.equal(add(2, 3), 5);\n});\n';

test("with no file named, node finds the check tests beside one of its test files; with files, one more", () => {
  const { tree } = treeOf({ "src/calc.js": "", "test/calc.test.js": SAMPLE });
  const found = nodeTest.spot({ tree, words: ["node", "--test"], targets: null, valueOptions: new Set() });
  assert.ok(!("unverified" in found));
  assert.deepEqual(found.dirs, ["test"]);
  assert.deepEqual(found.args("test/x.test.js"), []);
  const named = nodeTest.spot({
    tree,
    words: ["node", "--test", "test/calc.test.js"],
    targets: null,
    valueOptions: new Set(),
  });
  assert.ok(!("unverified" in named));
  assert.deepEqual(named.args("test/x.test.js"), ["test/x.test.js"]);
  assert.deepEqual(nodeTest.spot({ tree, words: ["npm", "test"], targets: null, valueOptions: new Set() }), {
    unverified: "the test command does not run `node --test`",
  });
});

test("the file borrows the sample's imports, call and assertion; node's summary counts one failure", () => {
  const { tree } = treeOf({ "src/calc.js": "", "test/calc.test.js": SAMPLE });
  const src = nodeTest.source(sourceInput(tree, "test"));
  assert.equal(src.name, "kavelomi-calc.test.js");
  assert.equal(src.passName, "add kavelomi");
  assert.match(src.text, /^const \{ add \} = require\("\.\.\/src\/calc\.js"\);$/m);
  assert.match(src.text, /assert\.equal\(add\(2, 3\), "0123456789abcdef"\);/);
  assert.match(src.text, /require\("node:fs"\)\.appendFileSync/);
  assert.equal(nodeTest.ownProcessPerFile, true);
  assert.equal(nodeTest.onlyOneFailed("ℹ tests 4\nℹ pass 3\nℹ fail 1\n"), true);
  assert.equal(nodeTest.onlyOneFailed("ℹ fail 2\n"), false);
});

test("with no usable sample the file imports node:test and node:assert itself", () => {
  const { tree } = treeOf({ "test/README.md": "" });
  const src = nodeTest.source(sourceInput(tree, "test"));
  assert.equal(src.name, "kavelomi.test.cjs");
  assert.match(src.text, /require\("node:test"\)/);
  assert.match(src.text, /assert\.strictEqual\("dapuno", "0123456789abcdef"\);/);
});
