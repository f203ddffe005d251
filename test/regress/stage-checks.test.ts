import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { RepoConfig } from "../../src/config/index.ts";
import type { ChatMessage, ModelPort } from "../../src/model/types.ts";
import { type RegressStageInput, regressStage } from "../../src/regress/index.ts";
import { missBefore } from "../../src/regress/outcome.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { checklist } from "../../src/github/render/pr-checklist.ts";
import { fakeResult } from "../support/fix-result.ts";
import { prepareJob, writeRepo } from "../validate/support/targeted-repo.ts";

// The regression-test stage with real runners in the real sandbox and a scripted model: each new test
// is judged on its own, the environment's failures are told apart from a wrong test, a run that prints
// nothing is never a verdict, and the prompt claims only what ran.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

/** A model answering with `files` in turn (the last one repeated), keeping every request it got. */
function scripted(files: string[], lang: string): ModelPort & { requests: ChatMessage[][] } {
  const requests: ChatMessage[][] = [];
  return {
    requests,
    chat: async (messages: ChatMessage[]) => {
      requests.push(messages.map((m) => ({ ...m })));
      const file = files[Math.min(requests.length - 1, files.length - 1)]!;
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
  } as never;
}

async function regress(
  job: { states: TreeStates; config: RepoConfig },
  diff: string,
  model: ModelPort,
  extra: Partial<RegressStageInput> = {},
) {
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
    record: () => {},
    ...extra,
  });
  return { outcome, ms: performance.now() - started };
}

