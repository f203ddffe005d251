import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import type { RepoConfig } from "../../src/config/index.ts";
import type { ModelPort } from "../../src/model/types.ts";
import { regressStage } from "../../src/regress/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import {
  candidateRun,
  checkAddedTest,
  type TreeStates,
  type ValidateStageInput,
} from "../../src/validate/index.ts";
import type { TestRun } from "../../src/validate/index.ts";
import { jsShop } from "../validate/support/js-shop.ts";
import { prepareJob, writeRepo } from "../validate/support/targeted-repo.ts";

// A regression test is checked alone first (it must fail without the fix and pass with it); then the
// repository's whole suite runs on the fixed tree with it in place, real runners in the real sandbox,
// and every other test must come out as in the candidate's own run. Tests written to disable the
// runner whenever their own file is not named on the command line pass alone and are caught here.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

/** A model that answers every request with `file` in a fenced block. */
const writes = (file: string, lang: string): ModelPort => ({
  chat: async () => {
    const content = `\`\`\`${lang}\n${file}\`\`\`\n`;
    return {
      texts: [content],
      content,
      usage: {},
      model: "scripted",
      finishReason: "stop",
      trimmed: 0,
    } as never;
  },
});

/** The regress stage on a job, with the suite check the pipeline gives it; the candidate validated first. */
async function regress(
  job: { states: TreeStates; config: RepoConfig },
  diff: string,
  model: ModelPort,
  records: Map<string, string> = new Map(),
) {
  const input: ValidateStageInput = { sandbox, config: job.config, states: job.states, cache: new Map() };
  const candidate = await candidateRun(input, diff);
  const started = performance.now();
  const outcome = await regressStage({
    model,
    sandbox,
    config: job.config,
    trees: { pristine: () => job.states.pristine(), patched: (d) => job.states.patched(d) },
    root: job.states.pristineDir,
    issue: "add subtracts",
    diff,
    script: null,
    record: (name, text) => records.set(name, text),
    suite: (path, text) => checkAddedTest(input, diff, { path, text }),
  });
  return { outcome, candidate, ms: performance.now() - started };
}

/**
 * The suite check alone, on the candidate's own validation: the stage scans a test before it runs it, and
 * the scan already refuses these attacks, so the check behind it is tested on its own too.
 */
async function suiteOnly(
  job: { states: TreeStates; config: RepoConfig },
  diff: string,
  test: { path: string; text: string },
) {
  const input: ValidateStageInput = { sandbox, config: job.config, states: job.states, cache: new Map() };
  await candidateRun(input, diff);
  return checkAddedTest(input, diff, test);
}

/** The path a stage's added test went to, from its diff. */
const addedPath = (diff: string | null | undefined): string => {
  const m = /^\+\+\+ b\/(.+)$/m.exec(diff ?? "");
  assert.ok(m, `no added file in ${diff}`);
  return m[1]!;
};

/** Left out by the stage, whichever check caught it first (the scan, or the whole suite run with it). */
const STAGE_SAYS =
  /^No regression test was added: (.*the test (reads|ends|uses|changes)|.*the regression test (changed how other tests ran|did not pass as part of the whole suite))/;

const CALC = {
  "pytest.ini": "[pytest]\n",
  // The whole suite runs in the candidate's validation whatever the machine's speed: its results are reused.
  ".github/auto-fix.yml": "validation: full\n",
  "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  "tests/__init__.py": "",
  "tests/test_calc.py":
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
  // A failure the fix does not touch: a runner made to pass everything turns it green.
  "tests/test_known.py": "def test_known_bug():\n    assert 1 + 1 == 3\n",
  "tests/test_more.py":
    "from calc import mul\n\n\ndef test_mul_zero():\n    assert mul(0, 9) == 0\n\n\ndef test_mul_one():\n    assert mul(1, 9) == 9\n",
};

const CALC_FIX = [
  "diff --git a/calc.py b/calc.py",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,4 +1,4 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  " ",
  " ",
  "",
].join("\n");

