import assert from "node:assert/strict";
import { test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { planRegressionTest, type TestPlan } from "../../src/regress/index.ts";
import { writeRepo } from "../validate/support/targeted-repo.ts";

// The plan reads the repository: the test folder nearest the change, its file naming, the base class and
// imports of the test file named after the changed one, and the package's module syntax.

const plan = (files: Record<string, string>, changed: string[]): TestPlan => {
  const root = writeRepo(files);
  const r = planRegressionTest(root, loadRepoConfig(root), changed);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  return r.plan;
};

const TORNADO = {
  "setup.py": "from setuptools import setup\nsetup(name='tornado')\n",
  "pytest.ini": "[pytest]\n",
  "tornado/__init__.py": "",
  "tornado/websocket.py": "def ping():\n    return 1\n",
  "tornado/web.py": "def route():\n    return 1\n",
  "tornado/testing.py": "import unittest\n\n\nclass AsyncHTTPTestCase(unittest.TestCase):\n    pass\n",
  "tornado/test/__init__.py": "",
  "tornado/test/web_test.py":
    "from tornado.testing import AsyncHTTPTestCase\n\n\nclass WebTest(AsyncHTTPTestCase):\n    def test_route(self):\n        pass\n",
  "tornado/test/websocket_test.py":
    "# websocket tests\nfrom tornado.testing import AsyncHTTPTestCase\nfrom tornado.websocket import ping\n\n\nclass WebSocketTest(AsyncHTTPTestCase):\n    def test_ping(self):\n        self.assertEqual(ping(), 1)\n",
  // A top-level folder of other tests, farther from the change: not the one to follow.
  "tests/test_other.py": "def test_other():\n    assert True\n",
};

test("python: the nearest test folder, its naming and its classes, with no rule against the sample", () => {
  const p = plan(TORNADO, ["tornado/websocket.py"]);
  assert.equal(p.path, "tornado/test/websocket_regression_test.py");
  assert.equal(p.example?.path, "tornado/test/websocket_test.py");
  assert.match(p.example?.text ?? "", /class WebSocketTest\(AsyncHTTPTestCase\)/);
  assert.match(p.notes, /class deriving from `AsyncHTTPTestCase`/);
  assert.doesNotMatch(p.notes, /plain pytest|def test_\.\.\.\(\)/);
  assert.match(p.command, /-rA/);
});

test("python: a flat tests/ folder with test_*.py functions keeps that naming and style", () => {
  const p = plan(
    {
      "pytest.ini": "[pytest]\n",
      "calc.py": "def add(a, b):\n    return a - b\n",
      "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    },
    ["calc.py"],
  );
  assert.equal(p.path, "tests/test_calc_regression.py");
  assert.match(p.notes, /as the sample does/);
  assert.doesNotMatch(p.notes, /class deriving/);
});

const CJS = {
  "package.json": JSON.stringify({ name: "lib", scripts: { test: "node --test" } }),
  "lib/util.js": "module.exports = { add: (a, b) => a - b };\n",
  "test/util.test.js":
    'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../lib/util");\n\ntest("add", () => assert.equal(add(1, 2), 3));\n',
};

test("javascript: a CommonJS package gets require, an ES module package gets import", () => {
  const cjs = plan(CJS, ["lib/util.js"]);
  assert.equal(cjs.path, "test/util-regression.test.js");
  assert.match(cjs.notes, /const assert = require\("node:assert"\)/);
  assert.match(cjs.notes, /CommonJS/);
  assert.doesNotMatch(cjs.notes, /import assert|import \{/);
  const esm = plan(
    {
      ...CJS,
      "package.json": JSON.stringify({ name: "lib", type: "module", scripts: { test: "node --test" } }),
    },
    ["lib/util.js"],
  );
  assert.match(esm.notes, /import assert from "node:assert"/);
  assert.doesNotMatch(esm.notes, /const assert = require/);
});

test("go: the test file named after the changed one is the sample", () => {
  const p = plan(
    {
      "go.mod": "module example.com/m\n\ngo 1.21\n",
      "pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n",
      "pkg/b.go": "package pkg\n\nfunc B() int { return 2 }\n",
      "pkg/a_test.go": 'package pkg\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n',
      "pkg/b_test.go": 'package pkg\n\nimport "testing"\n\nfunc TestB(t *testing.T) {}\n',
    },
    ["pkg/b.go"],
  );
  assert.equal(p.path, "pkg/b_regression_test.go");
  assert.equal(p.example?.path, "pkg/b_test.go");
});
