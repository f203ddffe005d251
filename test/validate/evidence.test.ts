import assert from "node:assert/strict";
import { test } from "node:test";
import { compareRuns, showsFix } from "../../src/validate/compare.ts";
import { mergeResults } from "../../src/validate/merge-runs.ts";
import { fileEntryId, isLoadFailure, whyNotCounted } from "../../src/validate/evidence.ts";
import { parseGoTest } from "../../src/runners/go/results-output.ts";
import { parsePytest } from "../../src/runners/pytest/results-output.ts";
import { parseJUnitXml } from "../../src/runners/shared/results-junit-xml.ts";
import { parseSymbolReporter } from "../../src/runners/shared/results-symbol-reporter.ts";
import { parseUnittest } from "../../src/runners/unittest/results-output.ts";
import { parseTestOutput } from "../../src/validate/output.ts";
import type { TestRun } from "../../src/validate/run-tests.ts";

const exec = (exitCode: number | null, stdout = "") =>
  ({
    exitCode,
    signal: null,
    stdout,
    stderr: "",
    truncated: false,
    limit: null,
    durationMs: 5,
    backend: "bwrap",
  }) as const;

/** A run as runTestSuite returns it, from real runner output read by the real parser. */
function fromOutput(
  command: string,
  exitCode: number,
  output: string,
  parse: (o: string) => { parser: string; tests: Map<string, "passed" | "failed" | "skipped"> },
): TestRun {
  const parsed = parse(output);
  const tests = parsed.tests.size > 0 ? parsed.tests : null;
  const count = (o: string) => (tests ? [...tests.values()].filter((v) => v === o).length : 0);
  return {
    command,
    exec: exec(exitCode, output),
    tests,
    parser: tests ? parsed.parser : "exit-code",
    passed: count("passed"),
    failed: count("failed"),
    skipped: count("skipped"),
  };
}

const counted = (tests: [string, "passed" | "failed" | "skipped"][], exitCode = 0): TestRun => ({
  command: "pytest",
  exec: exec(exitCode),
  tests: new Map(tests),
  parser: "pytest",
  passed: tests.filter(([, o]) => o === "passed").length,
  failed: tests.filter(([, o]) => o === "failed").length,
  skipped: tests.filter(([, o]) => o === "skipped").length,
});

test("every test module failing to import on both trees is 'could not run', never a pass", () => {
  // pytest's own words for two modules that cannot import a missing dependency.
  const out = [
    "==================================== ERRORS ====================================",
    "_____________________ ERROR collecting tests/test_a.py _____________________",
    "ImportError while importing test module '/workspace/tests/test_a.py'.",
    "E   ModuleNotFoundError: No module named 'missing'",
    "=========================== short test summary info ============================",
    "ERROR tests/test_a.py",
    "ERROR tests/test_b.py - ModuleNotFoundError: No module named 'missing'",
    "!!!!!!!!!!!!!!!!!!! Interrupted: 2 errors during collection !!!!!!!!!!!!!!!!!!!!",
  ].join("\n");
  const run = fromOutput("python3 -m pytest -rA", 2, out, parsePytest);
  assert.ok(run.tests && [...run.tests.keys()].every(isLoadFailure));
  assert.match(
    whyNotCounted(run) ?? "",
    /^every test module failed to load \(2: tests\/test_a.py, tests\/test_b.py\)/,
  );
  const v = compareRuns(run, run);
  assert.equal(v.status, "could-not-run");
  assert.match(v.summary, /^tests could not be run: before the patch, every test module failed to load/);
  assert.equal(showsFix(v), false);

  // unittest's stand-ins for modules it could not import.
  const uout = [
    "test_a (unittest.loader._FailedTest.test_a) ... ERROR",
    "",
    "======================================================================",
    "ERROR: test_a (unittest.loader._FailedTest.test_a)",
    "ImportError: Failed to import test module: test_a",
    "Ran 1 test in 0.000s",
    "FAILED (errors=1)",
  ].join("\n");
  const urun = fromOutput("python3 -m unittest -v", 1, uout, parseUnittest);
  assert.equal(compareRuns(urun, urun).status, "could-not-run");
});