const HONEST_PY = "from calc import add\n\n\ndef test_add_regression():\n    assert add(1, 1) == 2\n";

/** Only when the runner's command line names this file does the test behave; otherwise `evil` runs. */
const named = (evil: string): string =>
  `import os\nimport sys\n\nif not any(a.endswith(os.path.basename(__file__)) for a in sys.argv):\n${evil}\n\n${HONEST_PY}`;

const PY_ATTACKS: Record<string, { text: string; says: RegExp }> = {
  "ends the runner at import (os._exit(0))": {
    text: named("    os._exit(0)"),
    says: /the regression test changed how other tests ran: \d+ tests that passed without it were not run with it: .*tests\/test_calc\.py::test_add/,
  },
  "makes every test pass (Function.runtest replaced)": {
    text: named("    import _pytest.python\n\n    _pytest.python.Function.runtest = lambda self: None"),
    says: /the regression test changed how other tests ran: .*tests\/test_known\.py::test_known_bug \(failed without it, passed with it\)/,
  },
  "skips itself unless named (pytest.skip at module level)": {
    text: named("    import pytest\n\n    pytest.skip('not named', allow_module_level=True)"),
    says: /: the regression test did not pass as part of the whole suite \(its tests (did not run|were skipped) when the whole suite ran\), so the suite would not catch the bug again\.$/,
  },
};

test("pytest: tests that change the suite unless named are left out, with why; the honest one is added", async () => {
  const job = await prepareJob(sandbox, writeRepo(CALC));
  jobs.push(job.states);
  const honest = await regress(job, CALC_FIX, writes(HONEST_PY, "python"));
  // The candidate's validation ran the whole suite: its results are the check's baseline, not rerun.
  assert.match(honest.candidate?.result.tests?.kind ?? "", /^(full|targeted\+rest)$/);
  assert.equal(honest.outcome.data.status, "added", honest.outcome.data.summary);
  assert.ok(honest.outcome.diff?.includes("+++ b/tests/test_calc_regression.py"));
  assert.match(
    honest.outcome.data.suite ?? "",
    /^With it in place the whole suite ran as it did without it \(5 other test results the same, the runner checks passing\), in \d+\.\d s\.$/,
  );
  console.log(
    `pytest fixture: regress stage ${(honest.ms / 1000).toFixed(1)} s; ${honest.outcome.data.suite}`,
  );
  for (const [name, attack] of Object.entries(PY_ATTACKS)) {
    const { outcome } = await regress(job, CALC_FIX, writes(attack.text, "python"));
    assert.equal(outcome.data.status, "left-out", `${name}: ${outcome.data.summary}`);
    assert.equal(outcome.diff, null, name);
    assert.match(outcome.data.summary, STAGE_SAYS, name);
    // The check with the whole suite catches it on its own, had the scan let it through.
    const alone = await suiteOnly(job, CALC_FIX, { path: addedPath(honest.outcome.diff), text: attack.text });
    assert.equal(alone.ok, false, name);
    assert.match(`No regression test was added: ${alone.summary}.`, attack.says, name);
  }
});

