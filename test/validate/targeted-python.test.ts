import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { prepareJob, ranIds, runs, selected, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

/** A small package: pricing is imported by the package (and so by checkout); tax only by its tests and a helper. */
const SHOP = {
  "pytest.ini": "[pytest]\n",
  "pkg/__init__.py": "from .pricing import discount\n",
  "pkg/pricing.py": "def discount(price, percent):\n    return price - price * percent / 100\n",
  "pkg/tax.py": "def tax(price):\n    return price * 2  # the bug: 20% is 1.2\n",
  "pkg/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
  "tests/__init__.py": "",
  "tests/helpers.py": "from pkg.tax import tax\n\ndef gross(p):\n    return tax(p)\n",
  "tests/test_pricing.py":
    "from pkg.pricing import discount\n\ndef test_half():\n    assert discount(10, 50) == 5\n\ndef test_none():\n    assert discount(10, 0) == 10\n",
  "tests/test_checkout.py": "import pkg\n\ndef test_checkout():\n    assert pkg.discount(100, 10) == 90\n",
  "tests/test_tax.py": "from pkg import tax\n\ndef test_rate():\n    assert tax.tax(10) == 12\n",
  "tests/test_report.py":
    "from tests.helpers import gross\n\ndef test_gross_positive():\n    assert gross(1) > 0\n",
  "tests/test_util.py": "from pkg.util import clamp\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n",
};

test("pytest: a change runs the tests that import it or are named after it, and the regression is caught", async () => {
  const repo = writeRepo({ ...SHOP, ".github/auto-fix.yml": "validation:\n  budget: 0\n" });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "pytest");
  const v = await validateEdit(sandbox, job, {
    "pkg/pricing.py": ["price * percent / 100", "price * percent"],
  });
  assert.deepEqual(selected(v), {
    "tests/test_checkout.py": ["imports a changed module"],
    "tests/test_pricing.py": ["imports a changed module", "named after a changed module"],
  });
  // The test named after the module runs first, by itself, and shows the regression: the importer
  // ranked after it is left out (the patch is rejected anyway), and the report says so.
  assert.deepEqual(ranIds(v), ["tests/test_pricing.py::test_half", "tests/test_pricing.py::test_none"]);
  assert.equal(v.result.status, "regressions");
  assert.deepEqual(v.result.regressions, ["tests/test_pricing.py::test_half"]);
  assert.equal(v.result.tests?.kind, "targeted");
  assert.deepEqual(runs(v), {
    "tests/test_pricing.py": "ran",
    "tests/test_checkout.py": "after-regression",
  });
  assert.match(
    v.result.tests?.notRun ?? "",
    /^tests\/test_checkout\.py \(1 related test, not run: the tests that ran already show a regression, so the patch is rejected\); the other 3 tests .*not run, the selected tests already show a regression$/,
  );
  assert.equal(v.result.tests?.pristineRuns, 1);
});

test("pytest: the unpatched results are computed once per job; a later candidate runs only the missing tests", async () => {
  const repo = writeRepo({ ...SHOP, ".github/auto-fix.yml": "validation:\n  budget: 0\n" });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const first = await validateEdit(sandbox, job, { "pkg/pricing.py": ["return price", "return 0 + price"] });
  assert.equal(first.result.status, "passed");
  // Two batches: the test named after the module, then its importer.
  assert.equal(first.result.tests?.pristineRuns, 2);
  const again = await validateEdit(sandbox, job, { "pkg/pricing.py": ["return price", "return price + 0"] });
  assert.equal(again.result.tests?.pristineRuns, 0, "same tests: the job's unpatched results are reused");
  assert.equal(job.states.tests.runCount, 2);
  // The tax fix selects its own tests (and the helper's user): only those run on the unpatched tree.
  const fix = await validateEdit(sandbox, job, { "pkg/tax.py": ["price * 2", "price * 1.2"] });
  assert.deepEqual(selected(fix), {
    "tests/test_report.py": ["imports a changed module"],
    "tests/test_tax.py": ["imports a changed module", "named after a changed module"],
  });
  assert.equal(fix.result.tests?.pristineRuns, 2);
  assert.deepEqual(fix.result.fixed, ["tests/test_tax.py::test_rate"]);
  assert.equal(fix.result.status, "passed");
  // A test that failed before the patch is selected for every later candidate, whatever it changes.
  const other = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.deepEqual(selected(other), {
    "tests/test_tax.py::test_rate": ["failed before the patch"],
    "tests/test_util.py": ["imports a changed module", "named after a changed module"],
  });
  assert.equal(other.result.tests?.pristineRuns, 1, "test_util only: test_rate's unpatched result is known");
  // The failed test runs by itself on the candidate, not its whole file.
  assert.deepEqual(ranIds(other), ["tests/test_tax.py::test_rate", "tests/test_util.py::test_clamp"]);
  // Ranked: the test named after the module first, the one that only failed before last.
  assert.deepEqual(Object.keys(runs(other)), ["tests/test_util.py", "tests/test_tax.py::test_rate"]);
  assert.equal(job.states.tests.runCount, 5);
});

