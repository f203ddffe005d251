/**
 * The related tests of a candidate run in rank order within its budget (`validation.related-budget`):
 * ranking, the cut and its report lines, a regression still caught when the budget cuts the tail, and
 * the unpatched/patched runs of a batch side by side or one after the other with the same outcome. Real
 * pytest and unittest in the real sandbox; the cut is made certain by tests that sleep well past the
 * budget, never by timing assertions.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TestsRanSchema } from "../../src/contract/result.ts";
import { testsRunLines } from "../../src/report/test-names.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import {
  rankTests,
  type SelectedTest,
  TestTimes,
  tierOf,
  type TreeStates,
} from "../../src/validate/index.ts";
import { prepareJob, ranIds, runs, selected, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

test("ranking: named after the change, named by the reproducer or model, direct importers, then through helpers, then failed-before only", () => {
  const t = (target: string, reasons: SelectedTest["reasons"], depth?: number): SelectedTest => ({
    target,
    reasons,
    ...(depth !== undefined ? { depth } : {}),
  });
  const tests = [
    t("tests/test_z_failed.py::test_x", ["failed-before"]),
    t("tests/test_helper_user.py", ["imports-changed"], 2),
    t("tests/test_pkg_user.py", ["imports-changed"], 1),
    t("tests/test_direct_slow.py", ["imports-changed"], 0),
    t("tests/test_direct_fast.py", ["imports-changed"], 0),
    t("tests/test_named.py", ["named-by-reproducer"]),
    t("tests/test_core.py", ["failed-before", "imports-changed", "named-after-changed"], 0),
  ];
  assert.deepEqual(
    tests.map(tierOf),
    [4, 3, 3, 2, 2, 1, 0],
    "failed-before counts only when nothing else relates the test",
  );
  const times: Record<string, number> = {
    "tests/test_direct_slow.py": 30_000,
    "tests/test_direct_fast.py": 300,
  };
  const ranked = rankTests(tests, (x) => times[x.target] ?? 1000);
  assert.deepEqual(
    ranked.map((r) => r.test.target),
    [
      "tests/test_core.py",
      "tests/test_named.py",
      "tests/test_direct_fast.py",
      "tests/test_direct_slow.py",
      "tests/test_pkg_user.py",
      "tests/test_helper_user.py",
      "tests/test_z_failed.py::test_x",
    ],
  );
  // Named only after the package of the change (`test_asyncio/` for asyncio/threads.py): a direct tie,
  // not a namesake.
  assert.equal(tierOf({ target: "t", reasons: ["named-after-changed"], named: "package" }), 2);
  assert.equal(tierOf({ target: "t", reasons: ["named-after-changed"], named: "module" }), 0);
  // Times within one size class do not reorder tests: the name decides.
  const close = rankTests([t("b.py", ["imports-changed"]), t("a.py", ["imports-changed"])], (x) =>
    x.target === "a.py" ? 700 : 600,
  );
  assert.deepEqual(
    close.map((r) => r.test.target),
    ["a.py", "b.py"],
  );
});

test("estimates: a run of one target is its time, a run of several is shared by their tests, guesses scale with what was measured", () => {
  const times = new TestTimes();
  const run = (ms: number, ids: string[]) => ({
    command: "x",
    exec: {
      exitCode: 0,
      signal: null,
      stdout: "",
      stderr: "",
      truncated: false,
      limit: null,
      durationMs: ms,
      backend: "none" as const,
    },
    tests: new Map(ids.map((id) => [id, "passed" as const])),
    parser: "pytest",
    passed: ids.length,
    failed: 0,
    skipped: 0,
  });
  const owner = (id: string) => id.split("::")[0] ?? null;
  times.record(["a.py"], run(2000, ["a.py::t1"]), owner, () => 1);
  assert.equal(times.measured("a.py"), 2000);
  // Measured 2000 ms against a guess of 440 ms: unmeasured targets are guessed ~4.5× longer.
  assert.ok(Math.abs(times.scale - 2000 / TestTimes.guess(1)) < 1e-9);
  assert.equal(times.estimate("c.py", 1), TestTimes.guess(1) * times.scale);
  // b ran 9 tests, c 1: b gets the larger share of the run.
  times.record(
    ["b.py", "c.py"],
    run(1000, [...Array.from({ length: 9 }, (_, i) => `b.py::t${i}`), "c.py::t"]),
    owner,
    () => 1,
  );
  assert.ok((times.measured("b.py") ?? 0) > (times.measured("c.py") ?? 0));
  assert.equal(Math.round((times.measured("b.py") ?? 0) + (times.measured("c.py") ?? 0)), 1000);
  // A run that hit a limit measures nothing.
  times.record(["d.py"], { ...run(50, []), exec: { ...run(50, []).exec, limit: "time" } }, owner, () => 1);
  assert.equal(times.measured("d.py"), undefined);
});

/**
 * A library whose `util` no test is named after: a fast importer, two slow ones (each sleeping
 * `sleepS` seconds).
 */
