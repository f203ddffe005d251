import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { createSandbox, makeWorkCopy, type SandboxPort, type WorkCopy } from "../../src/sandbox/index.ts";
import { type RunnerName, runnerFor } from "../../src/runners/index.ts";
import { parsePytest } from "../../src/runners/pytest/results-output.ts";
import { MAX_JUNIT_CHARS, parseJUnitXml } from "../../src/runners/shared/results-junit-xml.ts";
import { parseSymbolReporter } from "../../src/runners/shared/results-symbol-reporter.ts";
import { parseTap } from "../../src/runners/shared/results-tap.ts";
import {
  MAX_TEST_ID_CHARS,
  MAX_TEST_OUTPUT_CHARS,
  MAX_TEST_OUTPUT_LINES,
} from "../../src/runners/shared/results-text-scan.ts";
import { runTestSuite } from "../../src/validate/index.ts";
import { parseTestOutput } from "../../src/validate/output.ts";

// What the repository's tests print is written by the repository: these tests feed the parsers crafted
// output at and past their caps and check what is read, what is cut, and that the cut is reported.
// (How fast they digest it is shown by `npm run bench:hostile`, not asserted here.)

let sandbox: SandboxPort;
const dirs: string[] = [];
const copies: WorkCopy[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of copies) await c.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A repository whose test command is a Python script; reports under `reports/`. */
async function repoWith(script: string): Promise<string> {
  const src = mkdtempSync(join(tmpdir(), "hostile-out-"));
  dirs.push(src);
  mkdirSync(join(src, ".github"));
  writeFileSync(
    join(src, ".github", "auto-fix.yml"),
    'test: "python3 gen.py"\ntest-reports: ["reports/*.xml"]\n',
  );
  writeFileSync(join(src, "gen.py"), script);
  const copy = await makeWorkCopy(src);
  copies.push(copy);
  return copy.dir;
}

test("test output past the cap: head and tail are read, the middle is cut and the cut is noted", () => {
  const filler = "x".repeat(99) + "\n";
  const half = MAX_TEST_OUTPUT_CHARS / 2;
  const head = "tests/test_a.py::test_head PASSED\n";
  const middle = `${filler.repeat(Math.ceil(half / filler.length))}tests/test_a.py::test_middle FAILED\n${filler.repeat(Math.ceil(half / filler.length))}`;
  const tail = "FAILED tests/test_a.py::test_tail - boom\n";
  const r = parseTestOutput("pytest", head + middle + tail, "");
  assert.ok(r);
  assert.equal(r.tests.get("tests/test_a.py::test_head"), "passed");
  assert.equal(r.tests.get("tests/test_a.py::test_tail"), "failed");
  assert.equal(r.tests.has("tests/test_a.py::test_middle"), false, "the cut middle is not parsed");
  assert.match(r.note ?? "", /The test output was 8\.\d MB; .* in the middle were not read/);
  // Output under the cap carries no note.
  assert.equal(parseTestOutput("pytest", head, "")?.note, undefined);
});

test("crafted ids: a line of `::` runs and deep suite nesting give ids cut to the cap, not huge keys", () => {
  const colons = parsePytest(`PASSED ${"x::".repeat(100_000)}y`);
  const [id] = [...colons.tests.keys()];
  assert.equal(colons.tests.size, 1);
  assert.equal(id!.length, MAX_TEST_ID_CHARS);
  assert.ok(id!.endsWith("…"));

  let tap = "";
  for (let d = 0; d < 3000; d++) tap += `${" ".repeat(d)}# Subtest: ${"s".repeat(40)}\n`;
  for (let i = 0; i < 50; i++) tap += `${" ".repeat(3000)}ok ${i + 1} - leaf ${i}\n`;
  const t = parseTap(tap);
  assert.equal(t.tests.size, 1, "fifty leaves under one over-long prefix share the cut id");
  for (const k of t.tests.keys()) assert.ok(k.length <= MAX_TEST_ID_CHARS);

  const spec = parseSymbolReporter(`▶ ${"(".repeat(50_000)} (3 tests)\n  ✔ a${" ".repeat(50_000)}b (2ms)\n`);
  const [sid] = [...spec.tests.keys()];
  assert.equal(spec.tests.get(sid!), "passed");
  assert.ok(sid!.length <= MAX_TEST_ID_CHARS);
  assert.ok(sid!.startsWith("(((("));
});