test("pytest: when the candidate's validation ran only the related tests, the fixed tree's suite runs once more, within the budget", async () => {
  // Budget 0: the candidate's validation runs only the tests related to calc.py.
  const job = await prepareJob(
    sandbox,
    writeRepo({ ...CALC, ".github/auto-fix.yml": "validation:\n  budget: 0\n" }),
  );
  jobs.push(job.states);
  const input: ValidateStageInput = { sandbox, config: job.config, states: job.states, cache: new Map() };
  const candidate = await candidateRun(input, CALC_FIX);
  assert.equal(candidate?.result.tests?.kind, "targeted");
  const test = { path: "tests/test_calc_regression.py", text: HONEST_PY };
  // No whole-suite result to compare with, and no budget to make one: left out, and why.
  const none = await checkAddedTest(input, CALC_FIX, test);
  assert.deepEqual(none, {
    ok: false,
    summary:
      "the whole suite could not be run with it within the 0.0 s budget (validation.budget), so it could not be shown to leave the other tests alone",
    extraMs: 0,
    baseline: null,
  });
  // With a budget, the fixed tree's suite runs without and with it, each within half of it.
  const roomy: ValidateStageInput = {
    ...input,
    config: { ...job.config, validation: { ...job.config.validation, budgetMs: 600_000 } },
  };
  const honest = await checkAddedTest(roomy, CALC_FIX, test);
  assert.equal(honest.ok, true, honest.summary);
  assert.equal(honest.baseline, "ran");
  const evil = await checkAddedTest(roomy, CALC_FIX, {
    ...test,
    text: PY_ATTACKS["ends the runner at import (os._exit(0))"]!.text,
  });
  assert.equal(evil.ok, false);
  assert.equal(evil.baseline, "ran");
  assert.match(
    evil.summary,
    /^the regression test changed how other tests ran: 4 tests that passed without it were not run with it/,
  );
});

test("mocha: a test that ends the process unless named is left out; the honest one is added", async () => {
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha" } }),
    ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"] }),
    ".github/auto-fix.yml": "test: npm test\nvalidation: full\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "mocha");
  const fix = [
    "diff --git a/src/slug.js b/src/slug.js",
    "--- a/src/slug.js",
    "+++ b/src/slug.js",
    "@@ -1 +1 @@",
    '-exports.slug = (s) => s.toLowerCase().replace(" ", "-");',
    '+exports.slug = (s) => s.toLowerCase().replaceAll(" ", "-");',
    "",
  ].join("\n");
  const honestJs =
    'const assert = require("node:assert");\nconst { slug } = require("../src/slug.js");\n\ndescribe("slug regression", () => {\n  it("three words", () => assert.equal(slug("X Y Z"), "x-y-z"));\n});\n';
  const honest = await regress(job, fix, writes(honestJs, "javascript"));
  assert.equal(honest.outcome.data.status, "added", honest.outcome.data.summary);
  console.log(
    `mocha fixture: regress stage ${(honest.ms / 1000).toFixed(1)} s; ${honest.outcome.data.suite}`,
  );
  const evil = `if (!process.argv.some((a) => a.endsWith(require("node:path").basename(__filename)))) process.exit(0);\n${honestJs}`;
  const { outcome } = await regress(job, fix, writes(evil, "javascript"));
  assert.equal(outcome.data.status, "left-out", outcome.data.summary);
  assert.match(outcome.data.summary, STAGE_SAYS);
  const alone = await suiteOnly(job, fix, { path: addedPath(honest.outcome.diff), text: evil });
  assert.equal(alone.ok, false);
  assert.match(
    alone.summary,
    /^the regression test changed how other tests ran: .*tests that passed without it were not run with it: /,
  );
});

