/**
 * The budget for related tests holds during a batch: a batch whose tests overrun it is stopped at it,
 * both its unpatched and its patched run, and its tests are reported over the budget with why; what the
 * stopped unpatched run finished is kept for later candidates; a patched run that hangs is a regression
 * only when it is past its hang limit before the budget ends; tests that only failed before the patch
 * get at most a quarter of the budget. Real unittest and pytest in the real sandbox; the conditions are
 * made by tests that sleep far past the budgets, and only what ran, statuses and reasons are asserted.
 * Every budget leaves a sandboxed start of both runs of the quick tests a wide margin on a loaded 2-core
 * machine, and the conditions that must not hold in time (a hang limit before the budget) are set apart
 * from it by several times the runs' own length.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TestsRanSchema } from "../../src/contract/result.ts";
import { testsRunLines } from "../../src/report/test-names.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { prepareJob, ranIds, runs, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const unittestCase = (name: string, body: string, extra = "") =>
  `import time\nimport unittest\nfrom lib.core import double\n${extra}\n\nclass T(unittest.TestCase):\n    def ${name}(self):\n${body}\n`;

/**
 * Three modules that import `lib.core` directly, untimed: `test_a` is quick; `test_b_slow` prints a
 * quick test's result, then sleeps far past the budget; `test_c` is quick but ranks after them.
 */
const OVERRUN = {
  "lib/__init__.py": "",
  "lib/core.py": "def double(x):\n    return x * 2\n",
  "tests/__init__.py": "",
  "tests/test_a.py": unittestCase("test_double", "        self.assertEqual(double(2), 4)"),
  "tests/test_b_slow.py":
    "import time\nimport unittest\nfrom lib.core import double\n\n\nclass T(unittest.TestCase):\n    def test_a_quick(self):\n        self.assertEqual(double(1), 2)\n\n    def test_b_sleeps(self):\n        time.sleep(120)\n        self.assertEqual(double(3), 6)\n",
  "tests/test_c.py": unittestCase("test_zero", "        self.assertEqual(double(0), 0)"),
  ".github/auto-fix.yml": "validation:\n  related-budget: 10\n  budget: 0\n",
};

test("a batch of untimed tests that overruns the budget is stopped at it: its tests are over the budget with why, and what the unpatched run finished is kept", async () => {
  const job = await prepareJob(sandbox, writeRepo(OVERRUN));
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "unittest");
  const v = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "2 * x"] }, { parallel: true });
  // The three fit half the budget by their guesses and run as one batch; test_b_slow's sleep overruns
  // it, and both runs are stopped there (test_c never started).
  assert.deepEqual(runs(v), {
    "tests.test_a": "ran",
    "tests.test_b_slow": "over-budget",
    "tests.test_c": "over-budget",
  });
  const tests = TestsRanSchema.parse(v.result.tests);
  const why =
    /^stopped at the budget after [\d.]+ s of the patched run; their run on the unpatched tree did not finish either$/;
  for (const target of ["tests.test_b_slow", "tests.test_c"]) {
    const t = tests.selected.find((s) => s.target === target);
    assert.match(t?.reason ?? "", why);
    assert.ok(t?.stoppedAfterMs !== undefined);
  }
  // What both runs finished is compared: test_a's test, and not the quick test of the stopped module
  // (its unpatched run did not finish it).
  assert.equal(v.result.status, "passed");
  assert.deepEqual(v.result.regressions, []);
  assert.match(
    v.result.summary,
    /stopped at the budget after [\d.]+ s: only the tests both runs finished are compared/,
  );
  assert.ok(ranIds(v).includes("tests.test_a.T.test_double"));
  assert.match(
    tests.notRun ?? "",
    /^tests\.test_b_slow, tests\.test_c \(2 related tests, over the 10 s budget for related tests: stopped at the budget after [\d.]+ s of the patched run; their run on the unpatched tree did not finish either\)$/,
  );
  assert.match(
    testsRunLines(v.result).join("\n"),
    /- `tests\.test_b_slow`: imports a changed module.* — not run: the time given to related tests ran out \(stopped at the budget after [\d.]+ s of the patched run; their run on the unpatched tree did not finish either\)/,
  );

  // The stopped unpatched run kept test_a (finished before test_b_slow began): its results and time.
  const store = job.states.tests;
  assert.ok(store.times.measured("tests.test_a") !== undefined);
  assert.deepEqual(
    store.missing(["tests.test_a", "tests.test_b_slow", "tests.test_c"], () => null),
    ["tests.test_b_slow", "tests.test_c"],
  );
  // test_b_slow took at least the budget: given up, not tried again; test_a needs no unpatched run.
  assert.ok((store.times.atLeast("tests.test_b_slow") ?? 0) >= 10_000);
  const again = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "x + x"] }, { parallel: true });
  assert.deepEqual(runs(again), {
    "tests.test_a": "ran",
    "tests.test_b_slow": "unpatched-too-slow",
    "tests.test_c": "ran",
  });
  assert.equal(again.result.tests?.pristineRuns, 1, "only test_c runs on the unpatched tree");
  assert.equal(again.result.status, "passed");
});

