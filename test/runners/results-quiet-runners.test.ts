import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { before, test } from "node:test";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { runTestSuite, type TestRun, targetedCommand } from "../../src/validate/index.ts";
import { jsShop } from "../validate/support/js-shop.ts";
import { prepareJob, validateEdit, writeRepo } from "../validate/support/targeted-repo.ts";

// Quiet commands (`pytest -q`, `python3 -m unittest`, `go test ./...`, the JavaScript runners' default
// reporters) run with the real runners in the real sandbox: the whole suite and a run of selected tests
// both name every test, by the same id.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

const outcomes = (run: TestRun | null): Record<string, string> => Object.fromEntries(run?.tests ?? []);
const only = (all: Record<string, string>, prefix: string): Record<string, string> =>
  Object.fromEntries(Object.entries(all).filter(([id]) => id.startsWith(prefix)));
/** Report files auto-fix had the runner write, left in the tree (there must be none). */
const leftReports = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith(".auto-fix-"));

/**
 * The whole suite and a run of `target` under the command as given: both name every test (the
 * target's tests by the same ids), none says single tests cannot be judged, no report is left behind.
 */
async function bothRuns(
  repo: string,
  config: RepoConfig,
  target: string,
  want: Record<string, string>,
  targetPrefix: string,
): Promise<{ whole: TestRun; targeted: TestRun }> {
  const whole = await runTestSuite(sandbox, repo, config);
  assert.ok(whole);
  assert.deepEqual(outcomes(whole), want, `${whole.command}\n${whole.exec.stdout}\n${whole.exec.stderr}`);
  assert.equal(whole.perTestUnavailable, undefined);
  assert.deepEqual(leftReports(repo), []);
  const cmd = targetedCommand(config, [target]);
  assert.ok("argv" in cmd, "reason" in cmd ? cmd.reason : "");
  const targeted = await runTestSuite(sandbox, repo, config, undefined, { targeted: cmd });
  assert.ok(targeted);
  assert.deepEqual(
    outcomes(targeted),
    only(want, targetPrefix),
    `${targeted.command}\n${targeted.exec.stdout}\n${targeted.exec.stderr}`,
  );
  assert.equal(targeted.perTestUnavailable, undefined);
  assert.deepEqual(leftReports(repo), []);
  return { whole, targeted };
}

const PYTEST_TESTS = {
  "shop.py": "def total(xs):\n    return sum(xs)\n\ndef mean(xs):\n    return sum(xs) // len(xs)\n",
  "tests/test_total.py":
    "import pytest\nfrom shop import total\n\n@pytest.fixture\ndef three():\n    return [1, 1, 1]\n\ndef test_three(three):\n    assert total(three) == 3\n\ndef test_empty():\n    assert total([]) == 0\n",
  "tests/test_mean.py":
    "from shop import mean\n\ndef test_half():\n    assert mean([1, 2]) == 1.5\n\nclass TestMean:\n    def test_one(self):\n        assert mean([4]) == 4\n",
};
const PYTEST_WANT = {
  "tests/test_mean.py::TestMean::test_one": "passed",
  "tests/test_mean.py::test_half": "failed",
  "tests/test_total.py::test_empty": "passed",
  "tests/test_total.py::test_three": "passed",
};

