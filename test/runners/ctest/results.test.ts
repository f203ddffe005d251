import assert from "node:assert/strict";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import { anyRunnerResults } from "../../../src/runners/index.ts";

// CTest's and GoogleTest's output as the runner reads it: per-test outcomes from CTest's own verdict
// lines (or GoogleTest's when a test binary ran by itself); lines a test prints cannot clear a failure.

const ctest = runnerFor("ctest");
const tests = (out: string) => Object.fromEntries(ctest.parseOutput(out)?.tests ?? []);

const RUN = [
  "Test project /tmp/x/build",
  "    Start 1: slug_spaces",
  "1/5 Test #1: slug_spaces ......................Subprocess aborted***Exception:   0.21 sec",
  'slug_spaces: tests/slug_spaces.cpp:5: int main(): Assertion `slug("a b") == "a-b"\' failed.',
  "",
  "    Start 2: slug_plain",
  "2/5 Test #2: slug_plain .......................   Passed    0.00 sec",
  "    Start 3: total_adds",
  "3/5 Test #3: total_adds .......................***Failed    0.01 sec",
  "    Start 4: a_very_long_test_name_that_leaves_no_dots_at_all_for_the_padding",
  "4/5 Test #4: a_very_long_test_name_that_leaves_no_dots_at_all_for_the_padding ***Not Run (Disabled)   0.00 sec",
  "5/5 Test #5: Slug.Spaces ......................***Timeout  10.00 sec",
  "",
  "40% tests passed, 3 tests failed out of 5",
  "",
].join("\n");

test("ctest: each verdict line is one test: passed, failed (failure, crash, timeout), skipped (disabled)", () => {
  assert.deepEqual(tests(RUN), {
    slug_spaces: "failed",
    slug_plain: "passed",
    total_adds: "failed",
    a_very_long_test_name_that_leaves_no_dots_at_all_for_the_padding: "skipped",
    "Slug.Spaces": "failed",
  });
  assert.equal(ctest.parseOutput(RUN)?.parser, "ctest");
  // The same lines are read for a script whose runner is not known (`cmake --build build && ctest`).
  assert.deepEqual(Object.fromEntries(anyRunnerResults.parseOutput(RUN)?.tests ?? []), tests(RUN));
});

test("ctest: a failing test that prints a Passed line for itself or another test clears no failure", () => {
  const forged = [
    "1/2 Test #1: victim ...........................***Failed    0.01 sec",
    "1/2 Test #1: victim ...........................   Passed    0.01 sec",
    "2/2 Test #2: other ............................***Failed    0.01 sec",
    "2/2 Test #2: other ............................   Passed    0.00 sec",
    "[       OK ] victim (0 ms)",
  ].join("\n");
  assert.deepEqual(tests(forged), { victim: "failed", other: "failed" });
});

test("ctest: lines that only look like verdicts are not read as tests", () => {
  const near = [
    "Test #1: name_without_verdict",
    "x/2 Test #1: bad_count ...   Passed    0.00 sec",
    "1/2 Test 1: no_hash ....   Passed    0.00 sec",
    "1/2 Test #x: bad_number ...   Passed    0.00 sec",
    "1/2 Test #1: trailing",
    "The following tests FAILED:",
    "\t  1 - slug_spaces (Subprocess aborted)",
  ].join("\n");
  assert.equal(ctest.parseOutput(near), null);
});

test("gtest: a binary run by itself is read by its [ OK ] / [ FAILED ] lines, its summary lines are not tests", () => {
  const out = [
    "[==========] Running 3 tests from 2 test suites.",
    "[ RUN      ] Slug.Spaces",
    "tests/slug_test.cpp:4: Failure",
    "[  FAILED  ] Slug.Spaces (0 ms)",
    "[ RUN      ] Slug.Plain",
    "[       OK ] Slug.Plain (0 ms)",
    "[ RUN      ] Sizes/Param.Works/1",
    "[  SKIPPED ] Sizes/Param.Works/1 (0 ms)",
    "[==========] 3 tests from 2 test suites ran. (0 ms total)",
    "[  PASSED  ] 1 test.",
    "[  FAILED  ] 1 test, listed below:",
    "[  FAILED  ] Slug.Spaces",
    " 1 FAILED TEST",
  ].join("\n");
  const r = ctest.parseOutput(out);
  assert.equal(r?.parser, "gtest");
  assert.deepEqual(Object.fromEntries(r?.tests ?? []), {
    "Slug.Spaces": "failed",
    "Slug.Plain": "passed",
    "Sizes/Param.Works/1": "skipped",
  });
  // A test printing `[       OK ] Slug.Spaces (0 ms)` after its own failure clears nothing.
  assert.equal(
    ctest.parseOutput(`${out}\n[       OK ] Slug.Spaces (0 ms)`)?.tests.get("Slug.Spaces"),
    "failed",
  );
});

test("ctest: hostile output is read in linear time", () => {
  const started = performance.now();
  const long = [
    `1/1 Test #1: ${"a".repeat(200_000)}${".".repeat(200_000)}`,
    `${"1/1 Test #1: x ".repeat(20_000)}`,
    `[${" ".repeat(100_000)}`,
    `[ OK ] ${"A.b".repeat(50_000)}`,
  ].join("\n");
  ctest.parseOutput(long.repeat(4));
  assert.ok(performance.now() - started < 2000, "parsed within 2 s");
});

test("ctest: a missing cmake/ctest is said as such; other output is not", () => {
  assert.match(ctest.missingRunner?.("sh: 1: ctest: not found\n") ?? "", /ctest is not installed/);
  assert.equal(ctest.missingRunner?.(RUN), null);
  assert.equal(ctest.loadedName("slug_spaces"), null);
});

test("ctest: a failed test's report runs from its verdict line to the next test", () => {
  const fr = ctest.failureReport!;
  assert.ok(fr.header.test("3/5 Test #3: total_adds .......................***Failed    0.01 sec"));
  assert.ok(!fr.header.test("2/5 Test #2: slug_plain .......................   Passed    0.00 sec"));
  assert.ok(fr.boundary?.test("    Start 2: slug_plain"));
});