const slowRepo = (sleepS: number) => ({
  "pytest.ini": "[pytest]\n",
  "pkg/__init__.py": "",
  "pkg/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
  "tests/__init__.py": "",
  "tests/test_alpha.py": "from pkg.util import clamp\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n",
  "tests/test_slow_one.py": `import time\nfrom pkg.util import clamp\n\ndef test_slow():\n    time.sleep(${sleepS})\n    assert clamp(1, 0, 3) == 1\n`,
  "tests/test_slow_two.py": `import time\nfrom pkg.util import clamp\n\ndef test_slow():\n    time.sleep(${sleepS})\n    assert clamp(-1, 0, 3) == 0\n`,
  "tests/test_other.py": "def test_other():\n    assert True\n",
});
/**
 * The budget of the tests below: long enough for several sandboxed pytest starts, unpatched and patched,
 * on a heavily loaded 2-core machine (the first batch gets 1.25× it), with the slow tests sleeping as
 * long, so their measured share always leaves them out; under twice the start-up grace, so that the
 * budget is the only limit (no file has an allowance of its own, see schedule.ts).
 */
const BUDGET_S = 19;
const SLOW = slowRepo(BUDGET_S);
const QUICK = slowRepo(0.2);

test("the budget for related tests: past it the slower related tests are left out and named; a regression is still caught by the tests that ran", async () => {
  const repo = writeRepo({
    ...SLOW,
    ".github/auto-fix.yml": `validation:\n  related-budget: ${BUDGET_S}\n  budget: 0\n`,
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.relatedBudgetMs, BUDGET_S * 1000);
  // A first candidate with room for everything: the job learns how long each test takes unpatched.
  const roomy = {
    states: job.states,
    config: { ...job.config, validation: { ...job.config.validation, relatedBudgetMs: 600_000 } },
  };
  const first = await validateEdit(sandbox, roomy, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.equal(first.result.status, "passed");
  assert.deepEqual(Object.values(runs(first)), ["ran", "ran", "ran"]);
  // One batch of three: its time (two sleeps of BUDGET_S at least) is shared by the tests each ran.
  const measured = ["tests/test_alpha.py", "tests/test_slow_one.py", "tests/test_slow_two.py"].map(
    (t) => job.states.tests.times.measured(t) ?? 0,
  );
  assert.ok(measured[0]! + measured[1]! + measured[2]! >= 2 * BUDGET_S * 1000, measured.join(" "));
  assert.ok(measured[1]! > (BUDGET_S * 1000) / 3 && measured[2]! > (BUDGET_S * 1000) / 3, measured.join(" "));

  // Within the budget: the fast importer runs (the first test always does); the slow ones (a third of
  // the batch's twice-the-budget and more each, as the job shared it out: two such shares are past the
  // budget) are over the budget, and the report says which and why.
  const ok = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max(  lo"] });
  assert.deepEqual(runs(ok), {
    "tests/test_alpha.py": "ran",
    "tests/test_slow_one.py": "over-budget",
    "tests/test_slow_two.py": "over-budget",
  });
  assert.deepEqual(ranIds(ok), ["tests/test_alpha.py::test_clamp"]);
  assert.equal(ok.result.status, "passed");
  assert.equal(ok.result.tests?.pristineRuns, 0);
  // Both slow tests are named as over the budget: left out by their measured time or, on a machine
  // slow enough that the first one's share seemed to fit, tried and stopped at the budget.
  const notRun = ok.result.tests?.notRun ?? "";
  const bothLeftOut =
    "tests/test_slow_one.py, tests/test_slow_two.py (2 related tests, over the 19 s budget for related tests, validation.related-budget)";
  const oneStopped =
    /^tests\/test_slow_one\.py \(1 related test, over the 19 s budget for related tests: stopped at the budget after [\d.]+ s of the patched run; the same tests took [\d.]+ s before the patch\); tests\/test_slow_two\.py \(1 related test, over the 19 s budget for related tests, validation\.related-budget\)/;
  assert.ok(notRun.startsWith(bothLeftOut) || oneStopped.test(notRun), notRun);
  assert.ok(
    notRun.endsWith(
      "; the other 1 test of the suite: not run, the related tests already took the budget for related tests",
    ),
    notRun,
  );
  // The result contract carries it, and the report shows every selected test with whether it ran.
  const lines = testsRunLines(ok.result).join("\n");
  assert.match(lines, /in the order they ran \(those best able to show a regression first, within 19 s\)/);
  assert.match(
    lines,
    /- `tests\/test_slow_one\.py`: imports a changed module \(`pkg\/util\.py`\) — not run: the time given to related tests ran out/,
  );
  assert.match(
    lines,
    /^Not run: tests\/test\\_slow\\_one\.py(, tests\/test\\_slow\\_two\.py \(2 related tests| \(1 related test), past the 19 s given to related tests/m,
  );
  const tests = TestsRanSchema.parse(ok.result.tests);
  assert.equal(tests.selected[1]?.run, "over-budget");
  assert.equal(tests.relatedBudgetMs, BUDGET_S * 1000);

  // A regression that the fast importer shows is caught although the budget cuts the slow tail.
  const bad = await validateEdit(sandbox, job, {
    "pkg/util.py": ["max(lo, min(x, hi))", "min(lo, max(x, hi))"],
  });
  assert.equal(bad.result.status, "regressions");
  assert.deepEqual(bad.result.regressions, ["tests/test_alpha.py::test_clamp"]);
  assert.deepEqual(runs(bad), {
    "tests/test_alpha.py": "ran",
    "tests/test_slow_one.py": "over-budget",
    "tests/test_slow_two.py": "over-budget",
  });
  assert.match(bad.result.tests?.notRun ?? "", /over the 19 s budget for related tests/);
});

test("validation: full runs every related test whatever the budget, then the whole suite", async () => {
  const repo = writeRepo({
    ...QUICK,
    ".github/auto-fix.yml": "validation:\n  mode: full\n  related-budget: 1\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.deepEqual(Object.values(runs(v)), ["ran", "ran", "ran"]);
  assert.equal(v.result.tests?.kind, "targeted+rest");
  assert.equal(v.result.tests?.notRun, null);
  assert.equal(v.run?.tests?.size, 4);
});

test("unpatched and patched runs side by side or one after the other: the same tests, the same verdict", async () => {
  const files = {
    "lib/__init__.py": "",
    "lib/core.py": "def double(x):\n    return x * 2\n",
    "tests/__init__.py": "",
    "tests/test_core.py":
      "import unittest\nfrom lib.core import double\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n\n    def test_zero(self):\n        self.assertEqual(double(0), 0)\n",
    "tests/test_use.py":
      "import unittest\nimport lib.core\n\nclass U(unittest.TestCase):\n    def test_use(self):\n        self.assertEqual(lib.core.double(1), 2)\n",
  };
  const verdicts: unknown[] = [];
  for (const parallel of [true, false]) {
    const job = await prepareJob(
      sandbox,
      writeRepo({ ...files, ".github/auto-fix.yml": "validation:\n  budget: 0\n" }),
    );
    jobs.push(job.states);
    const v = await validateEdit(sandbox, job, { "lib/core.py": ["x * 2", "x + 2"] }, { parallel });
    verdicts.push({
      status: v.result.status,
      regressions: v.result.regressions,
      runs: runs(v),
      ran: ranIds(v),
    });
    assert.equal(v.result.tests?.pristineRuns, 1);
  }
  assert.deepEqual(verdicts[0], verdicts[1]);
  assert.deepEqual(verdicts[0], {
    status: "regressions",
    regressions: ["tests.test_core.T.test_zero"],
    runs: { "tests.test_core": "ran", "tests.test_use": "after-regression" },
    ran: ["tests.test_core.T.test_double", "tests.test_core.T.test_zero"],
  });
});

test("selected tests are listed with their reasons in rank order", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({ ...QUICK, ".github/auto-fix.yml": "validation:\n  budget: 0\n" }),
  );
  jobs.push(job.states);
  const v = await validateEdit(
    sandbox,
    job,
    { "pkg/util.py": ["max(lo", "max( lo"] },
    { modelText: "see test_slow_two.py" },
  );
  assert.deepEqual(Object.keys(selected(v))[0], "tests/test_slow_two.py", "named by the model: ranked first");
});

test("a test whose unpatched run is stopped after the whole budget is given up for the job, and said so", async () => {
  const repo = writeRepo({
    "pytest.ini": "[pytest]\n",
    "pkg/__init__.py": "",
    "pkg/util.py": "def one():\n    return 1\n",
    "tests/__init__.py": "",
    // Named after the change, so it runs first; it waits far longer than any budget here.
    "tests/test_util.py":
      "import time\nfrom pkg.util import one\n\ndef test_one():\n    time.sleep(120)\n    assert one() == 1\n",
    "tests/test_quick.py": "from pkg.util import one\n\ndef test_quick():\n    assert one() == 1\n",
    // A budget that a sandboxed pytest start (both runs of the quick test) fits on a loaded machine.
    ".github/auto-fix.yml": `validation:\n  related-budget: ${BUDGET_S}\n  budget: 0\n`,
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(
    sandbox,
    job,
    { "pkg/util.py": ["return 1", "return 0 + 1"] },
    { parallel: true },
  );
  // Its batch (alone, or with the quick test after it) is stopped at the budget, both runs.
  const util = v.result.tests?.selected.find((s) => s.target === "tests/test_util.py");
  assert.equal(util?.run, "over-budget");
  assert.match(
    util?.reason ?? "",
    /^stopped at the budget after [\d.]+ s of the patched run; their run on the unpatched tree did not finish either$/,
  );
  assert.ok(!ranIds(v).includes("tests/test_util.py::test_one"));
  assert.notEqual(v.result.status, "regressions", "a run stopped at the budget is no regression");
  // What it took unpatched at least is known: at least the budget, so no candidate can run it again.
  assert.ok((job.states.tests.times.atLeast("tests/test_util.py") ?? 0) >= BUDGET_S * 1000);
  const runsBefore = job.states.tests.runCount;
  const again = await validateEdit(sandbox, job, { "pkg/util.py": ["return 1", "return 1 + 0"] });
  assert.equal(runs(again)["tests/test_util.py"], "unpatched-too-slow");
  assert.match(
    again.result.tests?.notRun ?? "",
    /^tests\/test_util\.py \(1 related test, could not be judged here \(timed out before the patch\): their run on the unpatched tree did not finish within [\d.]+ s, at least the budget, so they are given up for this job\)/,
  );
  assert.match(
    testsRunLines(again.result).join("\n"),
    /test_util\.py`.* — could not be judged here \(timed out before the patch\), not run after it \(its run on the unpatched tree was stopped after [\d.]+ s, not finished\)/,
  );
  // The quick test ran and judged the patch; only it needed an unpatched run.
  assert.equal(runs(again)["tests/test_quick.py"], "ran");
  assert.equal(again.result.status, "passed");
  assert.ok(job.states.tests.runCount - runsBefore <= 1, "only test_quick may still need its unpatched run");
});
