import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";

// unittest's regression test: a TestCase in the repository's test folder, run by its dotted module name,
// and read test method by test method from a real `-v` run.

const unittest = runnerFor("unittest");

test("unittest: a TestCase file run by module name, each test method judged from a real -v run", () => {
  const root = writeRepo({
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/__init__.py": "",
    "tests/test_calc.py": "import unittest\n\n\nclass CalcTest(unittest.TestCase):\n    pass\n",
  });
  const r = unittest.regression.plan(root, ["calc.py"]);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  const p = r.plan;
  assert.equal(p.runner, "unittest");
  assert.equal(p.path, "tests/test_calc_regression.py");
  assert.equal(p.command, "python3 -m unittest -v tests.test_calc_regression");
  writeFileSync(
    join(root, p.path),
    'import unittest\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        """Adds."""\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n\n    @unittest.skip("later")\n    def test_later(self):\n        pass\n',
  );
  const run = spawnSync("sh", ["-c", p.command], { cwd: root, encoding: "utf8", timeout: 60_000 });
  const out = `${run.stdout}\n${run.stderr}`;
  const v = Object.fromEntries(unittest.regression.verdicts?.(out, p) ?? []);
  const id = (m: string) => Object.keys(v).find((k) => k.endsWith(`AddTest.${m}`)) ?? m;
  assert.equal(v[id("test_add")], "fail", out);
  assert.equal(v[id("test_zero")], "pass", out);
  assert.equal(v[id("test_later")], "skip", out);
  assert.equal(unittest.regression.testsRan?.(out), true);
  assert.equal(unittest.regression.testsRan?.("\nRan 0 tests in 0.000s\n\nOK\n"), false);
});