test("pytest: tests the reproducer or the model names are selected; within the budget the rest of the suite runs", async () => {
  const repo = writeRepo(SHOP);
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(
    sandbox,
    job,
    { "pkg/tax.py": ["price * 2", "price * 1.2"] },
    { reproducerText: "see tests/test_util.py::test_clamp\n", modelText: "like test_checkout.py does" },
  );
  assert.deepEqual(selected(v)["tests/test_util.py"], ["named by the reproducer"]);
  assert.deepEqual(selected(v)["tests/test_checkout.py"], ["named by the model"]);
  assert.equal(v.result.tests?.kind, "targeted+rest", v.result.tests?.notRun ?? "");
  assert.equal(v.result.tests?.notRun, null);
  assert.equal(v.result.status, "passed");
  assert.equal(v.run?.tests?.size, 6, "the whole suite ran after the selected tests");
});

test("unittest: dotted module names, through the package that imports the change", async () => {
  const repo = writeRepo({
    "lib/__init__.py": "from .core import double\n",
    "lib/core.py": "def double(x):\n    return x * 2\n",
    "lib/other.py": "def one():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_core.py":
      'import unittest\nfrom lib.core import double\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        """Doubles."""\n        self.assertEqual(double(2), 4)\n',
    "tests/test_api.py":
      "import unittest\nimport lib\n\nclass A(unittest.TestCase):\n    def test_api(self):\n        self.assertEqual(lib.double(3), 6)\n",
    "tests/test_skips.py":
      "import unittest\nimport lib.core\n\nif True:\n    raise unittest.SkipTest('not on this platform')\n",
    "tests/test_other.py":
      "import unittest\nfrom lib.other import one\n\nclass O(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(one(), 1)\n",
    ".github/auto-fix.yml": "validation:\n  budget: 0\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "unittest");
  const v = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "x * 3"] });
  // In rank order: named after the module, a direct importer, an importer through the package.
  assert.deepEqual(Object.keys(selected(v)), ["tests.test_core", "tests.test_skips", "tests.test_api"]);
  assert.deepEqual(runs(v), {
    "tests.test_core": "ran",
    "tests.test_skips": "after-regression",
    "tests.test_api": "after-regression",
  });
  assert.match(v.run?.command ?? "", /python3 -m unittest -v tests\.test_core \(one process per module\)$/);
  assert.deepEqual(ranIds(v), ["tests.test_core.T.test_double"]);
  assert.equal(v.result.status, "regressions");
  // A change no test is named after: the importers run together, the one that skips at import fails
  // alone, the others' tests ran (a docstring line is read too).
  const api = await validateEdit(sandbox, job, { "lib/__init__.py": ["from .core", "from .core  "] });
  assert.deepEqual(Object.keys(selected(api)).sort(), [
    "tests.test_api",
    "tests.test_core",
    "tests.test_other",
    "tests.test_skips",
  ]);
  assert.match(
    api.run?.command ?? "",
    /^python3 -m unittest -v (tests\.test_(api|core|other|skips) ){4}\(one process per module\)$/,
  );
  assert.deepEqual(ranIds(api), [
    "tests.test_api.A.test_api",
    "tests.test_core.T.test_double",
    "tests.test_other.O.test_one",
  ]);
  assert.equal(
    api.result.status,
    "no-regressions",
    `${api.result.summary} ${JSON.stringify(api.result.integrity)}`,
  );
});

test("hostile test names: files are arguments, never shell text; a name like an option stays a path; links are not tests", async () => {
  const outside = writeRepo({ "test_secret.py": "import pkg\n\ndef test_x():\n    assert True\n" });
  const repo = writeRepo({
    ...SHOP,
    ".github/auto-fix.yml": "validation:\n  budget: 0\n",
    "tests/test_$(touch PWNED)`touch PWNED2`.py":
      "from pkg.util import clamp\n\ndef test_odd():\n    assert clamp(1, 0, 2) == 1\n",
    "--collect-only/test_util_opt.py":
      "from pkg.util import clamp\n\ndef test_opt():\n    assert clamp(9, 0, 2) == 2\n",
  });
  mkdirSync(join(repo, "tests", "linked"));
  symlinkSync(join(outside, "test_secret.py"), join(repo, "tests", "test_linked.py"));
  symlinkSync(outside, join(repo, "tests", "linked", "out"));
  writeFileSync(join(repo, "tests", "linked", "__init__.py"), "");
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(
    sandbox,
    job,
    { "pkg/util.py": ["max(lo", "max( lo"] },
    { modelText: "tests/test_linked.py /etc/passwd ../../etc/passwd tests/linked/out/test_secret.py -k" },
  );
  assert.deepEqual(Object.keys(selected(v)).sort(), [
    "--collect-only/test_util_opt.py",
    "tests/test_$(touch PWNED)`touch PWNED2`.py",
    "tests/test_util.py",
  ]);
  assert.ok(ranIds(v).includes("--collect-only/test_util_opt.py::test_opt"), ranIds(v).join(" "));
  // The odd name reached pytest as one argument (it reports the file; nothing ran in a shell).
  assert.match(v.run?.exec.stdout ?? "", /test_\$\(touch PWNED\)`touch PWNED2`\.py/);
  for (const name of ["PWNED", "PWNED2"]) {
    assert.equal(existsSync(join(repo, name)), false);
    assert.equal(existsSync(join(job.states.pristineDir, name)), false);
  }
});