test("a command that runs zero tests and exits 0 is 'could not run'", () => {
  const out =
    "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n";
  const run = fromOutput("python3 -m unittest discover -s checks", 0, out, parseUnittest);
  const v = compareRuns(run, run);
  assert.equal(v.status, "could-not-run");
  assert.match(v.summary, /only an exit code: its output named no single test/);
  const skippedOnly = counted([["t.a", "skipped"]]);
  assert.match(compareRuns(skippedOnly, skippedOnly).summary, /every test was skipped \(1\); none ran/);
  const told = { ...run, perTestUnavailable: "the command `make test` is a script" };
  assert.match(
    compareRuns(told, told).summary,
    /only an exit code: the command `make test` is a script, so single tests cannot be judged \(it exited with code 0\)/,
  );
});

test("a test that had an outcome before and has none after is a regression: no longer runs", () => {
  const before = counted(
    [
      ["a::ok", "passed"],
      ["a::bug", "failed"],
      ["a::skip", "skipped"],
    ],
    1,
  );
  const after = counted([["a::bug", "passed"]]);
  const v = compareRuns(before, after);
  assert.equal(v.status, "regressions");
  assert.deepEqual(v.regressions, ["a::ok (no longer runs)", "a::skip (no longer runs)"]);
  assert.deepEqual(v.fixed, ["a::bug"]);
  assert.equal(showsFix(v), false);
});

test("counted runs say how many ran on each tree, and which tests still fail", () => {
  const before = counted(
    [
      ["a::ok", "passed"],
      ["a::bug", "failed"],
      ["a::other", "failed"],
    ],
    1,
  );
  const after = counted(
    [
      ["a::ok", "passed"],
      ["a::bug", "passed"],
      ["a::other", "failed"],
      ["a::new", "passed"],
    ],
    1,
  );
  const v = compareRuns(before, after);
  assert.equal(v.status, "no-regressions");
  assert.deepEqual(v.counted, { before: 3, after: 4 });
  assert.deepEqual(v.stillFailing, ["a::other"]);
  assert.match(v.summary, /^3 tests ran before the patch and 4 after: .*; 1 fixed; 1 still failing$/);
  assert.equal(showsFix(v), true);
});

test("a tampered run is never a pass, whatever its tests say", () => {
  const before = counted([["a::bug", "failed"]], 1);
  const after: TestRun = {
    ...counted([["a::bug", "passed"]]),
    integrity: { state: "tampered", detail: "the canary that must fail was reported as passed" },
  };
  const v = compareRuns(before, after);
  assert.equal(v.status, "tampered");
  assert.deepEqual(v.fixed, []);
  assert.equal(showsFix(v), false);
  assert.match(
    v.summary,
    /^the test run after the patch cannot be trusted: the canary that must fail was reported as passed$/,
  );
  assert.deepEqual(v.integrity, after.integrity);
  const tamperedBefore = compareRuns(
    { ...before, integrity: { state: "tampered", detail: "lost" } },
    counted([["a::bug", "passed"]]),
  );
  assert.equal(tamperedBefore.status, "tampered");
  assert.match(tamperedBefore.summary, /unpatched tree cannot be trusted: lost/);
});

test("batches merge: tampered outweighs everything, counted batches outweigh one that could not run", () => {
  const ok = compareRuns(counted([["a::bug", "failed"]], 1), counted([["a::bug", "passed"]]));
  const none = compareRuns(counted([]), counted([]));
  assert.equal(none.status, "could-not-run");
  const merged = mergeResults([ok, none]);
  assert.equal(merged.status, "passed");
  assert.deepEqual(merged.counted, { before: 1, after: 1 });
  assert.match(merged.summary, /in another batch tests could not be run/);
  assert.equal(mergeResults([none, none]).status, "could-not-run");
  const bad = compareRuns(counted([["a::bug", "failed"]], 1), {
    ...counted([["a::bug", "passed"]]),
    integrity: { state: "tampered", detail: "no proof" },
  });
  assert.equal(mergeResults([ok, bad]).status, "tampered");
});