test("pytest without a config file: detected as pytest, every test counted; `pytest -q` still names each test", async () => {
  const repo = writeRepo(PYTEST_TESTS);
  const detected = loadRepoConfig(repo);
  assert.equal(detected.test.framework, "pytest");
  assert.ok(
    detected.notes.some((n) => /tests: pytest \(no pytest configuration, but tests\/test_\w+\.py/.test(n)),
    detected.notes.join(" | "),
  );
  const run = await runTestSuite(sandbox, repo, detected);
  assert.deepEqual(outcomes(run), PYTEST_WANT, `${run?.command}\n${run?.exec.stdout}`);

  const quiet = loadRepoConfig(repo, { testCommand: "python3 -m pytest -q -p no:cacheprovider" });
  const { whole, targeted } = await bothRuns(
    repo,
    quiet,
    "tests/test_mean.py",
    PYTEST_WANT,
    "tests/test_mean.py",
  );
  assert.equal(whole.parser, "pytest");
  assert.equal(whole.command, "python3 -m pytest -q -p no:cacheprovider -rA");
  assert.match(targeted.command, /^python3 -m pytest -q -p no:cacheprovider -rA tests\/test_mean\.py$/);
});

test("unittest without -v: each test named, for the whole suite and one module per process", async () => {
  const testCase = (cls: string, body: string) =>
    `import unittest\nfrom shop import total\n\nclass ${cls}(unittest.TestCase):\n${body}`;
  const repo = writeRepo({
    "shop.py": "def total(xs):\n    return sum(xs) + (1 if len(xs) > 2 else 0)\n",
    "tests/__init__.py": "",
    "tests/test_small.py": testCase(
      "SmallTest",
      "    def test_one(self):\n        self.assertEqual(total([1]), 1)\n\n    def test_none(self):\n        self.assertEqual(total([]), 0)\n",
    ),
    "tests/test_big.py": testCase(
      "BigTest",
      "    def test_three(self):\n        self.assertEqual(total([1, 1, 1]), 3)\n",
    ),
  });
  const want = {
    "tests.test_big.BigTest.test_three": "failed",
    "tests.test_small.SmallTest.test_none": "passed",
    "tests.test_small.SmallTest.test_one": "passed",
  };
  const config = loadRepoConfig(repo, { testCommand: "python3 -m unittest" });
  assert.equal(config.validation.runner, "unittest");
  const { whole } = await bothRuns(repo, config, "tests.test_small", want, "tests.test_small.");
  assert.equal(whole.command, "python3 -m unittest -v");
  // discover with its own options, quiet: -v goes last, where discover takes it.
  const discover = loadRepoConfig(repo, { testCommand: "python3 -m unittest discover -s tests -t . -q" });
  await bothRuns(repo, discover, "tests.test_big", want, "tests.test_big.");
});

test("go test without -v or -json: each test named by package", {
  skip: !has("go", ["version"]) && "go is not installed",
}, async () => {
  const repo = writeRepo({
    "go.mod": "module example.com/q\n\ngo 1.19\n",
    "calc/calc.go":
      "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Half(a int) int { return a / 3 }\n",
    "calc/calc_test.go":
      'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n\nfunc TestHalf(t *testing.T) {\n\tif Half(4) != 2 {\n\t\tt.Fatal("half")\n\t}\n}\n',
    "text/text.go": 'package text\n\nfunc Hi() string { return "hi" }\n',
    "text/text_test.go":
      'package text\n\nimport "testing"\n\nfunc TestHi(t *testing.T) {\n\tif Hi() != "hi" {\n\t\tt.Fatal("hi")\n\t}\n}\n',
  });
  const config = loadRepoConfig(repo, { testCommand: "go test ./..." });
  config.timeouts = { ...config.timeouts, testMs: 300_000 };
  const want = {
    "example.com/q/calc.<package>": "failed",
    "example.com/q/calc.TestAdd": "passed",
    "example.com/q/calc.TestHalf": "failed",
    "example.com/q/text.TestHi": "passed",
  };
  const { whole, targeted } = await bothRuns(repo, config, "./calc", want, "example.com/q/calc.");
  assert.equal(whole.command, "go test -json ./...");
  assert.equal(whole.parser, "go-json");
  assert.match(targeted.command, /^go test -json \.\/calc$/);
});

test("node --test with its default reporter: each test named by file and suites", async () => {
  const nodeTest = (body: string) =>
    `import { describe, test } from "node:test";\nimport assert from "node:assert";\nimport { slug } from "../src/slug.js";\n${body}\n`;
  const repo = writeRepo({
    "package.json": JSON.stringify({ type: "module" }),
    "src/slug.js": 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "test/slug.test.js": nodeTest(
      'describe("slug", () => { test("one", () => assert.equal(slug("A B"), "a-b")); test("many", () => assert.equal(slug("A B C"), "a-b-c")); });',
    ),
    "test/lower.test.js": nodeTest('test("lower", () => assert.equal(slug("A"), "a"));'),
  });
  const want = {
    "test/lower.test.js > lower": "passed",
    "test/slug.test.js > slug > many": "failed",
    "test/slug.test.js > slug > one": "passed",
  };
  const config = loadRepoConfig(repo, { testCommand: "node --test" });
  const { whole } = await bothRuns(repo, config, "test/slug.test.js", want, "test/slug.test.js");
  assert.equal(whole.parser, "node-test-junit");
  // The spec reporter still writes the output a reader sees.
  assert.match(whole.exec.stdout, /✖ many/);
});

const JS_WANT = {
  "test/slug.test.js > slug > many words": "failed",
  "test/slug.test.js > slug > one space": "passed",
  "test/sum.test.js > sum > adds": "passed",
  "test/sum.test.js > sum > zero": "passed",
  "test/title.test.js > title > trims": "passed",
};

for (const [runner, command, parser] of [
  ["jest", "npx jest", /jest/],
  ["vitest", "npx vitest run", /vitest/],
  ["mocha", "npx mocha test/", /mocha-xunit/],
] as const) {
  test(`${runner} with its default reporter (${command}): each test named by file and suites`, async () => {
    const repo = jsShop(runner, {
      "package.json": JSON.stringify({
        name: "shop",
        private: true,
        ...(runner === "vitest" ? { type: "module" } : {}),
      }),
    });
    const config = loadRepoConfig(repo, { testCommand: command });
    assert.equal(config.validation.runner, runner);
    config.timeouts = { ...config.timeouts, testMs: 120_000 };
    const { whole } = await bothRuns(repo, config, "test/slug.test.js", JS_WANT, "test/slug.test.js");
    assert.match(whole.parser, parser);
  });
}

test("npm test through a script: the options go after `--`", async () => {
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha test/" } }),
  });
  const config = loadRepoConfig(repo);
  assert.equal(config.test.command, "npm test");
  const { whole } = await bothRuns(repo, config, "test/slug.test.js", JS_WANT, "test/slug.test.js");
  assert.match(
    whole.command,
    /^npm test -- --reporter xunit --reporter-options output=\.junit-mocha-[0-9a-f]{18}\.xml$/,
  );
});

