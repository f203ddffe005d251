import assert from "node:assert/strict";
import { test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { planRegressionTest } from "../../src/regress/index.ts";
import { writeRepo } from "../validate/support/targeted-repo.ts";

// The stage asks the repository's runner for the plan (each runner's own plan is tested beside it, under
// test/runners/): the runner its settings or files name, else the one its language's tests default to.

const planFor = (files: Record<string, string>, changed: string[]) => {
  const root = writeRepo(files);
  return planRegressionTest(root, loadRepoConfig(root), changed);
};

test("the regression test is planned by the repository's own runner", () => {
  const cases: [string, Record<string, string>, string, string, RegExp][] = [
    [
      "pytest configured",
      { "pytest.ini": "[pytest]\n", "calc.py": "", "tests/test_calc.py": "def test_a():\n    pass\n" },
      "calc.py",
      "pytest",
      /^python3 -m pytest .*tests\/test_calc_regression\.py$/,
    ],
    [
      "TestCase suites only",
      {
        "setup.py": "",
        "calc.py": "",
        "tests/test_calc.py": "import unittest\n\nclass A(unittest.TestCase):\n    pass\n",
      },
      "calc.py",
      "unittest",
      /^python3 -m unittest -v tests\.test_calc_regression$/,
    ],
    [
      "a jest script",
      {
        "package.json": JSON.stringify({ scripts: { test: "jest --ci" } }),
        "lib/a.js": "",
        "test/a.test.js": "",
      },
      "lib/a.js",
      "jest",
      /^npx --no-install jest --runTestsByPath test\/a-regression\.test\.js$/,
    ],
    [
      "a script that starts no runner auto-fix knows: node's own runner",
      { "package.json": JSON.stringify({ scripts: { test: "./run-all" } }), "lib/a.js": "" },
      "lib/a.js",
      "node-test",
      /^node --test --test-reporter=tap test\/a-regression\.test\.js$/,
    ],
    [
      "a Go module",
      { "go.mod": "module m\n", "a.go": "package m\n" },
      "a.go",
      "go",
      /^go test -count=1 -v \.$/,
    ],
  ];
  for (const [what, files, changed, runner, command] of cases) {
    const r = planFor(files, [changed]);
    assert.ok(r.ok, `${what}: ${r.ok ? "" : r.reason}`);
    assert.equal(r.plan.runner, runner, what);
    assert.match(r.plan.command, command, what);
  }
});

test("a runner that writes no regression test, or no runner at all, says why", () => {
  const java = planFor({ "pom.xml": "<project/>", "src/main/java/A.java": "" }, ["src/main/java/A.java"]);
  assert.deepEqual(java, {
    ok: false,
    reason: "regression tests are not yet written for Java (JUnit) projects",
  });
  const none = planFor({ "README.md": "hello\n" }, ["README.md"]);
  assert.deepEqual(none, { ok: false, reason: "the repository's test framework could not be told" });
});
