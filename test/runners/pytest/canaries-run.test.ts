/** pytest's check tests in real runs: honest runs intact, a runner ended, stubbed or rewritten from a source file tampered. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { RepoConfig } from "../../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import { compareRuns, type TestRun } from "../../../src/validate/index.ts";
import { prepareJob, validateEdit, writeRepo } from "../../validate/support/targeted-repo.ts";
import { ids, runIn } from "../support/canary-run.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const OPS = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b  # the bug\n";

/** A pytest project: one test passes, one fails (the bug). */
const PYTEST = {
  "pytest.ini": "[pytest]\n",
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/test_ops.py":
    "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
};
const PYTEST_IDS = { "tests/test_ops.py::test_add": "passed", "tests/test_ops.py::test_mul": "failed" };

/** The source file with `prefix` put before its code: the hostile patch (never a test or its configuration). */
const hostile = (prefix: string): Record<string, string> => ({
  "calc/ops.py": `${prefix}\n${OPS}`,
});

async function run(
  files: Record<string, string>,
  opts: { targets?: string[]; tweak?: (c: RepoConfig) => RepoConfig } = {},
): Promise<{ run: TestRun; config: RepoConfig; dir: string }> {
  const dir = writeRepo(files);
  return { ...(await runIn(sandbox, dir, opts)), dir };
}

test("pytest: an honest run is intact, and the canaries are not among its tests, counts or exit status", async () => {
  const { run: r, config } = await run(PYTEST);
  assert.equal(config.test.framework, "pytest");
  assert.equal(r.integrity?.state, "intact", r.integrity?.detail ?? "");
  assert.deepEqual(ids(r), PYTEST_IDS);
  assert.deepEqual([r.passed, r.failed, r.skipped], [1, 1, 0]);
  assert.equal(r.exec.exitCode, 1, "the repository's own failing test fails the run");
  assert.equal(r.command, config.test.command, "the report shows the command as configured");
  // A fix: every test passes; the failing canary alone does not keep the run red.
  const fixed = await run({
    ...PYTEST,
    "calc/ops.py": OPS.replace("a + b  # the bug", "a * b"),
  });
  assert.equal(fixed.run.integrity?.state, "intact");
  assert.deepEqual([fixed.run.passed, fixed.run.failed], [2, 0]);
  assert.equal(fixed.run.exec.exitCode, 0);
  const v = compareRuns(r, fixed.run);
  assert.equal(v.status, "passed");
  assert.deepEqual(v.fixed, ["tests/test_ops.py::test_mul"]);
});

test("pytest: a source file that calls os._exit(0) at import ends the run without results: tampered", async () => {
  const { run: r } = await run({ ...PYTEST, ...hostile("import os\nos._exit(0)\n") });
  assert.equal(r.exec.exitCode, 0);
  assert.equal(r.integrity?.state, "tampered");
  assert.match(r.integrity?.detail ?? "", /never ran its body/);
  assert.match(r.integrity?.detail ?? "", /did not report the check test that must fail/);
});

test("pytest: a source file that stubs Function.runtest (every test 'passes'): tampered", async () => {
  const { run: r } = await run({
    ...PYTEST,
    ...hostile("import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n"),
  });
  assert.equal(r.integrity?.state, "tampered");
  assert.match(r.integrity?.detail ?? "", /never ran its body/);
  assert.match(r.integrity?.detail ?? "", /reported the check test that must fail as passed/);
  assert.deepEqual(ids(r), {
    "tests/test_ops.py::test_add": "passed",
    "tests/test_ops.py::test_mul": "passed",
  });
});

test("pytest: a source file that rewrites every report to 'passed' (makereport monkeypatching): tampered", async () => {
  const patch = [
    "import _pytest.reports",
    "_orig = _pytest.reports.TestReport.from_item_and_call",
    "def _fake(item, call):",
    "    rep = _orig(item, call)",
    "    rep.outcome = 'passed'",
    "    rep.longrepr = None",
    "    return rep",
    "_pytest.reports.TestReport.from_item_and_call = staticmethod(_fake)",
  ].join("\n");
  const { run: r } = await run({ ...PYTEST, ...hostile(patch) });
  assert.equal(r.integrity?.state, "tampered");
  assert.match(r.integrity?.detail ?? "", /must fail as passed/);
});

test("pytest: sys.exit(0) at import stops pytest with no results: tampered", async () => {
  const { run: r } = await run({ ...PYTEST, ...hostile("import sys\nsys.exit(0)\n") });
  assert.equal(r.integrity?.state, "tampered");
  assert.equal(r.tests, null);
});

test("pytest: a source file that fails to import stops pytest before any test: unverified, the error counted", async () => {
  // pytest runs no test when a module fails to collect, and says so itself: nothing ran, nothing was faked.
  const { run: r } = await run({ ...PYTEST, ...hostile('raise ImportError("broken")\n') });
  assert.equal(r.integrity?.state, "unverified", r.integrity?.detail ?? "");
  assert.match(r.integrity?.detail ?? "", /stopped at an error collecting the tests/);
  assert.deepEqual(ids(r), { "tests/test_ops.py::<collection>": "failed" });
});

test("pytest: a targeted run gets its canaries too (an extra target), and the attack shows there", async () => {
  const honest = await run(PYTEST, { targets: ["tests/test_ops.py"] });
  assert.equal(honest.run.integrity?.state, "intact", honest.run.integrity?.detail ?? "");
  assert.deepEqual(ids(honest.run), PYTEST_IDS);
  assert.doesNotMatch(honest.run.command, /canary/);
  const exited = await run(
    { ...PYTEST, ...hostile("import os\nos._exit(0)\n") },
    { targets: ["tests/test_ops.py"] },
  );
  assert.equal(exited.run.integrity?.state, "tampered");
});

test("pytest: with testpaths and no positional argument, the run keeps its scope and gets its canaries", async () => {
  const files = {
    ...PYTEST,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "other/test_elsewhere.py": "def test_not_in_testpaths():\n    assert False\n",
  };
  const { run: r } = await run(files);
  assert.equal(r.integrity?.state, "intact", r.integrity?.detail ?? "");
  assert.deepEqual(ids(r), PYTEST_IDS, "the tests outside testpaths still do not run");
});

test("pytest: an option that could deselect the canaries leaves the run unverified, with why", async () => {
  const { run: r } = await run(PYTEST, {
    tweak: (c) => ({ ...c, test: { ...c.test, command: "python3 -m pytest -rA -x" } }),
  });
  assert.equal(r.integrity?.state, "unverified");
  assert.match(r.integrity?.detail ?? "", /`-x`/);
});

test("through targeted validation: the unpatched and patched runs carry their integrity, the attack shows", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({ ...PYTEST, ".github/auto-fix.yml": "validation:\n  budget: 0\n" }),
  );
  try {
    const honest = await validateEdit(sandbox, job, { "calc/ops.py": ["a + b  # the bug", "a * b"] });
    assert.equal(honest.run?.integrity?.state, "intact", honest.run?.integrity?.detail ?? "");
    assert.equal(honest.result.status, "passed");
    assert.deepEqual(honest.result.fixed, ["tests/test_ops.py::test_mul"]);
    const stub = await validateEdit(sandbox, job, {
      "calc/ops.py": [
        "def add",
        "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n\n\ndef add",
      ],
    });
    assert.equal(stub.run?.integrity?.state, "tampered");
  } finally {
    await job.states.dispose();
  }
});