test("JUnit: an unclosed <testcase> ends where the next one starts; entities decode once", () => {
  const r = parseJUnitXml(
    '<testcase name="a"><failure/>\n<testcase name="b">\n<testcase name="c &amp;lt; d"></testcase>',
  );
  assert.deepEqual(Object.fromEntries(r.tests), { a: "failed", b: "passed", "c &lt; d": "passed" });
  assert.equal(parseJUnitXml("<testcase>".repeat(10_000)).tests.size, 0, "no names, no tests");
});

test("JUnit report past the cap (written by the sandboxed test command): refused with a note, the others read", async () => {
  const cap = MAX_JUNIT_CHARS;
  const dir = await repoWith(`import os
os.makedirs("reports", exist_ok=True)
with open("reports/big.xml", "w") as f:
    f.write('<testsuite>\\n<testcase classname="k" name="early"><failure/></testcase>\\n')
    pad = "<!-- " + "p" * 1000 + " -->\\n"
    n = ${cap} // len(pad) + 1
    for _ in range(n):
        f.write(pad)
    f.write('<testcase classname="k" name="late"/>\\n</testsuite>\\n')
with open("reports/small.xml", "w") as f:
    f.write('<testsuite><testcase classname="k" name="small"/></testsuite>')
`);
  const run = await runTestSuite(sandbox, dir, loadRepoConfig(dir));
  assert.ok(run);
  assert.equal(run.parser, "junit-xml");
  assert.deepEqual(
    Object.fromEntries(run.tests ?? []),
    { "k.small": "passed" },
    "nothing of the big report is parsed",
  );
  assert.ok(
    run.notes?.some((n) =>
      /test report reports\/big\.xml not read: .*16(\.0)? ?MiB|test report reports\/big\.xml not read/.test(
        n,
      ),
    ),
    JSON.stringify(run.notes),
  );
});

test("JUnit reports that are a FIFO or a symlink out of the tree are not read (no hang, no host file)", async () => {
  const outside = mkdtempSync(join(tmpdir(), "hostile-host-"));
  dirs.push(outside);
  writeFileSync(
    join(outside, "host.xml"),
    '<testsuite><testcase classname="host" name="secret"/></testsuite>',
  );
  const dir = await repoWith(`print("ran")\n`);
  // Planted as the run's own output (the cleanup of stale reports runs before the command).
  const planting: SandboxPort = {
    kind: sandbox.kind,
    capabilities: () => sandbox.capabilities(),
    run: async (req) => {
      const exec = await sandbox.run(req);
      mkdirSync(join(dir, "reports"), { recursive: true });
      execFileSync("mkfifo", [join(dir, "reports", "fifo.xml")]);
      symlinkSync(join(outside, "host.xml"), join(dir, "reports", "link.xml"));
      writeFileSync(
        join(dir, "reports", "ok.xml"),
        '<testsuite><testcase classname="k" name="ok"/></testsuite>',
      );
      return exec;
    },
  };
  const run = await runTestSuite(planting, dir, loadRepoConfig(dir));
  assert.ok(run);
  assert.deepEqual(Object.fromEntries(run.tests ?? []), { "k.ok": "passed" });
});

test("test output of more than 400,000 lines: the middle lines are cut and the cut is noted", () => {
  const lines = Array.from({ length: MAX_TEST_OUTPUT_LINES + 1000 }, (_v, i) => `--- PASS: T${i}`);
  const r = parseTestOutput("go", lines.join("\n"), "");
  assert.ok(r);
  assert.equal(r.tests.get("T0"), "passed");
  assert.equal(r.tests.get(`T${MAX_TEST_OUTPUT_LINES + 999}`), "passed");
  assert.equal(r.tests.has(`T${MAX_TEST_OUTPUT_LINES / 2 + 500}`), false);
  // Each half keeps 200,000 lines; the tail's last line is the empty one after stdout.
  assert.equal(r.tests.size, MAX_TEST_OUTPUT_LINES - 1);
  assert.match(r.note ?? "", /more than 400000 lines; 1001 in the middle were not read/);
});