test("node --test's file entries, Go packages that did not build and JUnit 4 classes that could not run are not tests", () => {
  // node --test: a file that failed to load, and one that ran no test and exited 0 (ids as read from
  // its junit report, see run-tests.ts).
  const node = counted([
    [fileEntryId("test/a.test.js"), "failed"],
    [fileEntryId("test/b.test.js"), "passed"],
  ]);
  assert.match(whyNotCounted(node) ?? "", /^every test module failed to load \(1: test\/a\.test\.js\)$/);
  const empty = counted([[fileEntryId("test/b.test.js"), "passed"]]);
  assert.match(whyNotCounted(empty) ?? "", /^the runner collected no test \(it exited with code 0\)$/);
  // A file that loaded before the patch and no longer does is a regression.
  const ran = counted([
    ["test/b.test.js > adds", "passed"],
    [fileEntryId("test/c.test.js"), "passed"],
  ]);
  const broken = counted([
    ["test/b.test.js > adds", "passed"],
    [fileEntryId("test/c.test.js"), "failed"],
  ]);
  assert.deepEqual(compareRuns(ran, broken).regressions, [fileEntryId("test/c.test.js")]);

  // go test (before 1.24) writes a package that failed to build as text, even under -json.
  const go = parseGoTest(
    [
      "FAIL\texample.com/q/calc [build failed]",
      "FAIL\texample.com/q/text [setup failed]",
      "FAIL\texample.com/q/odd [build failed] and more",
    ].join("\n"),
  );
  assert.deepEqual(Object.fromEntries(go.tests), {
    "example.com/q/calc.<package>": "failed",
    "example.com/q/text.<package>": "failed",
  });
  // `go test -json` that names no test (packages without tests) is a run that collected none.
  const none = parseTestOutput(
    "go",
    '{"Action":"output","Package":"x","Output":"?   \\tx\\t[no test files]\\n"}\n{"Action":"skip","Package":"x"}\n',
    "",
  );
  assert.deepEqual(none && { parser: none.parser, size: none.tests.size }, { parser: "go-json", size: 0 });
  // JSON that is not an event is not `go test -json` output.
  assert.equal(parseTestOutput("go", '{"a":1}\n{}\n', ""), null);

  // JUnit 4 names a class it could not load or run `initializationError`; Gradle a class-level failure
  // `classMethod`.
  const junit = parseJUnitXml(
    '<testsuite><testcase classname="shop.PriceTest" name="initializationError"><error/></testcase><testcase classname="cart.CartTest" name="classMethod"><failure/></testcase></testsuite>',
  );
  const jrun = counted([...junit.tests]);
  assert.match(
    whyNotCounted(jrun) ?? "",
    /^every test module failed to load \(2: shop\.PriceTest, cart\.CartTest\)$/,
  );
  assert.equal(compareRuns(jrun, jrun).status, "could-not-run");
});

test("jest's 'Test suite failed to run' and vitest's failed files are the files' entries, not tests", () => {
  const jest = parseSymbolReporter(
    [
      "FAIL test/slug.test.js",
      "  ● Test suite failed to run",
      "",
      "    Cannot find module '../src/missing.js' from 'test/slug.test.js'",
      "PASS test/sum.test.js",
      "  sum",
      "    ✓ adds (2 ms)",
    ].join("\n"),
    "jest",
  );
  assert.deepEqual(Object.fromEntries(jest.tests), {
    [fileEntryId("test/slug.test.js")]: "failed",
    "test/sum.test.js > sum > adds": "passed",
  });
  const vitest = parseSymbolReporter(
    [
      " FAIL  test/slug.test.js [ test/slug.test.js ]",
      "Error: Cannot find module '../src/missing.js' imported from /workspace/test/slug.test.js",
      " FAIL  test/a.test.js [ test/b.test.js ]",
      " FAIL  test/c.test.js > c > fails",
    ].join("\n"),
    "vitest",
  );
  assert.deepEqual(Object.fromEntries(vitest.tests), {
    [fileEntryId("test/slug.test.js")]: "failed",
    "test/c.test.js > c > fails": "failed",
  });
  // node's spec reporter (a command auto-fix cannot add its junit reporter to: `cd x && node --test`).
  const node = parseSymbolReporter(
    [
      "✖ test/a.test.js (309.1ms)",
      "✔ ok (0.4ms)",
      "▶ suite",
      "  ✔ test/b.test.js (1ms)",
      "✖ failing tests:",
      "",
      "test at test/a.test.js:1:1",
      "✖ test/a.test.js (309.1ms)",
    ].join("\n"),
    "node-test",
  );
  assert.deepEqual(Object.fromEntries(node.tests), {
    [fileEntryId("test/a.test.js")]: "failed",
    ok: "passed",
    "suite > test/b.test.js": "passed",
  });
  // Linear on crafted lines: a long run of brackets is read once.
  const long = ` FAIL  ${" [ ".repeat(200_000)} ]`;
  const t0 = performance.now();
  parseSymbolReporter(long, "vitest");
  assert.ok(performance.now() - t0 < 2000);
});