test("a test command that cannot be targeted runs the whole suite and says why", async () => {
  const repo = writeRepo({
    ...SHOP,
    ".github/auto-fix.yml": "test: python3 -m pytest -rA -p no:cacheprovider && echo done\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.equal(v.result.tests?.kind, "full");
  assert.match(v.result.tests?.why ?? "", /uses shell syntax.*whole suite runs/);
  assert.equal(v.run?.tests?.size, 6);
});

test("validation: full runs the whole suite after the selected tests, unless they already show a regression", async () => {
  const repo = writeRepo({ ...SHOP, ".github/auto-fix.yml": "validation: full\n" });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.mode, "full");
  const good = await validateEdit(sandbox, job, { "pkg/tax.py": ["price * 2", "price * 1.2"] });
  assert.equal(good.result.tests?.kind, "targeted+rest");
  assert.equal(good.run?.tests?.size, 6);
  assert.deepEqual(good.result.fixed, ["tests/test_tax.py::test_rate"]);
  const bad = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "min(lo"] });
  assert.equal(bad.result.status, "regressions");
  assert.equal(bad.result.tests?.kind, "targeted");
  assert.match(bad.result.tests?.notRun ?? "", /not run, the selected tests already show a regression/);
  // The whole unpatched suite ran once for the job (the first candidate), never again.
  assert.ok(job.states.tests.fullResult);
  assert.equal(bad.result.tests?.pristineRuns, 0, "the job's whole unpatched run answers for test_util");
  assert.equal(
    job.states.tests.runCount,
    3,
    "the tax tests in two batches (named after the module, then through the helper), the whole suite once",
  );
});

test("a patch that makes the selected tests hang is a regression, found long before the test time limit", async () => {
  const repo = writeRepo({ ...SHOP, ".github/auto-fix.yml": "validation:\n  budget: 0\n" });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.timeouts.testMs, 600_000);
  const v = await validateEdit(
    sandbox,
    job,
    { "pkg/util.py": ["return max(lo", "import time; time.sleep(3600); return max(lo"] },
    { slowdownGraceMs: 2_000 },
  );
  assert.equal(v.run?.exec.limit, "time");
  assert.equal(v.result.status, "regressions");
  assert.match(
    v.result.summary,
    /time limit after the patch but not before \(limit: 4× the .* plus 2\.0 s\)/,
  );
});

test("unittest: results no target owns (doctests a module adds) are not held against a single test run later", async () => {
  // tests.test_core adds the doctests of lib.core (ids like `lib.core.double`, which name no test module)
  // and has a test that fails on the unpatched tree. A later candidate runs that failing test by itself:
  // the doctests do not run then, and must not read as tests that "no longer run".
  const repo = writeRepo({
    "lib/__init__.py": "",
    "lib/core.py": 'def double(x):\n    """\n    >>> double(2)\n    4\n    """\n    return x * 2\n',
    "lib/other.py": "def one():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_core.py": [
      "import doctest",
      "import unittest",
      "import lib.core",
      "from lib.core import double",
      "",
      "class T(unittest.TestCase):",
      "    def test_double(self):",
      "        self.assertEqual(double(2), 4)",
      "",
      "    def test_environment(self):",
      "        self.fail('needs the network')",
      "",
      "def load_tests(loader, tests, pattern):",
      "    tests.addTests(doctest.DocTestSuite(lib.core))",
      "    return tests",
      "",
    ].join("\n"),
    "tests/test_other.py":
      "import unittest\nfrom lib.other import one\n\nclass O(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(one(), 1)\n",
    ".github/auto-fix.yml": "validation:\n  budget: 0\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const first = await validateEdit(sandbox, job, { "lib/core.py": ["return x * 2", "return x + x"] });
  assert.equal(first.result.status, "no-regressions", first.result.summary);
  assert.ok(
    first.run?.tests?.has("lib.core.double"),
    `the module's run includes its doctest: ${ranIds(first).join(", ")}`,
  );
  const later = await validateEdit(sandbox, job, { "lib/other.py": ["return 1", "return 2 - 1"] });
  assert.deepEqual(selected(later), {
    "tests.test_other": ["imports a changed module", "named after a changed module"],
    "tests.test_core.T.test_environment": ["failed before the patch"],
  });
  assert.equal(later.result.tests?.pristineRuns, 1, "test_environment's unpatched result is known");
  assert.deepEqual(later.result.regressions, []);
  assert.equal(later.result.status, "no-regressions", later.result.summary);
});