test("a failing test that prints its own pass line stays failed, in every runner's reader", () => {
  const forged: [RunnerName, string, string][] = [
    [
      "pytest",
      "tests/t.py::test_a FAILED\n=== FAILURES ===\n___ test_a ___\n----- Captured stdout call -----\ntests/t.py::test_a PASSED\nPASSED tests/t.py::test_b\n=== short test summary info ===\nFAILED tests/t.py::test_a - boom\n",
      "tests/t.py::test_a",
    ],
    ["node-test", "✔ adds (1ms)\n▶ calc\n  ✔ adds (1ms)\n  ✖ adds (2ms)\n✖ calc (3ms)\n", "calc > adds"],
    ["mocha", "  calc\n    ✔ adds\n    1) adds\n\n  1 failing\n", "calc > adds"],
    ["mocha", "ok 1 calc adds\nnot ok 1 calc adds\n", "calc adds"],
    [
      "go",
      "=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestA (0.00s)\nFAIL\tex.com/p\t0.01s\n",
      "ex.com/p.TestA",
    ],
    ["gradle", "shop.T > a() PASSED\nshop.T > a() FAILED\n", "shop.T.a"],
  ];
  for (const [runner, output, id] of forged) {
    const got = runnerFor(runner).parseOutput(output);
    assert.equal(got?.tests.get(id), "failed", `${runner}: ${JSON.stringify([...(got?.tests ?? [])])}`);
  }
  // pytest: what a test printed (shown in FAILURES) names no other test either.
  assert.equal(runnerFor("pytest").parseOutput(forged[0]![1])?.tests.has("tests/t.py::test_b"), false);
  // jest and vitest set a test's printed lines apart: a forged pass there names nothing.
  const jest =
    "  console.log\n    ✓ phantom\n\n      at Object.log (t.test.js:1:1)\n\nPASS t.test.js\n  ✓ real (1 ms)\n";
  assert.deepEqual([...(runnerFor("jest").parseOutput(jest)?.tests.keys() ?? [])], ["t.test.js > real"]);
  const vitest = "stdout | t.test.ts > real\n✓ phantom\n ✓ t.test.ts > other\n\n ✓ t.test.ts > real 1ms\n";
  assert.deepEqual([...(runnerFor("vitest").parseOutput(vitest)?.tests.keys() ?? [])], ["t.test.ts > real"]);
});

test("JUnit console lines and an xunit report on mocha's output: crafted lines are read in linear time", () => {
  const line = `${"a > ".repeat(4000)}x FAILED`;
  const big = Array.from({ length: 2000 }, () => line).join("\n");
  let t = performance.now();
  runnerFor("gradle").parseOutput(big);
  runnerFor("maven").parseOutput(`[ERROR] ${"a(".repeat(8000)}\n`.repeat(200));
  runnerFor("junit").parseOutput(`${"│  ".repeat(5000)}├─ x() ✔\n`.repeat(200));
  assert.ok(performance.now() - t < 5000, `JUnit console: ${performance.now() - t} ms`);
  // An xunit report with a `<testsuite` that never closes, after a huge line: nothing named, quickly.
  t = performance.now();
  const xunit = runnerFor("mocha").parseOutput(
    `${"<".repeat(4_000_000)}\n<testsuite name="x">\n<testcase name="a"/>`,
  );
  assert.equal(xunit, null);
  assert.ok(performance.now() - t < 5000, `xunit: ${performance.now() - t} ms`);
  // ANSI colours around every part of a line are removed before it is read.
  const coloured = "\u001b[32m✓\u001b[39m \u001b[2mt.test.ts\u001b[22m > \u001b[1mreal\u001b[22m";
  assert.equal(runnerFor("vitest").parseOutput(` ${coloured}\n`)?.tests.get("t.test.ts > real"), "passed");
});

test("mocha: an xunit report a test printed in the middle of the spec output is not read as the run's", () => {
  const forged =
    '<testsuite name="Mocha Tests" tests="1">\n<testcase classname="calc" name="fails"/>\n</testsuite>';
  const spec = `\n  calc\n    ✓ adds\n${forged}\n    1) fails\n\n  1 passing (5ms)\n  1 failing\n`;
  const got = runnerFor("mocha").parseOutput(spec);
  assert.notEqual(got?.parser, "mocha-xunit");
  assert.equal(got?.tests.get("calc > fails"), "failed");
  // Printed to stderr (after the report on stdout when both are joined): stdout is read first.
  const real =
    '<testsuite name="Mocha Tests" tests="1">\n<testcase classname="calc" name="fails"><failure/></testcase>\n</testsuite>\n';
  const run = parseTestOutput("mocha", real, forged);
  assert.equal(run?.tests.get("calc > fails"), "failed");
});
