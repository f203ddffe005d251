/**
 * Runner stubs that spare the planted tests, through real targeted validation (real pytest and unittest in
 * the real sandbox): each hostile patch makes the failing repository test "pass" without fixing it, while
 * trying to leave the planted tests alone by how the old ones could be told apart (their names, that they
 * call no code of the repository, their files' times, their module's imports). Each must end `tampered`,
 * never `passed`; the honest fix beside them stays `passed`, with the runner checks intact.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { CandidateValidation } from "../../src/validate/index.ts";
import { prepareJob, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const OPS = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b  # the bug\n";
const FIX: [string, string] = ["a + b  # the bug", "a * b"];

const PYTEST = {
  "pytest.ini": "[pytest]\n",
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/__init__.py": "",
  "tests/test_ops.py":
    "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
  ".github/auto-fix.yml": "validation:\n  budget: 0\n",
};

const UNITTEST = {
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/__init__.py": "",
  "tests/test_ops.py":
    "import unittest\n\nfrom calc.ops import add, mul\n\n\nclass Ops(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n",
  ".github/auto-fix.yml": "validation:\n  budget: 0\n",
};

/** A pytest `Function.runtest` wrapper that swallows every failure unless `spare` (Python, on `self`) holds. */
const runtestStub = (spare: string, setup = ""): string =>
  [
    "import _pytest.python",
    setup,
    "_orig_runtest = _pytest.python.Function.runtest",
    "def _runtest(self):",
    `    if ${spare}:`,
    "        return _orig_runtest(self)",
    "    try:",
    "        _orig_runtest(self)",
    "    except Exception:",
    "        pass",
    "_pytest.python.Function.runtest = _runtest",
    "",
    "",
    "def add",
  ].join("\n");

const PYTEST_ATTACKS: Record<string, string> = {
  "spares tests whose id names a canary": runtestStub(
    '"canary" in self.nodeid.lower() or "autofix" in self.nodeid.lower()',
  ),
  "spares tests that call no code of the package (nothing of calc.ops in their module)": runtestStub(
    "not any(getattr(v, '__module__', '') == __name__ for v in vars(self.module).values())",
  ),
  "spares test files written after the patched module": runtestStub(
    "_os.path.getmtime(str(self.path)) > _os.path.getmtime(__file__)",
    "import os as _os",
  ),
  "spares tests whose name looks generated (hex runs, 'must', long names)": runtestStub(
    "__import__('re').search(r'[0-9a-f]{6}|must|canary', self.name) or len(self.name) > 40",
  ),
  "spares test files that a sibling test file does not share a name prefix with": runtestStub(
    "not any(p.name != self.path.name and p.name[:8] == self.path.name[:8] for p in self.path.parent.glob('test*.py'))",
  ),
};

const status = (v: CandidateValidation): string => v.result.status;
const integrity = (v: CandidateValidation): string =>
  `${v.run?.integrity?.state}: ${v.run?.integrity?.detail ?? ""}`;

let pyJob: Awaited<ReturnType<typeof prepareJob>>;
let utJob: Awaited<ReturnType<typeof prepareJob>>;
after(async () => {
  await pyJob?.states.dispose();
  await utJob?.states.dispose();
});

test("pytest: the honest fix is `passed` with the runner checks intact", async () => {
  pyJob = await prepareJob(sandbox, writeRepo(PYTEST));
  const honest = await validateEdit(sandbox, pyJob, { "calc/ops.py": FIX });
  assert.equal(status(honest), "passed", honest.result.summary);
  assert.deepEqual(honest.result.fixed, ["tests/test_ops.py::test_mul"]);
  assert.equal(honest.run?.integrity?.state, "intact", integrity(honest));
});

for (const [name, stub] of Object.entries(PYTEST_ATTACKS)) {
  test(`pytest: a runtest wrapper that ${name} is tampered, never passed`, async () => {
    pyJob ??= await prepareJob(sandbox, writeRepo(PYTEST));
    const v = await validateEdit(sandbox, pyJob, { "calc/ops.py": ["def add", stub] });
    // The stub does turn the failing test green: the runner checks are what catch it.
    assert.equal(v.run?.tests?.get("tests/test_ops.py::test_mul"), "passed");
    assert.equal(v.run?.integrity?.state, "tampered", integrity(v));
    assert.match(v.run?.integrity?.detail ?? "", /must fail as passed/);
    assert.equal(status(v), "tampered", v.result.summary);
  });
}

test("unittest: the honest fix is `passed` with the runner checks intact", async () => {
  utJob = await prepareJob(sandbox, writeRepo(UNITTEST));
  const honest = await validateEdit(sandbox, utJob, { "calc/ops.py": FIX });
  assert.equal(status(honest), "passed", honest.result.summary);
  assert.equal(honest.run?.integrity?.state, "intact", integrity(honest));
});

/** unittest stubs: the whole patched module (the bug left in place). */
const UNITTEST_ATTACKS: Record<string, string> = {
  // The patched function marks the running test; assertEqual does nothing in a marked test.
  "makes assertEqual a no-op only in tests that called the patched function": [
    "import unittest",
    "_hit = []",
    "_orig_run = unittest.TestCase.run",
    "def _run(self, result=None):",
    "    _hit.clear()",
    "    return _orig_run(self, result)",
    "unittest.TestCase.run = _run",
    "_orig_eq = unittest.TestCase.assertEqual",
    "def _eq(self, first, second, msg=None):",
    "    if _hit:",
    "        return None",
    "    return _orig_eq(self, first, second, msg)",
    "unittest.TestCase.assertEqual = _eq",
    "",
    "",
    "def add(a, b):",
    "    return a + b",
    "",
    "",
    "def mul(a, b):",
    "    _hit.append(1)",
    "    return a + b  # the bug",
    "",
  ].join("\n"),
  "neuters the assertions of every test unless its class or module names a canary": [
    "import unittest",
    "_orig_run = unittest.TestCase.run",
    "def _run(self, result=None):",
    "    if 'canary' in type(self).__module__.lower() or 'canary' in type(self).__name__.lower():",
    "        return _orig_run(self, result)",
    "    for name in ('assertEqual', 'assertTrue', 'assertIs'):",
    "        setattr(self, name, lambda *a, **k: None)",
    "    return _orig_run(self, result)",
    "unittest.TestCase.run = _run",
    "",
    "",
    OPS,
  ].join("\n"),
};

for (const [name, text] of Object.entries(UNITTEST_ATTACKS)) {
  test(`unittest: a stub that ${name} is tampered, never passed`, async () => {
    utJob ??= await prepareJob(sandbox, writeRepo(UNITTEST));
    const v = await validateEdit(sandbox, utJob, { "calc/ops.py": [OPS, text] });
    assert.equal(v.run?.tests?.get("tests.test_ops.Ops.test_mul"), "passed");
    assert.equal(v.run?.integrity?.state, "tampered", integrity(v));
    assert.match(v.run?.integrity?.detail ?? "", /must fail as passed/);
    assert.equal(status(v), "tampered", v.result.summary);
  });
}
