import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { createSandbox, makeWorkCopy, type SandboxPort, type WorkCopy } from "../../src/sandbox/index.ts";
import { compareRuns, runTestSuite, showsFix, validatePatched } from "../../src/validate/index.ts";

const FIXTURES = new URL("../fixtures/review-repos/", import.meta.url).pathname;
let sandbox: SandboxPort;
const copies: WorkCopy[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of copies) await c.dispose();
});
async function copyOf(name: string): Promise<string> {
  const c = await makeWorkCopy(join(FIXTURES, name));
  copies.push(c);
  return c.dir;
}
function edit(dir: string, rel: string, from: string, to: string): void {
  const text = readFileSync(join(dir, rel), "utf8");
  assert.ok(text.includes(from), `${rel} lacks ${from}`);
  writeFileSync(join(dir, rel), text.replace(from, to));
}

test("pytest repo: a good patch validates, a patch that breaks a passing test is a regression", async () => {
  const base = await copyOf("py-shop");
  const config = loadRepoConfig(base);
  assert.equal(config.test.framework, "pytest");
  const baseline = await runTestSuite(sandbox, base, config);
  assert.ok(baseline);
  assert.equal(baseline.parser, "pytest");
  assert.equal(baseline.passed, 3);

  const good = await copyOf("py-shop");
  edit(good, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
  const ok = await validatePatched(sandbox, good, config, baseline);
  assert.equal(ok.result.status, "passed");
  assert.deepEqual(ok.result.regressions, []);

  const bad = await copyOf("py-shop");
  edit(
    bad,
    "shop/pricing.py",
    "return price - price * percent\n",
    "return price * (1 - percent / 100) if percent else None\n",
  );
  const broken = await validatePatched(sandbox, bad, config, baseline);
  assert.equal(broken.result.status, "regressions");
  assert.deepEqual(broken.result.regressions, ["tests/test_pricing.py::test_no_discount"]);
  assert.match(broken.result.summary, /test_no_discount/);
});

test("node test runner repo: per-test regression and fixed tests", async () => {
  const base = await copyOf("js-slug");
  const config = loadRepoConfig(base);
  assert.equal(config.test.framework, "node-test");
  // `npm test` runs the script's `node --test`, which auto-fix runs itself: its report names each file.
  assert.equal(config.test.command, "node --test");
  const baseline = await runTestSuite(sandbox, base, config);
  assert.ok(baseline);
  assert.equal(baseline.exec.exitCode, 0, baseline.exec.stdout + baseline.exec.stderr);
  assert.ok(
    baseline.tests?.get("test/slug.test.js > two words") === "passed",
    [...(baseline.tests ?? [])].join(";"),
  );

  const bad = await copyOf("js-slug");
  edit(bad, "src/slug.js", '.replace(" ", "-")', '.replace(/ /g, "_")');
  const v = await validatePatched(sandbox, bad, config, baseline);
  assert.equal(v.result.status, "regressions");
  assert.deepEqual(v.result.regressions, ["test/slug.test.js > two words"]);
});

test("exit code only: a suite that passed before and fails after is a regression", async () => {
  const dir = await copyOf("py-shop");
  const config = { ...loadRepoConfig(dir) };
  config.test = { ...config.test, command: "test -f ok.flag", framework: "unknown" };
  writeFileSync(join(dir, "ok.flag"), "");
  const before = await runTestSuite(sandbox, dir, config);
  assert.equal(before?.parser, "exit-code");
  const { rmSync } = await import("node:fs");
  rmSync(join(dir, "ok.flag"));
  const afterRun = await runTestSuite(sandbox, dir, config);
  const v = compareRuns(before, afterRun);
  assert.equal(v.status, "regressions");
  assert.equal(v.perTest, false);
});

test("JUnit reports are read after the run, and stale ones are removed first", async () => {
  const dir = await copyOf("py-shop");
  const config = loadRepoConfig(dir);
  mkdirSync(join(dir, "reports"));
  writeFileSync(
    join(dir, "reports", "TEST-stale.xml"),
    '<testsuite><testcase classname="Old" name="gone"/></testsuite>',
  );
  config.test = {
    ...config.test,
    framework: "unknown",
    reports: ["reports/TEST-*.xml"],
    command: `mkdir -p reports && printf '<testsuite><testcase classname="A" name="one"/><testcase classname="A" name="two"><failure/></testcase></testsuite>' > reports/TEST-a.xml; exit 1`,
  };
  const run = await runTestSuite(sandbox, dir, config);
  assert.equal(run?.parser, "junit-xml");
  assert.deepEqual(Object.fromEntries(run?.tests ?? []), { "A.one": "passed", "A.two": "failed" });
});

test("a limit hit by the suite after the patch is reported, not hidden", async () => {
  const dir = await copyOf("py-shop");
  const config = loadRepoConfig(dir);
  const baseline = await runTestSuite(sandbox, dir, config);
  config.test = { ...config.test, command: "sleep 30" };
  config.timeouts = { ...config.timeouts, testMs: 300 };
  const v = await validatePatched(sandbox, dir, config, baseline);
  assert.equal(v.result.status, "regressions");
  assert.match(v.result.summary, /time limit/);
});

test("a baseline started early is stopped when the run's trees are disposed", async () => {
  const { TreeStates } = await import("../../src/validate/index.ts");
  const dir = await copyOf("py-shop");
  const config = loadRepoConfig(dir);
  config.test = { ...config.test, command: "sleep 60", framework: "unknown" };
  const states = await TreeStates.prepare({ sandbox, config, source: dir });
  const running = states.baseline();
  await new Promise((r) => setTimeout(r, 200));
  await states.dispose();
  const run = await running;
  assert.equal(run?.exec.signal, "SIGKILL");
  assert.equal(run?.exec.exitCode, null);
  assert.equal(run?.exec.limit, null);
});

test("a green run that ran no tests is not counted as validation: the tests could not be run", () => {
  const exec = {
    exitCode: 0,
    signal: null,
    stdout: "Ran 0 tests in 0.000s\n\nOK\n",
    stderr: "",
    truncated: false,
    limit: null,
    durationMs: 5,
    backend: "bwrap",
  } as const;
  const run = (tests: [string, "passed" | "failed"][]) => ({
    command: "python3 -m unittest",
    exec,
    tests: new Map(tests),
    parser: "unittest",
    passed: tests.filter(([, o]) => o === "passed").length,
    failed: tests.filter(([, o]) => o === "failed").length,
    skipped: 0,
  });
  const empty = compareRuns(run([]), run([]));
  assert.equal(empty.status, "could-not-run");
  assert.match(
    empty.summary,
    /^tests could not be run: before the patch, the runner collected no test \(it exited with code 0\)/,
  );
  assert.equal(showsFix(empty), false);
  const real = compareRuns(run([["t.a", "passed"]]), run([["t.a", "passed"]]));
  assert.equal(real.status, "passed");
});

test("only tests that failed and now pass show a fix; a suite green before and after does not", () => {
  const exec = (exitCode: number) =>
    ({
      exitCode,
      signal: null,
      stdout: "",
      stderr: "",
      truncated: false,
      limit: null,
      durationMs: 5,
      backend: "bwrap",
    }) as const;
  const perTest = (exitCode: number, tests: [string, "passed" | "failed"][]) => ({
    command: "pytest",
    exec: exec(exitCode),
    tests: new Map(tests),
    parser: "pytest",
    passed: tests.filter(([, o]) => o === "passed").length,
    failed: tests.filter(([, o]) => o === "failed").length,
    skipped: 0,
  });
  const exitOnly = (exitCode: number) => ({
    command: "make check",
    exec: exec(exitCode),
    tests: null,
    parser: "exit-code",
    passed: 0,
    failed: 0,
    skipped: 0,
  });
  const bugTest = compareRuns(
    perTest(1, [
      ["t.ok", "passed"],
      ["t.bug", "failed"],
    ]),
    perTest(0, [
      ["t.ok", "passed"],
      ["t.bug", "passed"],
    ]),
  );
  assert.deepEqual(bugTest.fixed, ["t.bug"]);
  assert.equal(showsFix(bugTest), true);
  const greenBoth = compareRuns(perTest(0, [["t.ok", "passed"]]), perTest(0, [["t.ok", "passed"]]));
  assert.equal(greenBoth.status, "passed");
  assert.equal(showsFix(greenBoth), false, "nothing broke, but nothing shows the bug gone");
  // An exit code alone judges no single test: red before and green after is no evidence of a fix.
  const exitFix = compareRuns(exitOnly(2), exitOnly(0));
  assert.equal(exitFix.status, "could-not-run");
  assert.match(exitFix.summary, /only an exit code/);
  assert.equal(showsFix(exitFix), false);
  assert.equal(compareRuns(exitOnly(0), exitOnly(0)).status, "could-not-run");
  assert.equal(showsFix(compareRuns(exitOnly(2), exitOnly(2))), false);
  // Green before and red after is still a regression of the whole suite.
  assert.equal(compareRuns(exitOnly(0), exitOnly(1)).status, "regressions");
  const broke = compareRuns(
    perTest(1, [
      ["t.ok", "passed"],
      ["t.bug", "failed"],
    ]),
    perTest(1, [
      ["t.ok", "failed"],
      ["t.bug", "passed"],
    ]),
  );
  assert.equal(broke.status, "regressions");
  assert.equal(showsFix(broke), false, "a regression outweighs a fixed test");
  // The same command after the patch fails and names no test (a test file no longer loads, the runner
  // stops before its tests): the tests that passed before no longer run. Red before (the bug's test)
  // does not excuse it.
  const unloadable = compareRuns(
    perTest(1, [
      ["t.ok", "passed"],
      ["t.bug", "failed"],
    ]),
    { ...exitOnly(1), command: "pytest" },
  );
  assert.equal(unloadable.status, "regressions");
  assert.deepEqual(unloadable.regressions, ["t.ok (no longer runs)", "t.bug (no longer runs)"]);
  // A green run after the patch that names no test (the runner was ended early, e.g. os._exit(0) at
  // import) loses every test that ran before: a regression, never a pass and never a fix.
  const ended = compareRuns(
    perTest(1, [
      ["t.ok", "passed"],
      ["t.bug", "failed"],
    ]),
    { ...perTest(0, []), command: "pytest" },
  );
  assert.equal(ended.status, "regressions");
  assert.deepEqual(ended.regressions, ["t.ok (no longer runs)", "t.bug (no longer runs)"]);
  assert.match(
    ended.summary,
    /after the patch the runner collected no test \(it exited with code 0\), so 2 tests that ran before no longer run/,
  );
  assert.equal(showsFix(ended), false);
  assert.equal(compareRuns(perTest(1, [["t.ok", "passed"]]), exitOnly(0)).status, "regressions");
});
