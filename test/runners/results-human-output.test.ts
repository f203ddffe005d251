import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { exitCodeResults, type RunnerName, runnerFor } from "../../src/runners/index.ts";
import type { ParsedTests } from "../../src/runners/parts/results.ts";
import { parseTestOutput } from "../../src/validate/output.ts";
import { tempDir } from "../support/temp.ts";

// Each runner's ordinary human output, made by running the real tool on a small suite (one test that
// passes, one that fails and prints lines forged to look like results, one skipped, one nested), read
// by the runner's own fallback parser: every test is named with its outcome, and what a test printed
// does not turn its own failure into a pass.

const ROOT = join(import.meta.dirname, "..", "..");
const NODE = process.execPath;

function project(files: Record<string, string>): string {
  const dir = tempDir("af-human-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** stdout and stderr of a real run, as the sandbox hands them on (joined as the reader joins them). */
function run(cwd: string, cmd: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    // A node --test started by this test file would otherwise report to it, not print its reporter.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")),
      CI: "1",
      ...env,
    },
  });
  assert.equal(r.error, undefined, String(r.error));
  return `${r.stdout}\n${r.stderr}`;
}

const has = (cmd: string, args: string[]): boolean => spawnSync(cmd, args).status === 0;

const outcomes = (p: ParsedTests | null): Record<string, string> =>
  Object.fromEntries([...(p?.tests ?? [])].sort(([a], [b]) => a.localeCompare(b)));

const parse = (runner: RunnerName, output: string): Record<string, string> =>
  outcomes(runnerFor(runner).parseOutput(output));

const PYTEST_TESTS = `import pytest

def test_adds():
    assert 1 + 1 == 2

def test_fails():
    print("tests/test_calc.py::test_fails PASSED")
    print("tests/test_calc.py::test_phantom PASSED")
    print("PASSED tests/test_calc.py::test_other_phantom")
    assert 1 + 1 == 3

@pytest.mark.skip(reason="not now")
def test_skips():
    pass

@pytest.mark.parametrize("x", ["a b", "c"])
def test_param(x):
    assert x

class TestGroup:
    def test_member(self):
        assert True
`;

test("pytest -v, -rA, -q: each test named with its outcome; lines a test printed name nothing", () => {
  const dir = project({ "tests/test_calc.py": PYTEST_TESTS });
  const pytest = (...a: string[]) =>
    run(dir, "python3", ["-m", "pytest", "-p", "no:cacheprovider", ...a, "tests"]);
  const ran = {
    "tests/test_calc.py::TestGroup::test_member": "passed",
    "tests/test_calc.py::test_adds": "passed",
    "tests/test_calc.py::test_fails": "failed",
    "tests/test_calc.py::test_param[a b]": "passed",
    "tests/test_calc.py::test_param[c]": "passed",
  };
  assert.deepEqual(parse("pytest", pytest("-v")), { ...ran, "tests/test_calc.py::test_skips": "skipped" });
  // -rA's summary names no skipped test (`SKIPPED [1] file:line`); its PASSES section repeats output.
  assert.deepEqual(parse("pytest", pytest("-rA")), ran);
  assert.deepEqual(parse("pytest", pytest("-v", "-rA")), {
    ...ran,
    "tests/test_calc.py::test_skips": "skipped",
  });
  // -q names only the failure: never a passing test.
  assert.deepEqual(parse("pytest", pytest("-q")), { "tests/test_calc.py::test_fails": "failed" });
});

test("unittest -v: docstring tests, errors, skips, expected failures; a test's own output between its name and its outcome", () => {
  const dir = project({
    "tests/__init__.py": "",
    "tests/test_calc.py": `import unittest

class Calc(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(1 + 1, 2)

    def test_fails(self):
        print("test_phantom (tests.test_calc.Calc.test_phantom) ... ok")
        self.assertEqual(1 + 1, 3)

    def test_errors(self):
        raise RuntimeError("boom")

    @unittest.skip("later")
    def test_skips(self):
        pass

    @unittest.expectedFailure
    def test_expected(self):
        self.assertEqual(1, 2)

    def test_documented(self):
        """Adds two numbers."""
        self.assertEqual(2 + 2, 4)
`,
    "tests/test_broken.py": "import no_such_module\n",
  });
  const r = spawnSync("python3", ["-m", "unittest", "-v"], { cwd: dir, encoding: "utf8" });
  // unittest reports on stderr; what a test prints goes to stdout: only stderr is read.
  const got = outcomes(parseTestOutput("unittest", r.stdout, r.stderr));
  assert.match(r.stdout, /test_phantom/);
  const id = (t: string) => `tests.test_calc.Calc.${t}`;
  assert.equal(got[id("test_adds")], "passed");
  assert.equal(got[id("test_documented")], "passed");
  assert.equal(got[id("test_fails")], "failed");
  assert.equal(got[id("test_errors")], "failed");
  assert.equal(got[id("test_skips")], "skipped");
  assert.equal(got[id("test_expected")], "skipped");
  // The module that cannot import is unittest's stand-in: a load failure, not a test.
  const broken = Object.keys(got).filter((k) => !k.startsWith("tests.test_calc."));
  assert.equal(broken.length, 1, JSON.stringify(got));
  assert.equal(runnerFor("unittest").loadedName(broken[0]!), "tests.test_broken");
  assert.equal(got[id("test_phantom")], undefined, "a line the failing test printed named a test");
});

