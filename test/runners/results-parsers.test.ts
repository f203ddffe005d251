import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGoTest } from "../../src/runners/go/results-output.ts";
import { parsePytest } from "../../src/runners/pytest/results-output.ts";
import { parseJUnitXml } from "../../src/runners/shared/results-junit-xml.ts";
import { parseSymbolReporter } from "../../src/runners/shared/results-symbol-reporter.ts";
import { parseTap } from "../../src/runners/shared/results-tap.ts";
import { parseUnittest } from "../../src/runners/unittest/results-output.ts";
import { parseTestOutput } from "../../src/validate/output.ts";

const obj = (m: Map<string, string>): Record<string, string> => Object.fromEntries(m);

test("pytest: -rA summary, -v lines and collection errors", () => {
  const out = `tests/test_a.py::test_x PASSED                                   [ 50%]
tests/test_a.py::test_y[1-2] FAILED                              [100%]
=========================== short test summary info ============================
PASSED tests/test_b.py::TestK::test_m
FAILED tests/test_b.py::test_bad - assert 1 == 2
ERROR tests/test_c.py - ImportError: cannot import name 'x'
SKIPPED [1] tests/test_b.py:4: unconditional skip
==================== 2 failed, 2 passed, 1 skipped in 0.58s ====================`;
  assert.deepEqual(obj(parsePytest(out).tests), {
    "tests/test_a.py::test_x": "passed",
    "tests/test_a.py::test_y[1-2]": "failed",
    "tests/test_b.py::TestK::test_m": "passed",
    "tests/test_b.py::test_bad": "failed",
    "tests/test_c.py::<collection>": "failed",
  });
});

test("unittest -v (old and new id styles)", () => {
  const out = `test_a (test_u.T.test_a) ... ok
test_b (test_u.T) ... FAIL
test_c (test_u.T.test_c) ... ERROR
test_d (test_u.T.test_d) ... skipped 'no'`;
  assert.deepEqual(obj(parseUnittest(out).tests), {
    "test_u.T.test_a": "passed",
    "test_u.T.test_b": "failed",
    "test_u.T.test_c": "failed",
    "test_u.T.test_d": "skipped",
  });
});

test("node spec reporter: nesting, skips, and the failure recap is not counted twice", () => {
  const out = `✔ top ok (0.6ms)
✖ top bad (0.5ms)
▶ suite
  ✔ inner ok (0.18ms)
  ﹣ skipped (0.1ms) # SKIP
✖ suite (0.5ms)
ℹ tests 4

✖ failing tests:

test at a.test.mjs:4:1
✖ top ok (0.5ms)`;
  assert.deepEqual(obj(parseSymbolReporter(out).tests), {
    "top ok": "passed",
    "top bad": "failed",
    "suite > inner ok": "passed",
    "suite > skipped": "skipped",
  });
  // The line that closes the suite (`✖ suite`) is the suite's, not a test: its tests carry the outcome.
  assert.equal(parseSymbolReporter(out).tests.get("suite"), undefined);
});

test("jest verbose, vitest and mocha", () => {
  const jest = `PASS src/a.test.js
  math
    ✓ adds (2 ms)
    ✕ subtracts (1 ms)
    ○ skipped later
FAIL src/b.test.js
  ✓ b works`;
  assert.deepEqual(obj(parseSymbolReporter(jest, "jest").tests), {
    "src/a.test.js > math > adds": "passed",
    "src/a.test.js > math > subtracts": "failed",
    "src/a.test.js > math > later": "skipped",
    "src/b.test.js > b works": "passed",
  });
  const vitest = ` ✓ src/ok.test.ts (2 tests) 3ms
 ❯ src/math.test.ts (2 tests | 1 failed) 5ms
   ✓ adds 1ms
   × subtracts 2ms`;
  assert.deepEqual(obj(parseSymbolReporter(vitest, "vitest").tests), {
    "src/math.test.ts > adds": "passed",
    "src/math.test.ts > subtracts": "failed",
  });
  const mocha = `  math
    ✓ adds
    1) subtracts

  1 passing (5ms)
  1 failing

  1) math
       subtracts:`;
  assert.deepEqual(obj(parseSymbolReporter(mocha, "mocha").tests), {
    "math > adds": "passed",
    "math > subtracts": "failed",
  });
});

test("TAP with subtests", () => {
  const out = `TAP version 13
# Subtest: top ok
ok 1 - top ok
# Subtest: suite
    # Subtest: inner bad
    not ok 1 - inner bad
    # Subtest: inner skip
    ok 2 - inner skip # SKIP
ok 2 - suite
1..2`;
  assert.deepEqual(obj(parseTap(out).tests), {
    "top ok": "passed",
    "suite > inner bad": "failed",
    "suite > inner skip": "skipped",
    suite: "passed",
  });
});

test("go test -json and -v text", () => {
  const json = [
    { Action: "run", Package: "ex.com/m/a", Test: "TestA" },
    { Action: "pass", Package: "ex.com/m/a", Test: "TestA" },
    { Action: "fail", Package: "ex.com/m/a", Test: "TestB" },
    { Action: "skip", Package: "ex.com/m/b", Test: "TestC" },
    { Action: "fail", Package: "ex.com/m/c" },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n");
  const j = parseGoTest(json);
  assert.equal(j.parser, "go-json");
  assert.deepEqual(obj(j.tests), {
    "ex.com/m/a.TestA": "passed",
    "ex.com/m/a.TestB": "failed",
    "ex.com/m/b.TestC": "skipped",
    "ex.com/m/c.<package>": "failed",
  });
  const text = `=== RUN   TestA
--- PASS: TestA (0.00s)
=== RUN   TestB
--- FAIL: TestB (0.00s)
FAIL
FAIL\tex.com/m/a\t0.01s
--- PASS: TestZ (0.00s)
ok  \tex.com/m/z\t0.01s`;
  assert.deepEqual(obj(parseGoTest(text).tests), {
    "ex.com/m/a.TestA": "passed",
    "ex.com/m/a.TestB": "failed",
    "ex.com/m/z.TestZ": "passed",
  });
});

test("JUnit XML: passed, failed, errored, skipped, escaped names", () => {
  const xml = `<?xml version="1.0"?><testsuite name="s">
<testcase classname="com.ex.CalcTest" name="adds" time="0.01"/>
<testcase classname="com.ex.CalcTest" name="subtracts"><failure message="x">trace</failure></testcase>
<testcase classname="com.ex.CalcTest" name="divides"><error type="E"/></testcase>
<testcase classname="com.ex.CalcTest" name="later"><skipped/></testcase>
<testcase classname="com.ex.CalcTest" name="a &lt;b&gt;"></testcase>
</testsuite>`;
  assert.deepEqual(obj(parseJUnitXml(xml).tests), {
    "com.ex.CalcTest.adds": "passed",
    "com.ex.CalcTest.subtracts": "failed",
    "com.ex.CalcTest.divides": "failed",
    "com.ex.CalcTest.later": "skipped",
    "com.ex.CalcTest.a <b>": "passed",
  });
});

test("unparseable output gives null (the caller falls back to the exit code)", () => {
  assert.equal(parseTestOutput("npm", "all good\n", ""), null);
  assert.equal(parseTestOutput("unknown", "", "make: *** [check] Error 1"), null);
  assert.equal(parseTestOutput("unknown", "PASSED t.py::a\n", "")?.parser, "pytest");
});
