import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import type { TestPlan } from "../../../src/runners/parts/conventions.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";

// pytest's regression test: where it goes and in which style (read from the repository's tests), and
// how a real run of it is read (only the new file's tests, each on its own).

const pytest = runnerFor("pytest");

const plan = (files: Record<string, string>, changed: string[]): { root: string; plan: TestPlan } => {
  const root = writeRepo(files);
  const r = pytest.regression.plan(root, changed);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  return { root, plan: r.plan };
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

test("pytest: the nearest test folder, its naming and its classes, with no rule against the sample", () => {
  const { plan: p } = plan(TORNADO, ["tornado/websocket.py"]);
  assert.equal(p.runner, "pytest");
  assert.equal(p.path, "tornado/test/websocket_regression_test.py");
  assert.equal(p.example?.path, "tornado/test/websocket_test.py");
  assert.match(p.example?.text ?? "", /class WebSocketTest\(AsyncHTTPTestCase\)/);
  assert.match(p.notes, /class deriving from `AsyncHTTPTestCase`/);
  assert.doesNotMatch(p.notes, /plain pytest|def test_\.\.\.\(\)/);
  assert.match(p.command, /-rA/);
});

test("pytest: a flat tests/ folder with test_*.py functions keeps that naming and style", () => {
  const { plan: p } = plan(
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

const CALC = {
  "pytest.ini": "[pytest]\n",
  "calc.py": "def add(a, b):\n    return a - b\n",
  "tests/test_calc.py": "from calc import add\n\n\ndef test_other_file():\n    assert add(1, 1) == 0\n",
};

/** Runs the plan's command in the repository (the host's pytest), as the stage runs it in the sandbox. */
const run = (root: string, command: string): string => {
  const r = spawnSync("sh", ["-c", command], { cwd: root, encoding: "utf8", timeout: 60_000 });
  return `${r.stdout}\n${r.stderr}`;
};

test("pytest: a real run of the new file is read test by test, the file's tests only", () => {
  const { root, plan: p } = plan(CALC, ["calc.py"]);
  writeFileSync(
    join(root, p.path),
    "import pytest\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n",
  );
  // The suite's own file is named too: its test must not be read as the new file's. A skipped test's
  // `-rA` line names its file and line, not the test (`SKIPPED [1] path:13: later`): it is not read.
  const out = run(root, `${p.command} tests/test_calc.py`);
  assert.match(out, /PASSED tests\/test_calc\.py::test_other_file/);
  const v = pytest.regression.verdicts?.(out, p);
  assert.deepEqual(
    Object.fromEntries(v ?? []),
    { [`${p.path}::test_add`]: "fail", [`${p.path}::test_zero`]: "pass" },
    out,
  );
  assert.equal(pytest.regression.testsRan?.(out), true);
  assert.equal(pytest.regression.notLoaded?.(out), null);
});

test("pytest: a file that cannot be collected is told as not loaded, with its cause", () => {
  const { root, plan: p } = plan(CALC, ["calc.py"]);
  writeFileSync(
    join(root, p.path),
    "from calc import subtract\n\n\ndef test_x():\n    assert subtract(1, 1) == 0\n",
  );
  const out = run(root, p.command);
  assert.equal(pytest.regression.verdicts?.(out, p).size, 0, out);
  assert.match(
    pytest.regression.notLoaded?.(out) ?? "",
    /^pytest could not load the file \(ImportError: /,
    out,
  );
  writeFileSync(join(root, p.path), "# no tests here\n");
  assert.equal(pytest.regression.testsRan?.(run(root, p.command)), false);
});