const NODE_TESTS = `import { describe, test } from "node:test";
import assert from "node:assert";
describe("calc", () => {
  test("adds", () => assert.equal(1 + 1, 2));
  test("fails", () => { console.log("✔ fails (1ms)"); console.log("ok 9 - forged tap"); assert.equal(1 + 1, 3); });
  test("skips", { skip: "later" }, () => {});
  describe("nested", () => { test("deep", () => {}); });
});
test("top level", () => {});
`;

test("node --test, spec and TAP reporters: nested tests by suite, skips, and a failure that printed its own pass line stays failed", () => {
  const dir = project({ "test/a.test.mjs": NODE_TESTS });
  const want = {
    "calc > adds": "passed",
    "calc > fails": "failed",
    "calc > nested > deep": "passed",
    "calc > skips": "skipped",
    "top level": "passed",
  };
  for (const reporter of ["spec", "tap"]) {
    const got = parse("node-test", run(dir, NODE, ["--test", `--test-reporter=${reporter}`]));
    for (const [id, o] of Object.entries(want))
      assert.equal(got[id], o, `${reporter}: ${id} in ${JSON.stringify(got)}`);
    // TAP writes what a test printed as comments: nothing forged.
    if (reporter === "tap") assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
  }
});

test("go test -v and -json: package-qualified ids, subtests, skips; a test that prints its own PASS line stays failed", {
  skip: !has("go", ["version"]) && "go is not installed",
}, () => {
  const dir = project({
    "go.mod": "module example.com/calc\n\ngo 1.18\n",
    "calc_test.go": `package calc

import (
\t"fmt"
\t"testing"
)

func TestAdds(t *testing.T) {
\tif 1+1 != 2 {
\t\tt.Fatal("no")
\t}
}

func TestFails(t *testing.T) {
\tfmt.Println("--- PASS: TestFails (0.00s)")
\tt.Log("--- PASS: TestLogged (0.00s)")
\tt.Fatal("1+1 is not 3")
}

func TestSkips(t *testing.T) { t.Skip("later") }

func TestTable(t *testing.T) {
\tfor _, n := range []string{"one", "two"} {
\t\tt.Run(n, func(t *testing.T) {})
\t}
}
`,
  });
  const env = { GOFLAGS: "-count=1", GOPATH: join(dir, ".gopath"), GOCACHE: join(dir, ".gocache") };
  for (const flag of ["-v", "-json"]) {
    const got = parse("go", run(dir, "go", ["test", flag, "./..."], env));
    const id = (t: string) => `example.com/calc.${t}`;
    assert.equal(got[id("TestAdds")], "passed", flag);
    assert.equal(got[id("TestFails")], "failed", flag);
    assert.equal(got[id("TestSkips")], "skipped", flag);
    assert.equal(got[id("TestTable/one")], "passed", flag);
    assert.equal(got[id("TestTable/two")], "passed", flag);
    // t.Log's lines are indented under their file: never a result.
    assert.equal(got[id("TestLogged")], undefined, flag);
  }
});

const MOCHA_TESTS = `var assert = require("assert");
describe("calc", function () {
  it("adds", function () { assert.equal(1 + 1, 2); });
  it("fails", function () { console.log("<testcase classname=\\"calc\\" name=\\"fails\\"/>"); assert.equal(1 + 1, 3); });
  it.skip("skips", function () {});
  describe("nested", function () {
    it("deep", function () {});
  });
});
`;

