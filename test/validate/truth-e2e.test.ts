/**
 * What a run may claim, end to end: `auto-fix issue --dry-run` with the real pipeline, the real sandbox
 * and real test runners, the scripted model playing a model that approves whatever it wrote. Each case
 * asserts the result's status, the validation's state and the words of the status comment and the pull
 * request body. A run says "fixed" and ✅ only when the tests ran and were counted and something that ran
 * shows the bug gone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { testsLine, truthRun } from "../support/truth-run.ts";

const OPS = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n";
const UNITTESTS = [
  "import unittest",
  "",
  "from calc.ops import add, double",
  "",
  "",
  "class OpsTest(unittest.TestCase):",
  "    def test_add(self):",
  "        self.assertEqual(add(2, 3), 5)",
  "",
  "    def test_double(self):",
  "        self.assertEqual(double(4), 8)",
  "",
].join("\n");
const REPRO =
  "from calc.ops import add\n\nresult = add(2, 3)\nassert result == 5, f'expected 5, got {result}'\n";
const FIX = { file: "calc/ops.py", original: "    return a - b", patched: "    return a + b" };
const LOCATION = { file: "calc/ops.py", method: "add" };

const project = (test: string, extra: Record<string, string> = {}): Record<string, string> => ({
  ".github/auto-fix.yml": `test: ${test}\n`,
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  ...extra,
});

test("control: a real fix with unittest tests that ran is fixed, with the fixed test named", async () => {
  const r = await truthRun({
    files: project("python3 -m unittest discover -v", {
      "tests/__init__.py": "",
      "tests/test_ops.py": UNITTESTS,
    }),
    location: LOCATION,
    patch: FIX,
    reproducer: REPRO,
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "no-regressions" === v.status ? "no-regressions" : "passed");
  assert.deepEqual(v.fixed, ["tests.test_ops.OpsTest.test_add"]);
  assert.equal(v.shows_fix, true);
  assert.ok(
    v.counted && v.counted.before >= 2 && v.counted.after === v.counted.before,
    JSON.stringify(v.counted),
  );
  assert.equal(r.result.evidence?.code_changed, true);
  assert.match(
    r.result.evidence?.rests_on ?? "",
    /^the repository's tests: tests\.test_ops\.OpsTest\.test_add failed before the patch and passes after it; the reproducer/,
  );
  assert.match(
    testsLine(r.status),
    /^- ✅ Ran the repository's tests — \d+ tests? ran before the patch and \d+ after: no regressions; 1 test that failed before passes now$/,
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Validation\n\n✅ \d+ tests? ran before the patch and \d+ after: no regressions; 1 test that failed before passes now\n/,
  );
  assert.match(
    r.body,
    /## Evidence\n\n✅ Marked fixed: it rests on [\s\S]*the repository's tests: tests\.test\\?_ops\.OpsTest\.test\\?_add failed before the patch and passes after it;/,
  );
});

test("every test module failing to import is 'tests could not be run': patched, ⚠, never ✅", async () => {
  const r = await truthRun({
    files: project("python3 -m unittest discover -v", {
      "tests/__init__.py": "",
      "tests/test_ops.py": `import missing_helper  # not installed here\n${UNITTESTS}`,
    }),
    location: LOCATION,
    patch: FIX,
    reproducer: REPRO,
  });
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "could-not-run");
  assert.equal(v.passed, false);
  assert.equal(v.shows_fix, false);
  assert.match(
    v.summary,
    /^tests could not be run: before the patch, every test module failed to load \(1: test_ops\)/,
  );
  assert.match(
    r.result.reason,
    /not "fixed": the repository's tests could not be run: before the patch, every test module failed to load/,
  );
  assert.match(
    testsLine(r.status),
    /^- ⚠️ Tests could not be run: before the patch, every test module failed to load \(1: `test_ops`\); the patch was not validated by the repository's tests$/,
  );
  assert.ok(!r.status.includes("✅ Ran the repository's tests"), r.status);
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Validation\n\n⚠️ Tests could not be run: before the patch, every test module failed to load/,
  );
  assert.match(
    r.body,
    /## Evidence\n\n⚠️ Not marked fixed: [\s\S]*the repository's tests could not be run: before the patch/,
  );
  assert.match(r.body, /it is not marked fixed: the evidence below does not show the bug gone/);
});

test("a test command that runs zero tests and exits 0 is 'tests could not be run'", async () => {
  const r = await truthRun({
    files: project("python3 -m unittest discover -s checks", { "checks/__init__.py": "" }),
    location: LOCATION,
    patch: FIX,
    reproducer: REPRO,
  });
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "could-not-run");
  assert.equal(v.passed, false);
  assert.match(testsLine(r.status), /^- ⚠️ Tests could not be run: before the patch, /);
  assert.ok(!/the test suite passes after the patch/.test(`${r.status}\n${r.body}`));
});

test("a patch that only adds a comment, with a reproducer that reads the source, is never fixed; the related test that still fails is named", async () => {
  const r = await truthRun({
    files: project("python3 -m unittest discover -v", {
      "tests/__init__.py": "",
      "tests/test_ops.py": UNITTESTS,
    }),
    location: LOCATION,
    patch: {
      file: "calc/ops.py",
      original: "    return a - b",
      patched: "    # fixed: add returns the sum\n    return a - b",
    },
    reproducer:
      "source = open('calc/ops.py').read()\nassert 'fixed: add returns the sum' in source, 'the fix is missing'\n",
  });
  // The reproducer went red → green and the reviewer approved: neither is evidence here.
  assert.equal(r.result.reproducer?.after?.exitCode, 0);
  assert.equal(r.result.review?.approved, true);
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.equal(r.result.evidence?.code_changed, false);
  assert.match(
    r.result.evidence?.not_fixed ?? "",
    /^the patch changes no code: only comments or whitespace differ/,
  );
  const v = r.result.validation!;
  assert.deepEqual(v.stillFailing, ["tests.test_ops.OpsTest.test_add"]);
  assert.deepEqual(v.stillFailingRelated, ["tests.test_ops.OpsTest.test_add"]);
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Evidence\n\n⚠️ Not marked fixed: the patch changes no code: only comments or whitespace differ from the unpatched files/,
  );
  assert.match(
    testsLine(r.status),
    /^- ⚠️ Ran the repository's tests — 2 tests ran before the patch and 2 after: no regressions, but 1 related test that failed before still fails: `tests\.test_ops\.OpsTest\.test_add`$/,
  );
  assert.match(r.status, /The patch applies but is not marked fixed: the patch changes no code/);
});

const PYTESTS = [
  "import pytest",
  "",
  "from calc.ops import add, double",
  "",
  "",
  "@pytest.fixture",
  "def two():",
  "    return 2",
  "",
  "",
  "def test_add(two):",
  "    assert add(two, 3) == 5",
  "",
  "",
  "def test_double():",
  "    assert double(4) == 8",
  "",
].join("\n");

test("pytest tests without a pytest configuration file run under pytest: a real fix is fixed, the test named", async () => {
  const r = await truthRun({
    files: {
      "calc/__init__.py": "",
      "calc/ops.py": OPS,
      "tests/test_ops.py": PYTESTS,
    },
    location: LOCATION,
    patch: FIX,
    reproducer: REPRO,
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.match(v.command ?? "", /pytest/);
  assert.deepEqual(v.fixed, ["tests/test_ops.py::test_add"]);
  assert.deepEqual(v.counted, { before: 2, after: 2 });
  assert.match(
    testsLine(r.status),
    /^- ✅ Ran the repository's tests — 2 tests ran before the patch and 2 after: no regressions; 1 test that failed before passes now$/,
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /Tests that failed before the patch and pass after it \(1\): `tests\/test_ops\.py::test_add`/,
  );
});

test("a quiet runner (pytest -q as the command) still names each test: the fix is named, not only an exit code", async () => {
  const r = await truthRun({
    files: project("python3 -m pytest -q", { "tests/test_ops.py": PYTESTS }),
    location: LOCATION,
    patch: FIX,
    reproducer: REPRO,
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.perTest, true);
  assert.notEqual(v.after?.parser, "exit-code");
  assert.deepEqual(v.fixed, ["tests/test_ops.py::test_add"]);
  assert.match(testsLine(r.status), /^- ✅ Ran the repository's tests — 2 tests ran before the patch/);
});

test("a patch that ends the runner early (os._exit(0) when imported) is tampered with, never fixed", async () => {
  const r = await truthRun({
    files: project("python3 -m pytest", { "tests/test_ops.py": PYTESTS }),
    location: LOCATION,
    patch: {
      file: "calc/ops.py",
      original: "def add(a, b):",
      patched: "import os\n\nos._exit(0)\n\n\ndef add(a, b):",
    },
    // Importing the module ends the reproducer too: it "passes".
    reproducer: REPRO,
  });
  assert.equal(r.result.reproducer?.after?.exitCode, 0);
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "tampered");
  assert.equal(v.shows_fix, false);
  assert.equal(v.integrity?.state, "tampered");
  assert.match(v.summary, /^the test run after the patch cannot be trusted: /);
  assert.match(testsLine(r.status), /^- ❌ The test run cannot be trusted: /);
  assert.ok(r.body);
  assert.match(r.body, /## Validation\n\n❌ /);
  assert.match(r.body, /⚠️ Not marked fixed:/);
});

test("a patch that disables the runner (Function.runtest stubbed) is tampered with, never fixed", async () => {
  const r = await truthRun({
    files: project("python3 -m pytest", { "tests/test_ops.py": PYTESTS }),
    location: LOCATION,
    patch: {
      file: "calc/ops.py",
      original: "def add(a, b):",
      patched:
        "try:\n    import _pytest.python\n\n    _pytest.python.Function.runtest = lambda self: None\nexcept ImportError:\n    pass\n\n\ndef add(a, b):",
    },
    // The model's reproducer reads the source: red before, green after.
    reproducer: "source = open('calc/ops.py').read()\nassert 'runtest' in source, 'not patched'\n",
  });
  assert.equal(r.result.reproducer?.after?.exitCode, 0);
  // The reviewer approved it; the tests' verdict sent it back, and the same patch came back.
  assert.ok(
    r.result.review?.history.some((h) => h.action === "validation-failed"),
    JSON.stringify(r.result.review?.history),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "tampered");
  assert.deepEqual(v.fixed, []);
  assert.match(
    v.summary,
    /^the test run after the patch cannot be trusted: .*check test that must fail as passed/,
  );
  assert.match(testsLine(r.status), /^- ❌ The test run cannot be trusted: /);
  assert.ok(r.body);
  assert.ok(!r.body.includes("✅ Marked fixed"), r.body);
});