const CALC = {
  "pytest.ini": "[pytest]\n",
  "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  "tests/__init__.py": "",
  "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
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

const GOOD = "from calc import add\n\n\ndef test_add_two_ones():\n    assert add(1, 1) == 2\n";
// Two tests: the second passes on the code without the fix (mul was never broken).
const ONE_IDLE = `${GOOD}\n\ndef test_mul_still_works():\n    from calc import mul\n    assert mul(2, 3) == 6\n`;

let calc: { states: TreeStates; config: RepoConfig } | null = null;
const calcJob = async () => {
  if (!calc) {
    calc = await prepareJob(sandbox, writeRepo(CALC));
    jobs.push(calc.states);
  }
  return calc;
};

test("pytest: a test that passes without the fix is named and refused; the corrected file is added", async () => {
  const model = scripted([ONE_IDLE, GOOD], "python");
  const { outcome, ms } = await regress(await calcJob(), CALC_FIX, model);
  assert.equal(model.requests.length, 2);
  const feedback = model.requests[1]!.at(-1)!.content;
  assert.match(
    feedback,
    /this test passes on the code without the fix.*`tests\/test_calc_regression\.py::test_mul_still_works`/,
  );
  assert.doesNotMatch(feedback, /test_add_two_ones`/);
  assert.equal(outcome.data.status, "added", outcome.data.summary);
  assert.match(outcome.data.summary, /its one test, checked on its own/);
  assert.match(
    outcome.data.before?.stdout ?? "",
    /FAILED tests\/test_calc_regression\.py::test_add_two_ones/,
  );
  console.log(`pytest, one idle test then a good one: regress stage ${(ms / 1000).toFixed(1)} s`);
});

test("pytest: a file whose tests all stay idle twice is left out, saying which", async () => {
  const { outcome } = await regress(await calcJob(), CALC_FIX, scripted([ONE_IDLE], "python"));
  assert.equal(outcome.data.status, "left-out");
  assert.match(outcome.data.summary, /test_mul_still_works/);
  assert.ok(outcome.data.before, "the runner's output is kept");
});

test("a run that prints nothing is never read as failing without the fix", async () => {
  // Through the stage, the scan refuses a file that ends the process before it runs.
  const silent = "import os\n\nos._exit(1)\n";
  const { outcome } = await regress(await calcJob(), CALC_FIX, scripted([silent], "python"));
  assert.equal(outcome.data.status, "left-out");
  assert.match(outcome.data.summary, /ends the process/);
  // The rule behind it: a silent run that exits 1 is no verdict, whatever the exit code says.
  const plan = {
    runner: "pytest" as const,
    framework: "pytest",
    language: "python",
    tags: ["python"],
    path: "tests/test_calc_regression.py",
    command: "python3 -m pytest -q tests/test_calc_regression.py",
    notes: "",
    example: null,
  };
  const exec = { exitCode: 1, signal: null, limit: null, durationMs: 5, stdout: "", stderr: " \n" };
  const miss = missBefore(plan, exec as never, mkdtempSync(join(tmpdir(), "regress-silent-")));
  assert.match(miss?.why ?? "", /printed nothing/);
});

test("pytest: a conftest that cannot import is the environment's failure: told as such, no second try", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({ ...CALC, "tests/conftest.py": "import definitely_missing_dependency\n" }),
  );
  jobs.push(job.states);
  const model = scripted([GOOD], "python");
  const { outcome } = await regress(job, CALC_FIX, model, {
    environment: "setup step failed: pip install (exit 1)",
  });
  assert.equal(model.requests.length, 1);
  assert.equal(outcome.data.status, "left-out");
  assert.match(outcome.data.summary, /conftest\.py could not be imported .*definitely_missing_dependency/);
  assert.match(outcome.data.summary, /setup had failed: setup step failed: pip install/);
  assert.doesNotMatch(outcome.data.summary, /did not do what a regression test must/);
  assert.match(model.requests[0]![1]!.content, /could not set up .*pip install/);
});

test("pytest: a dependency the test imports and the sandbox lacks is told as missing, not as a wrong test", async () => {
  const model = scripted(["import not_installed_anywhere\n\n" + GOOD, GOOD], "python");
  const { outcome } = await regress(await calcJob(), CALC_FIX, model);
  const feedback = model.requests[1]!.at(-1)!.content;
  assert.match(feedback, /^The test could not run, and not because of what it checks/);
  assert.match(feedback, /`not_installed_anywhere` is not installed in the sandbox/);
  assert.equal(outcome.data.status, "added", outcome.data.summary);
});

test("a repository test that already goes red to green: no test is written, and the summary names it", async () => {
  const model = scripted([GOOD], "python");
  const { outcome } = await regress(await calcJob(), CALC_FIX, model, {
    covering: ["tests/test_calc.py::test_add"],
  });
  assert.equal(model.requests.length, 0);
  assert.equal(outcome.data.status, "left-out");
  assert.match(
    outcome.data.summary,
    /`tests\/test_calc\.py::test_add` already fails without the fix and passes with it/,
  );
  assert.deepEqual(outcome.data.covered_by, ["tests/test_calc.py::test_add"]);
  // The pull request's checklist names it instead of asking for a test.
  const items = checklist(fakeResult({ regression_test: outcome.data }), ["calc.py"]).join("\n");
  assert.match(items, /The repository's test `tests\/test_calc\.py::test_add` already fails without the fix/);
  assert.doesNotMatch(items, /consider adding one/);
});

test("the prompt says what the reproducer did with this fix, and only that", async () => {
  const job = await calcJob();
  const cases: [boolean | null, RegExp, RegExp][] = [
    [true, /failed on the code without the fix and passes with this fix/, /still fails/],
    [false, /still fails with this fix/, /passes with/],
    [null, /it was not run with this fix/, /passes with/],
  ];
  for (const [passes, says, never] of cases) {
    const model = scripted([GOOD], "python");
    await regress(job, CALC_FIX, model, { script: "print('repro')\n", scriptPassesWithFix: passes });
    const prompt = model.requests[0]![1]!.content;
    assert.match(prompt, says);
    assert.match(prompt, /pass with the fix \(each test is checked on its own\)/);
    assert.doesNotMatch(prompt, never);
  }
});

test("node --test in a CommonJS package: the prompt asks for require, each test is judged, a wrong import is told as syntax", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({
      "package.json": JSON.stringify({ name: "lib", scripts: { test: "node --test" } }),
      "lib/util.js": "module.exports = { add: (a, b) => a - b };\n",
      "test/util.test.js":
        'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../lib/util");\n\ntest("add zero", () => assert.equal(add(0, 0), 0));\n',
    }),
  );
  jobs.push(job.states);
  const fix = [
    "diff --git a/lib/util.js b/lib/util.js",
    "--- a/lib/util.js",
    "+++ b/lib/util.js",
    "@@ -1 +1 @@",
    "-module.exports = { add: (a, b) => a - b };",
    "+module.exports = { add: (a, b) => a + b };",
    "",
  ].join("\n");
  const esm =
    'import assert from "node:assert";\nimport { test } from "node:test";\n\ntest("x", () => assert.ok(false));\n';
  const good =
    'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../lib/util");\n\ntest("adds", () => assert.equal(add(1, 2), 3));\n';
  const model = scripted([esm, good], "javascript");
  const { outcome } = await regress(job, fix, model);
  assert.match(model.requests[0]![1]!.content, /const assert = require\("node:assert"\)/);
  assert.doesNotMatch(model.requests[0]![1]!.content, /import assert/);
  assert.equal(outcome.data.status, "added", outcome.data.summary);
  assert.equal(outcome.data.path, "test/util-regression.test.js");
  assert.match(model.requests[1]!.at(-1)!.content, /loads the file as CommonJS: use `require/);
});

test("unittest: each test method is judged on its own from the runner's -v lines", async () => {
  const job = await prepareJob(sandbox, writeRepo(CALC), (c) => ({
    ...c,
    test: { ...c.test, framework: "unittest" },
  }));
  jobs.push(job.states);
  const cls = (extra: string) =>
    `import unittest\n\nfrom calc import add, mul\n\n\nclass AddTest(unittest.TestCase):\n    def test_add_two_ones(self):\n        self.assertEqual(add(1, 1), 2)\n${extra}`;
  const idle = cls("\n    def test_mul_still_works(self):\n        self.assertEqual(mul(2, 3), 6)\n");
  const model = scripted([idle, cls("")], "python");
  const { outcome } = await regress(job, CALC_FIX, model);
  assert.match(outcome.data.command ?? "", /^python3 -m unittest -v tests\.test_calc_regression$/);
  assert.match(
    model.requests[1]!.at(-1)!.content,
    /this test passes on the code without the fix.*test_mul_still_works/,
  );
  assert.equal(outcome.data.status, "added", outcome.data.summary);
  assert.match(outcome.data.summary, /its one test, checked on its own/);
});

test("a package whose tests live beside it as TestCase classes gets its test there, in that style", async () => {
  const job = await prepareJob(
    sandbox,
    writeRepo({
      "pytest.ini": "[pytest]\n",
      "webkit/__init__.py": "",
      "webkit/web.py": "def route(path):\n    return path.rstrip('/')\n",
      "webkit/testing.py": "import unittest\n\n\nclass AsyncHTTPTestCase(unittest.TestCase):\n    pass\n",
      "webkit/test/__init__.py": "",
      "webkit/test/web_test.py":
        "from webkit.testing import AsyncHTTPTestCase\nfrom webkit.web import route\n\n\nclass WebTest(AsyncHTTPTestCase):\n    def test_plain(self):\n        self.assertEqual(route('a'), 'a')\n",
      "tests/test_unrelated.py": "def test_nothing():\n    assert True\n",
    }),
  );
  jobs.push(job.states);
  const fix = [
    "diff --git a/webkit/web.py b/webkit/web.py",
    "--- a/webkit/web.py",
    "+++ b/webkit/web.py",
    "@@ -1,2 +1,2 @@",
    " def route(path):",
    "-    return path.rstrip('/')",
    "+    return path.rstrip('/') or '/'",
    "",
  ].join("\n");
  const written =
    "from webkit.testing import AsyncHTTPTestCase\nfrom webkit.web import route\n\n\nclass RootRouteTest(AsyncHTTPTestCase):\n    def test_root_stays_root(self):\n        self.assertEqual(route('/'), '/')\n";
  const model = scripted([written], "python");
  const { outcome } = await regress(job, fix, model);
  const prompt = model.requests[0]![1]!.content;
  assert.match(prompt, /`webkit\/test\/web_test\.py`\): follow its framework, imports and style/);
  assert.match(prompt, /class WebTest\(AsyncHTTPTestCase\)/);
  assert.match(prompt, /class deriving from `AsyncHTTPTestCase`/);
  assert.doesNotMatch(prompt, /plain pytest/);
  assert.equal(outcome.data.status, "added", outcome.data.summary);
  assert.equal(outcome.data.path, "webkit/test/web_regression_test.py");
  assert.match(
    outcome.data.before?.stdout ?? "",
    /FAILED webkit\/test\/web_regression_test\.py::RootRouteTest::test_root_stays_root/,
  );
});

test("pytest: a test file that cannot be loaded for its own mistake is told so, not as the environment", async () => {
  const wrong = "from calc import addd\n\n\ndef test_add():\n    assert addd(1, 1) == 2\n";
  const model = scripted([wrong, GOOD], "python");
  const { outcome } = await regress(await calcJob(), CALC_FIX, model);
  const feedback = model.requests[1]!.at(-1)!.content;
  assert.match(
    feedback,
    /^The test did not do what a regression test must: pytest could not load the file \(ImportError: cannot import name 'addd'/,
  );
  assert.equal(outcome.data.status, "added", outcome.data.summary);
});