test("one core: the unpatched run stopped at the budget leaves the patched run unstarted, and keeps what it finished", async () => {
  const job = await prepareJob(sandbox, writeRepo(OVERRUN));
  jobs.push(job.states);
  const v = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "2 * x"] }, { parallel: false });
  const tests = TestsRanSchema.parse(v.result.tests);
  assert.deepEqual(
    tests.selected.map((s) => [s.target, s.run]),
    [
      ["tests.test_a", "over-budget"],
      ["tests.test_b_slow", "over-budget"],
      ["tests.test_c", "over-budget"],
    ],
  );
  assert.match(
    tests.selected[0]?.reason ?? "",
    /^stopped at the budget after [\d.]+ s: their run on the unpatched tree did not finish, so the patched run did not start$/,
  );
  assert.equal(v.result.status, "no-tests");
  assert.equal(v.run, null);
  assert.ok(job.states.tests.times.measured("tests.test_a") !== undefined);
});

/** A module whose one test runs `double` on 2: a patch can make that hang. */
const HANG = {
  "lib/__init__.py": "",
  "lib/core.py": "import time\n\n\ndef double(x):\n    return x * 2\n",
  "tests/__init__.py": "",
  "tests/test_core.py": unittestCase("test_double", "        self.assertEqual(double(2), 4)"),
  ".github/auto-fix.yml": "validation:\n  related-budget: 12\n  budget: 0\n",
};
const HANGING_PATCH: Record<string, [string, string]> = {
  "lib/core.py": ["    return x * 2", "    while x == 2:\n        time.sleep(1)\n    return x * 2"],
};

test("a patched hang on the first test: a regression when its hang limit comes before the budget ends, over the budget (with the unpatched time) when the budget ends first", async () => {
  const job = await prepareJob(sandbox, writeRepo(HANG));
  jobs.push(job.states);
  // The job times the test on the unpatched tree (a fraction of a second).
  const first = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "2 * x"] });
  assert.equal(first.result.status, "passed");
  const unpatched = job.states.tests.times.measured("tests.test_core");
  assert.ok(unpatched !== undefined && unpatched < 3000, String(unpatched));

  // Hang limit 4× that plus a 0.5 s grace: before the 12 s budget (15 s for a first batch) ends.
  const caught = await validateEdit(sandbox, job, HANGING_PATCH, { slowdownGraceMs: 500 });
  assert.equal(caught.result.status, "regressions");
  assert.deepEqual(caught.result.regressions, [
    "tests.test_core (did not finish: its batch ran past 4× the time it took before the patch, plus 0.5 s)",
  ]);
  assert.equal(runs(caught)["tests.test_core"], "ran");

  // A grace that puts the hang limit past the budget: the budget stops the run first. That is no
  // evidence of a hang by the rule, so not a regression; the report says how long it ran against how
  // long it took unpatched.
  const stopped = await validateEdit(sandbox, job, HANGING_PATCH, { slowdownGraceMs: 60_000 });
  assert.notEqual(stopped.result.status, "regressions");
  const t = TestsRanSchema.parse(stopped.result.tests).selected[0]!;
  assert.equal(t.run, "over-budget");
  assert.equal(t.unpatchedMs, Math.round(unpatched));
  assert.ok(t.stoppedAfterMs !== undefined && t.stoppedAfterMs >= 4 * unpatched);
  assert.match(
    t.reason ?? "",
    /^stopped at the budget after [\d.]+ s of the patched run(, with 0 of the 1 test results the unpatched run gave)?; the same tests took [\d.]+ s before the patch \(\d+× as long already: the patch may make them hang or run far slower\)$/,
  );
  assert.match(testsRunLines(stopped.result).join("\n"), /the patch may make them hang or run far slower/);
});

