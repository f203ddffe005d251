/** unittest's check tests: a TestCase beside the named module, or where discovery finds it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fnmatch } from "../../../src/runners/unittest/canaries.ts";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const unittest = rulesOf("unittest");
const SAMPLE =
  "import unittest\n\nfrom calc.ops import add\n\n\nclass Ops(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
const FILES = {
  "calc/__init__.py": "",
  "calc/ops.py": "",
  "tests/__init__.py": "",
  "tests/test_ops.py": SAMPLE,
};

test("a named module: beside it, given to unittest by its dotted name", () => {
  const { tree } = treeOf(FILES);
  const spot = unittest.spot({
    tree,
    words: ["python", "-m", "unittest", "tests.test_ops.Ops"],
    targets: null,
    valueOptions: new Set(),
  });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["tests"]);
  assert.deepEqual(spot.args("tests/test_ops_kavelomi.py"), ["tests.test_ops_kavelomi"]);
});

test("discovery: beside a module its pattern finds through packages; a name outside the pattern is refused", () => {
  const { tree } = treeOf(FILES);
  const spot = unittest.spot({
    tree,
    words: ["python", "-m", "unittest", "discover", "-p", "test_*.py"],
    targets: null,
    valueOptions: new Set(),
  });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["tests"]);
  assert.deepEqual(spot.args("x"), []);
  assert.equal(spot.refuses?.("test_ops_kavelomi.py"), null);
  assert.equal(
    spot.refuses?.("kavelomi_ops.py"),
    "unittest's discovery pattern `test_*.py` would not find the check tests' module",
  );
  assert.equal(fnmatch("*_test.py", "ops_test.py"), true);
  assert.equal(fnmatch("test?.py", "test12.py"), false);
});

test("the file is a TestCase named after the sample's class, asserting with self.assertEqual", () => {
  const { tree } = treeOf(FILES);
  const src = unittest.source(sourceInput(tree, "tests"));
  assert.match(src.text, /^class OpsKavelomi\(unittest\.TestCase\):$/m);
  assert.match(src.text, /self\.assertEqual\(add\(2, 3\), "0123456789abcdef"\)/);
  assert.equal(unittest.perTargetProcesses, true);
});

test("unittest's summary: every FAILED line counts one failure and no error", () => {
  assert.equal(unittest.onlyOneFailed("Ran 3 tests in 0.001s\n\nFAILED (failures=1)\n"), true);
  assert.equal(unittest.onlyOneFailed("FAILED (failures=1, errors=1)\n"), false);
  assert.equal(unittest.onlyOneFailed("OK\n"), false);
});