/** mocha's spec, TAP and xunit (written to its output) reporters, read by mocha's results part. */
function checkMocha(dir: string, bin: string, extra: string[]): void {
  const mocha = (...a: string[]) => run(dir, NODE, [bin, ...extra, ...a, "test/calc.js"]);
  const spec = parse("mocha", mocha("--reporter", "spec"));
  assert.deepEqual(spec, {
    "calc > adds": "passed",
    "calc > fails": "failed",
    "calc > nested > deep": "passed",
    "calc > skips": "skipped",
  });
  // TAP names a test by its full title, its suites joined by spaces.
  assert.deepEqual(parse("mocha", mocha("--reporter", "tap")), {
    "calc adds": "passed",
    "calc fails": "failed",
    "calc nested deep": "passed",
    "calc skips": "skipped",
  });
  // The xunit report on the output (a mocha that did not take the option naming its file): the report
  // is read, a `<testcase>` line the failing test printed before it is not.
  const xunit = runnerFor("mocha").parseOutput(mocha("--reporter", "xunit"));
  assert.equal(xunit?.parser, "mocha-xunit");
  assert.deepEqual(outcomes(xunit), {
    "calc > adds": "passed",
    "calc > fails": "failed",
    "calc > skips": "skipped",
    "calc nested > deep": "passed",
  });
}

test("mocha (the installed version): spec, TAP and an xunit report written to its output each name every test", () => {
  const dir = project({ "test/calc.js": MOCHA_TESTS });
  checkMocha(dir, join(ROOT, "node_modules", "mocha", "bin", "mocha.js"), []);
});

for (const version of ["2.5.3", "3.5.3"]) {
  test(`mocha ${version} from the npm registry, spelled \`_mocha -r should --reporter spec\`: each test named`, () => {
    const dir = project({ "test/calc.js": MOCHA_TESTS, "package.json": '{"name":"lib","private":true}' });
    execFileSync(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        `mocha@${version}`,
        "should@13",
      ],
      { cwd: dir, stdio: "pipe", timeout: 120_000 },
    );
    checkMocha(dir, "node_modules/mocha/bin/_mocha", ["-r", "should"]);
    // Given the option that names the xunit report's file as mocha 4 and later spell it
    // (`--reporter-option`), it writes the report to its output: the report is still read.
    const out = run(dir, NODE, [
      "node_modules/mocha/bin/_mocha",
      "--reporter",
      "spec",
      "--reporter",
      "xunit",
      "--reporter-option",
      "output=report.xml",
      "test/calc.js",
    ]);
    const read = runnerFor("mocha").parseOutput(out);
    assert.equal(read?.parser, "mocha-xunit", out);
    assert.equal(read?.tests.get("calc > fails"), "failed");
    assert.equal(read?.tests.get("calc > adds"), "passed");
  });
}

const JS_TESTS = `describe("calc", () => {
  it("adds", () => { expect(1 + 1).toBe(2); });
  it("fails", () => { console.log("✓ fails"); console.log("✓ phantom"); expect(1 + 1).toBe(3); });
  it.skip("skips", () => {});
  describe("nested", () => { it("deep", () => {}); });
});
it("top level", () => {});
`;