test("the most related test file runs although its unpatched run took longer than the budget: it is never dropped for its own length", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({
      ...HANG,
      "tests/test_core.py": unittestCase(
        "test_double",
        "        time.sleep(5)\n        self.assertEqual(double(2), 4)",
      ),
      ".github/auto-fix.yml": "validation:\n  related-budget: 4\n  budget: 0\n",
    }),
  );
  jobs.push(job.states);
  const roomy = {
    states: job.states,
    config: { ...job.config, validation: { ...job.config.validation, relatedBudgetMs: 600_000 } },
  };
  await validateEdit(sandbox, roomy, { "lib/core.py": ["x * 2", "2 * x"] });
  assert.ok((job.states.tests.times.measured("tests.test_core") ?? 0) > 4000);
  const v = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "x + x"] });
  const t = TestsRanSchema.parse(v.result.tests).selected[0]!;
  assert.equal(t.target, "tests.test_core");
  assert.equal(t.run, "ran", t.reason ?? "");
  assert.ok(v.run, "the most related file ran");
  assert.equal(v.result.status, "passed", v.result.summary);
});

/**
 * pytest: `test_core.py` is named after `lib/core.py`; four tests that fail (each after 1.5 s) import
 * only `lib/other.py`.
 */
const FAILING = {
  "pytest.ini": "[pytest]\n",
  "lib/__init__.py": "",
  "lib/core.py": "def one():\n    return 1\n",
  "lib/other.py": "def two():\n    return 2\n",
  "tests/__init__.py": "",
  "tests/test_core.py": "from lib.core import one\n\ndef test_one():\n    assert one() == 1\n",
  ...Object.fromEntries(
    [1, 2, 3, 4].map((i) => [
      `tests/test_f${i}.py`,
      "import time\nfrom lib.other import two\n\ndef test_f():\n    time.sleep(1.5)\n    assert two() == 3\n",
    ]),
  ),
};
const FAILED_IDS = [1, 2, 3, 4].map((i) => `tests/test_f${i}.py::test_f`);

test("tests that only failed before the patch get at most a quarter of the budget", async () => {
  const outcome = async (budgetS: number) => {
    const job = await prepareJob(
      sandbox,
      writeRepo({
        ...FAILING,
        ".github/auto-fix.yml": `validation:\n  related-budget: ${budgetS}\n  budget: 0\n`,
      }),
    );
    jobs.push(job.states);
    // A first candidate on lib/other.py runs the four on the unpatched tree (with room): they fail.
    const roomy = {
      states: job.states,
      config: { ...job.config, validation: { ...job.config.validation, relatedBudgetMs: 600_000 } },
    };
    const other = await validateEdit(sandbox, roomy, { "lib/other.py": ["return 2", "return 1 + 1"] });
    assert.deepEqual(Object.values(runs(other)), ["ran", "ran", "ran", "ran"]);
    assert.deepEqual(
      job.states.tests
        .knownFailures()
        .map((f) => f.id)
        .sort(),
      FAILED_IDS,
    );
    // A candidate on lib/core.py: its namesake, then the four as failed before the patch (nothing else
    // relates them), each measured at 1.5 s and more.
    const v = await validateEdit(sandbox, job, { "lib/core.py": ["return 1", "return 0 + 1"] });
    assert.deepEqual(
      v.result.tests?.selected.map((s) => [s.target, s.reasons]),
      [
        ["tests/test_core.py", ["imports a changed module", "named after a changed module"]],
        ...FAILED_IDS.map((id) => [id, ["failed before the patch"]]),
      ],
    );
    assert.equal(runs(v)["tests/test_core.py"], "ran");
    return FAILED_IDS.map((id) => runs(v)[id]);
  };
  // 10 s: a quarter (2.5 s) has room for one of them at most, though the budget has room for all four.
  const tight = await outcome(10);
  assert.ok(tight.filter((r) => r === "ran").length <= 1, tight.join(" "));
  assert.ok(tight.filter((r) => r === "over-budget").length >= 3, tight.join(" "));
  // 240 s: a quarter (60 s) has room for all four, even when load makes them several times slower.
  assert.deepEqual(await outcome(240), ["ran", "ran", "ran", "ran"]);
});

