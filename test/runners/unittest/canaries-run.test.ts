/** unittest's check tests in real runs: honest runs intact, a stubbed or ended runner tampered, one process per module each checked. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import type { RepoConfig } from "../../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import type { TestRun } from "../../../src/validate/index.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";
import { ids, runIn } from "../support/canary-run.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const OPS = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b  # the bug\n";

/** A unittest project (no pytest anywhere). */
const UNITTEST = {
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/__init__.py": "",
  "tests/test_ops.py":
    "import unittest\n\nfrom calc.ops import add, mul\n\n\nclass Ops(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n",
};
const UNITTEST_IDS = { "tests.test_ops.Ops.test_add": "passed", "tests.test_ops.Ops.test_mul": "failed" };

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

test("unittest: an honest run is intact; stubbing TestCase.run or os._exit(0) at import is tampered", async () => {
  const honest = await run(UNITTEST);
  assert.equal(honest.config.test.framework, "unittest");
  assert.equal(honest.run.integrity?.state, "intact", honest.run.integrity?.detail ?? "");
  assert.deepEqual(ids(honest.run), UNITTEST_IDS);
  assert.equal(honest.run.exec.exitCode, 1);

  const stubbed = await run({
    ...UNITTEST,
    ...hostile("import unittest\nunittest.TestCase.run = lambda self, result=None: None\n"),
  });
  assert.equal(stubbed.run.integrity?.state, "tampered");

  const exited = await run({ ...UNITTEST, ...hostile("import os\nos._exit(0)\n") });
  assert.equal(exited.run.integrity?.state, "tampered");
  assert.match(exited.run.integrity?.detail ?? "", /exited 0 without per-test results/);

  // Stubbing the assertion every test uses makes the failing canary pass.
  const asserts = await run({
    ...UNITTEST,
    ...hostile("import unittest\nunittest.TestCase.assertEqual = lambda self, *a, **k: None\n"),
  });
  assert.equal(asserts.run.integrity?.state, "tampered");
  assert.match(asserts.run.integrity?.detail ?? "", /must fail as passed/);
});

test("unittest: a targeted run (one process per module) proves every process ran its canaries", async () => {
  const files = {
    ...UNITTEST,
    "tests/test_more.py":
      "import unittest\n\n\nclass More(unittest.TestCase):\n    def test_true(self):\n        self.assertTrue(True)\n",
  };
  const honest = await run(files, { targets: ["tests.test_ops", "tests.test_more"] });
  assert.equal(honest.run.integrity?.state, "intact", honest.run.integrity?.detail ?? "");
  assert.deepEqual(ids(honest.run), { ...UNITTEST_IDS, "tests.test_more.More.test_true": "passed" });
  // Only the module that imports the patched source dies: the other process still reports the canaries.
  const exited = await run(
    { ...files, ...hostile("import os\nos._exit(0)\n") },
    {
      targets: ["tests.test_ops", "tests.test_more"],
    },
  );
  // The canaries import what the tests beside them import (the patched module): every process that runs
  // them is ended at that import, and none leaves its proof.
  assert.equal(exited.run.integrity?.state, "tampered", exited.run.integrity?.detail ?? "");
  assert.match(exited.run.integrity?.detail ?? "", /never ran its body/);
});

test("a quiet command (unittest without -v) gets its report option: the canaries are checked, an exit at import is tampered", async () => {
  const quiet = (c: RepoConfig): RepoConfig => ({
    ...c,
    test: { ...c.test, command: "python3 -m unittest discover" },
  });
  const honest = await run(UNITTEST, { tweak: quiet });
  assert.equal(honest.run.integrity?.state, "intact", honest.run.integrity?.detail ?? "");
  const exited = await run({ ...UNITTEST, ...hostile("import os\nos._exit(0)\n") }, { tweak: quiet });
  assert.equal(exited.run.integrity?.state, "tampered");
});