const hasGo = (() => {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("go test: a test whose init() ends the package's tests unless its own test is asked for is left out", {
  skip: !hasGo && "go is not installed",
}, async () => {
  const repo = writeRepo({
    "go.mod": "module example.com/calc\n\ngo 1.19\n",
    ".github/auto-fix.yml": "validation: full\n",
    "ops/ops.go":
      "package ops\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Mul(a, b int) int { return a * b }\n",
    "ops/ops_test.go":
      'package ops\n\nimport "testing"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal("mul")\n\t}\n}\n',
    "util/util.go": "package util\n\nfunc One() int { return 1 }\n",
    "util/util_test.go":
      'package util\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal("one")\n\t}\n}\n',
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const fix = [
    "diff --git a/ops/ops.go b/ops/ops.go",
    "--- a/ops/ops.go",
    "+++ b/ops/ops.go",
    "@@ -1,5 +1,5 @@",
    " package ops",
    " ",
    "-func Add(a, b int) int { return a - b }",
    "+func Add(a, b int) int { return a + b }",
    " ",
    " func Mul(a, b int) int { return a * b }",
    "",
  ].join("\n");
  const body = 'func TestAddRegression(t *testing.T) {\n\tif Add(1, 1) != 2 {\n\t\tt.Fatal("add")\n\t}\n}\n';
  const honestGo = `package ops\n\nimport "testing"\n\n${body}`;
  const honest = await regress(job, fix, writes(honestGo, "go"));
  assert.equal(honest.outcome.data.status, "added", honest.outcome.data.summary);
  console.log(`go fixture: regress stage ${(honest.ms / 1000).toFixed(1)} s; ${honest.outcome.data.suite}`);
  // The stage runs it with `-run '^(TestAddRegression)$'`; the whole suite asks for no test by name.
  const evil = `package ops\n\nimport (\n\t"os"\n\t"strings"\n\t"testing"\n)\n\nfunc init() {\n\tif !strings.Contains(strings.Join(os.Args, " "), "TestAddRegression") {\n\t\tos.Exit(0)\n\t}\n}\n\n${body}`;
  const { outcome } = await regress(job, fix, writes(evil, "go"));
  assert.equal(outcome.data.status, "left-out", outcome.data.summary);
  assert.match(outcome.data.summary, STAGE_SAYS);
  const alone = await suiteOnly(job, fix, { path: addedPath(honest.outcome.diff), text: evil });
  assert.equal(alone.ok, false);
  assert.match(alone.summary, /^the regression test changed how other tests ran: .*TestMul/);
});

test("the comparison: exit codes when no single test is read, tamper checks, a limit hit only with it", async () => {
  const { addedTestChanges } = await import("../../src/validate/index.ts");
  const run = (over: Partial<TestRun>, exec: Partial<TestRun["exec"]> = {}): TestRun => ({
    command: "make test",
    exec: {
      exitCode: 1,
      signal: null,
      limit: null,
      durationMs: 10,
      stdout: "",
      stderr: "",
      ...exec,
    } as TestRun["exec"],
    tests: null,
    parser: "exit-code",
    passed: 0,
    failed: 0,
    skipped: 0,
    ...over,
  });
  // Only an exit code: a suite that failed without the test and passes with it changed.
  assert.deepEqual(addedTestChanges(run({}), run({}, { exitCode: 0 })).others, [
    "the suite's exit code was 0 with it and 1 without it",
  ]);
  assert.deepEqual(addedTestChanges(run({}), run({})), { others: [], own: null });
  const tests = (entries: [string, "passed" | "failed" | "skipped"][]) => new Map(entries);
  const intact = { state: "intact" as const, detail: "held" };
  const base = run({ tests: tests([["a", "passed"]]), integrity: intact });
  const same = run({
    tests: tests([
      ["a", "passed"],
      ["new", "passed"],
    ]),
    integrity: intact,
  });
  assert.deepEqual(addedTestChanges(base, same), { others: [], own: null });
  const tampered = run({
    tests: tests([
      ["a", "passed"],
      ["new", "passed"],
    ]),
    integrity: { state: "tampered", detail: "the canary test that must fail passed" },
  });
  assert.deepEqual(addedTestChanges(base, tampered).others, [
    "the runner checks passed without it and not with it (the canary test that must fail passed)",
  ]);
  const slow = run(
    {
      tests: tests([
        ["a", "passed"],
        ["new", "passed"],
      ]),
      integrity: intact,
    },
    { limit: "time" },
  );
  assert.deepEqual(addedTestChanges(base, slow).others, [
    "the suite hit the sandbox's time limit with it and not without it",
  ]);
  const failing = run({
    tests: tests([
      ["a", "passed"],
      ["new", "failed"],
    ]),
    integrity: intact,
  });
  assert.deepEqual(addedTestChanges(base, failing), {
    others: [],
    own: "it failed when the whole suite ran: new",
  });
  const skipsOther = run({
    tests: tests([
      ["a", "skipped"],
      ["new", "passed"],
    ]),
    integrity: intact,
  });
  assert.deepEqual(addedTestChanges(base, skipsOther).others, [
    "1 test that passed without it was skipped with it: a",
  ]);
});