test("a patched run stopped at the budget far behind its unpatched run is shown as a possible hang, not judged as one", async () => {
  // One module: a quick test, one that a patch can make hang, ten quick ones, and one of 4 s.
  const quick = Array.from(
    { length: 10 },
    (_, i) => `    def test_m${i}(self):\n        self.assertEqual(double(${i}), ${2 * i})\n`,
  ).join("\n");
  const job = await prepareJob(
    sandbox,
    writeRepo({
      ...HANG,
      "tests/test_core.py": `import time\nimport unittest\nfrom lib.core import double\n\n\nclass T(unittest.TestCase):\n    def test_a0(self):\n        self.assertEqual(double(1), 2)\n\n    def test_a1(self):\n        self.assertEqual(double(2), 4)\n\n${quick}\n    def test_z(self):\n        time.sleep(4)\n`,
    }),
  );
  jobs.push(job.states);
  const first = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "2 * x"] });
  assert.equal(first.result.status, "passed");
  assert.equal(first.run?.tests?.size, 13);
  // The hang limit (4× some 4 s, plus a 60 s grace) is past the 12 s budget (15 s for a first batch):
  // the budget stops the run, at about 3× the unpatched time, with 1 result of 13.
  const v = await validateEdit(sandbox, job, HANGING_PATCH, { slowdownGraceMs: 60_000 });
  // The one test both runs finished passed, but it judges no module: the candidate is not validated.
  assert.equal(v.result.status, "no-tests");
  const t = TestsRanSchema.parse(v.result.tests).selected[0]!;
  assert.equal(t.run, "over-budget");
  assert.match(
    t.reason ?? "",
    /^stopped at the budget after [\d.]+ s of the patched run, with 1 of the 13 test results the unpatched run gave; the same tests took [\d.]+ s before the patch \((far behind the unpatched run|\d+× as long already): the patch may make them hang or run far slower\)$/,
  );
});

test("a regression in the part of a patched run before the budget stopped it is a regression", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({
      ...HANG,
      "tests/test_core.py":
        "import unittest\nfrom lib.core import double\n\n\nclass T(unittest.TestCase):\n    def test_a0(self):\n        self.assertEqual(double(1), 2)\n\n    def test_a1(self):\n        self.assertEqual(double(3), 6)\n",
    }),
  );
  jobs.push(job.states);
  const first = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "2 * x"] });
  assert.equal(first.result.status, "passed");
  // The patch breaks double(1) and makes double(3) hang: the first test fails, then the run is stuck
  // until the budget (the hang limit is past it with a 60 s grace).
  const v = await validateEdit(
    sandbox,
    job,
    { "lib/core.py": ["    return x * 2", "    while x == 3:\n        time.sleep(1)\n    return x * 3"] },
    { slowdownGraceMs: 60_000 },
  );
  assert.equal(v.result.status, "regressions");
  assert.deepEqual(v.result.regressions, ["tests.test_core.T.test_a0"]);
  assert.match(
    v.result.summary,
    /stopped at the budget after [\d.]+ s: only the tests both runs finished are compared/,
  );
  assert.equal(runs(v)["tests.test_core"], "ran");
});