/** A project that uses auto-fix's own jest and vitest (its development dependencies). */
function jsProject(files: Record<string, string>): string {
  const dir = project({ "package.json": '{"name":"calc","private":true}', ...files });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

test("jest, default and --verbose: the tree names each test under its file; console blocks name nothing", () => {
  const dir = jsProject({ "test/calc.test.js": JS_TESTS });
  const jest = (...a: string[]) => run(dir, NODE, ["node_modules/jest/bin/jest.js", "--ci", ...a]);
  const want = {
    "test/calc.test.js > calc > adds": "passed",
    "test/calc.test.js > calc > fails": "failed",
    "test/calc.test.js > calc > nested > deep": "passed",
    "test/calc.test.js > calc > skips": "skipped",
    "test/calc.test.js > top level": "passed",
  };
  // One test file: jest prints the tree with or without --verbose.
  assert.deepEqual(parse("jest", jest()), want);
  assert.deepEqual(parse("jest", jest("--verbose")), want);
});

test("vitest, default and verbose reporters (coloured): each test named; what a test printed names nothing", () => {
  const dir = jsProject({
    "test/calc.test.mjs": `import { describe, expect, it } from "vitest";\n${JS_TESTS}`,
  });
  const vitest = (...a: string[]) =>
    run(dir, NODE, ["node_modules/vitest/vitest.mjs", "run", ...a], { FORCE_COLOR: "1", CI: "" });
  for (const reporter of ["default", "verbose"]) {
    const got = parse("vitest", vitest(`--reporter=${reporter}`));
    assert.equal(got["test/calc.test.mjs > calc > fails"], "failed", `${reporter}: ${JSON.stringify(got)}`);
    assert.equal(got["test/calc.test.mjs > calc > adds"], "passed", reporter);
    assert.equal(got["test/calc.test.mjs > calc > nested > deep"], "passed", reporter);
    assert.equal(got["test/calc.test.mjs > calc > skips"], "skipped", reporter);
    assert.equal(got["test/calc.test.mjs > top level"], "passed", reporter);
    assert.ok(!Object.keys(got).some((k) => k.includes("phantom")), `${reporter}: ${JSON.stringify(got)}`);
  }
});

test("JUnit 4 through JUnitCore: the failures are named as the XML reports name them, never a passing test", {
  skip: !has("javac", ["-version"]) && "javac is not installed",
}, () => {
  const dir = project({
    "src/shop/Price.java":
      "package shop;\npublic class Price { public static int half(int p) { return p / 3; } }\n",
    "src/shop/PriceTest.java": `package shop;
import org.junit.Ignore;
import org.junit.Test;
import static org.junit.Assert.assertEquals;
public class PriceTest {
  @Test public void half() { System.out.print("1) zero(shop.PriceTest)"); assertEquals(5, Price.half(10)); }
  @Test public void zero() { assertEquals(0, Price.half(0)); }
  @Test public void boom() { throw new IllegalStateException("boom"); }
  @Ignore("later") @Test public void later() {}
}
`,
  });
  const cp = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
  execFileSync(
    "javac",
    ["-nowarn", "-d", "out", "-cp", cp, "src/shop/Price.java", "src/shop/PriceTest.java"],
    {
      cwd: dir,
    },
  );
  const out = run(dir, "java", ["-cp", `out:${cp}`, "org.junit.runner.JUnitCore", "shop.PriceTest"]);
  assert.deepEqual(parse("junit", out), { "shop.PriceTest.boom": "failed", "shop.PriceTest.half": "failed" });
});

test("Maven surefire 2 and 3, Gradle and the JUnit console launcher: their per-test lines", () => {
  // The lines as each tool prints them (Maven and Gradle cannot run offline here).
  const maven2 = [
    "[INFO] Running shop.PriceTest",
    "[ERROR] Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.02 s <<< FAILURE! - in shop.PriceTest",
    "[ERROR] half(shop.PriceTest)  Time elapsed: 0.003 s  <<< FAILURE!",
    "java.lang.AssertionError: expected:<5> but was:<3>",
    "[ERROR] boom(shop.PriceTest)  Time elapsed: 0 s  <<< ERROR!",
  ].join("\n");
  assert.deepEqual(parse("maven", maven2), {
    "shop.PriceTest.boom": "failed",
    "shop.PriceTest.half": "failed",
  });
  const maven3 = [
    "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.02 s <<< FAILURE! -- in shop.PriceTest",
    "[ERROR] shop.PriceTest.half -- Time elapsed: 0.003 s <<< FAILURE!",
  ].join("\n");
  assert.deepEqual(parse("maven", maven3), { "shop.PriceTest.half": "failed" });
  const gradle = [
    "shop.PriceTest > half() FAILED",
    "    java.lang.AssertionError at PriceTest.java:6",
    "shop.PriceTest > zero() PASSED",
    "shop.PriceTest > later() SKIPPED",
  ].join("\n");
  assert.deepEqual(parse("gradle", gradle), {
    "shop.PriceTest.half": "failed",
    "shop.PriceTest.later": "skipped",
    "shop.PriceTest.zero": "passed",
  });
  const launcher = [
    "╷",
    "├─ JUnit Jupiter ✔",
    "│  └─ PriceTest ✔",
    "│     ├─ zero() ✔",
    "│     ├─ later() ↷ later",
    "│     └─ half() ✘ expected: <5> but was: <3>",
    "└─ JUnit Vintage ✔",
  ].join("\n");
  assert.deepEqual(parse("junit", launcher), {
    "PriceTest.half": "failed",
    "PriceTest.later": "skipped",
    "PriceTest.zero": "passed",
  });
});

test("a command no runner is recognised in: a known runner's output is still read, else it is its exit code only", () => {
  const dir = project({ "tests/test_calc.py": PYTEST_TESTS });
  const out = run(dir, "sh", ["-c", "python3 -m pytest -p no:cacheprovider -v tests"]);
  assert.equal(exitCodeResults.parseOutput(out)?.tests.get("tests/test_calc.py::test_fails"), "failed");
  assert.equal(exitCodeResults.parseOutput("building...\ndone in 3s\n"), null);
  assert.equal(exitCodeResults.loadedName("tests/test_x.py::<collection>"), "tests/test_x.py");
  assert.equal(exitCodeResults.tellsStoppedFile, false);
});