test("a command whose report options cannot be added says that single tests cannot be judged", async () => {
  const repo = writeRepo(PYTEST_TESTS);
  for (const [command, why] of [
    ["cd . && python3 -m pytest -q -p no:cacheprovider", /uses shell syntax/],
    ["sh -c 'python3 -m pytest -q -p no:cacheprovider'", /uses shell syntax/],
  ] as const) {
    const config = loadRepoConfig(repo, { testCommand: command });
    const run = await runTestSuite(sandbox, repo, config);
    assert.ok(run);
    assert.match(run.perTestUnavailable ?? "", why, command);
    assert.ok(run.notes?.some((n) => /single tests cannot be judged from this run/.test(n)));
    // The quiet output names at most the failure: never a passing test.
    assert.deepEqual(
      Object.values(outcomes(run)).filter((o) => o !== "failed"),
      [],
    );
  }
  // pytest missing from the sandbox's Python (-S: no site-packages) is said, not left to an exit code.
  const missing = await runTestSuite(
    sandbox,
    repo,
    loadRepoConfig(repo, { testCommand: "python3 -S -m pytest -q" }),
  );
  assert.equal(missing?.tests, null);
  assert.ok(
    missing?.notes?.some((n) => /pytest is not installed in the sandbox's Python/.test(n)),
    `${missing?.notes?.join(" | ")}\n${missing?.exec.stderr}`,
  );
  // A script around a verbose runner still names its passing tests: judged as usual.
  const verbose = loadRepoConfig(repo, { testCommand: "cd . && python3 -m pytest -rA -p no:cacheprovider" });
  const run = await runTestSuite(sandbox, repo, verbose);
  assert.deepEqual(outcomes(run), PYTEST_WANT);
  assert.equal(run?.perTestUnavailable, undefined);
});

test("JUnit 4 through JUnitCore (a command and a {tests} template): single tests cannot be judged, and the run says so", {
  skip: !has("javac", ["-version"]) && "javac is not installed",
}, async () => {
  const cp = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
  const build = `rm -rf /tmp/af-out && mkdir -p /tmp/af-out && javac -nowarn -d /tmp/af-out -cp ${cp} $(find src -name '*.java')`;
  const junit = (cls: string, body: string) =>
    `package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class ${cls} {\n${body}}\n`;
  const repo = writeRepo({
    "src/main/java/shop/Price.java":
      "package shop;\n\npublic class Price {\n  public static int half(int p) { return p / 3; }\n}\n",
    "src/test/java/shop/PriceTest.java": junit(
      "PriceTest",
      "  @Test public void half() { assertEquals(5, Price.half(10)); }\n  @Test public void zero() { assertEquals(0, Price.half(0)); }\n",
    ),
    ".github/auto-fix.yml": [
      `test: ${build} && java -cp /tmp/af-out:${cp} org.junit.runner.JUnitCore shop.PriceTest`,
      "validation:",
      "  runner: junit",
      `  command: ${build} && java -cp /tmp/af-out:${cp} org.junit.runner.JUnitCore {tests}`,
      "",
    ].join("\n"),
  });
  const config = loadRepoConfig(repo);
  config.timeouts = { ...config.timeouts, testMs: 300_000 };
  const whole = await runTestSuite(sandbox, repo, config);
  assert.ok(whole);
  assert.match(whole.exec.stdout, /Tests run: 2,\s+Failures: 1/, whole.exec.stdout + whole.exec.stderr);
  assert.match(whole.perTestUnavailable ?? "", /JUnitCore prints only the tests that failed/);
  // Its output names at most the failure (read by the fallback parsers), never a passing test.
  assert.deepEqual(
    Object.values(outcomes(whole)).filter((o) => o !== "failed"),
    [],
  );
  const cmd = targetedCommand(config, ["shop.PriceTest"]);
  assert.ok("argv" in cmd);
  const targeted = await runTestSuite(sandbox, repo, config, undefined, { targeted: cmd });
  assert.match(targeted?.perTestUnavailable ?? "", /JUnitCore prints only the tests that failed/);
  // A template that writes JUnit XML reports the configuration names is read per test.
  const reports = loadRepoConfig(repo);
  reports.test = {
    ...reports.test,
    reports: ["reports/TEST-*.xml"],
    command: `mkdir -p reports && printf '<testsuite><testcase classname="shop.PriceTest" name="half"><failure/></testcase><testcase classname="shop.PriceTest" name="zero"/></testsuite>' > reports/TEST-shop.xml`,
  };
  const read = await runTestSuite(sandbox, repo, reports);
  assert.deepEqual(outcomes(read), { "shop.PriceTest.half": "failed", "shop.PriceTest.zero": "passed" });
  assert.equal(read?.perTestUnavailable, undefined);
});

test("`pytest -q` as the command: a candidate's fix is named by its test, and a regression by its own", async () => {
  const repo = writeRepo(PYTEST_TESTS);
  const job = await prepareJob(sandbox, repo, () =>
    loadRepoConfig(repo, { testCommand: "python3 -m pytest -q -p no:cacheprovider" }),
  );
  try {
    const fix = await validateEdit(sandbox, job, { "shop.py": ["sum(xs) // len(xs)", "sum(xs) / len(xs)"] });
    assert.deepEqual(fix.result.fixed, ["tests/test_mean.py::test_half"], fix.result.summary);
    assert.deepEqual(fix.result.regressions, []);
    const broken = await validateEdit(sandbox, job, {
      "shop.py": ["return sum(xs)\n", "return sum(xs) + 1\n"],
    });
    assert.deepEqual(broken.result.regressions.sort(), [
      "tests/test_total.py::test_empty",
      "tests/test_total.py::test_three",
    ]);
  } finally {
    await job.states.dispose();
  }
});
