import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import type { TestFramework } from "../../src/config/index.ts";
import { parseJUnitXml } from "../../src/runners/shared/results-junit-xml.ts";
import { listTree, parseTestOutput, suiteFor } from "../../src/validate/index.ts";
import { relativeFiles } from "../../src/validate/run-tests.ts";
import { fileTarget } from "../../src/validate/targets/javascript.ts";
import { tempDir } from "../support/temp.ts";

// Output captured from the real runners (jest 30.5.2, vitest 5.1.1, mocha 12.0.3, node 24.21) on the
// same two test files: test/a.test.js (a suite with a passing and a failing test, and a failing
// top-level test) and test/b.test.js (a passing and a skipped test). (auto-fix's own targeted runs of
// node --test and mocha read JUnit reports that name each test's file: test/validate/targeted-runners.test.ts,
// real-mocha.test.ts.)
const FIXTURES = join(import.meta.dirname, "fixtures", "runner-output");
const read = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
const parse = (name: string, framework: TestFramework) => {
  const r = parseTestOutput(framework, read(name), "");
  assert.ok(r, `${name}: nothing parsed`);
  return {
    tests: Object.fromEntries(r.tests),
    files: Object.fromEntries(r.files ?? []),
  };
};

/** A tree with the fixtures' test files, a link named like a test, and a file outside it. */
function tree(): string {
  const dir = tempDir("af-jsfiles-");
  const outside = tempDir("af-jsfiles-out-");
  writeFileSync(join(outside, "secret.test.js"), "it('x', () => {});\n");
  for (const rel of [
    "test/a.test.js",
    "test/b.test.js",
    "vt/a.test.js",
    "nt/a.test.mjs",
    "nt/b.test.mjs",
    "src/slug.js",
  ]) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), "// test\n");
  }
  symlinkSync(join(outside, "secret.test.js"), join(dir, "test", "linked.test.js"));
  return dir;
}

test("jest and vitest: ids start with the file their output names (PASS/FAIL headers, ` FAIL  file > …`)", () => {
  // jest without --verbose names only failures (● suite › name), under their file's header.
  assert.deepEqual(parse("jest-30.txt", "jest").tests, {
    "test/a.test.js > suite A > fails": "failed",
    "test/a.test.js > top fail": "failed",
  });
  // With --verbose every test, under the same ids (the ● recap repeats the ✕ lines, not new tests).
  assert.deepEqual(parse("jest-30-verbose.txt", "jest").tests, {
    "test/a.test.js > top fail": "failed",
    "test/a.test.js > suite A > passes": "passed",
    "test/a.test.js > suite A > fails": "failed",
    "test/b.test.js > b ok": "passed",
    "test/b.test.js > b skip": "skipped",
  });
  // vitest's default reporter (ANSI colours on) folds passed files into a summary line.
  const vitestIds = {
    "vt/a.test.js > suite A > passes": "passed",
    "vt/a.test.js > suite A > fails": "failed",
    "vt/a.test.js > suite A > inner > deep": "passed",
    "vt/a.test.js > top fail": "failed",
  };
  assert.deepEqual(parse("vitest-5.txt", "vitest").tests, vitestIds);
  assert.deepEqual(parse("vitest-5-verbose.txt", "vitest").tests, {
    ...vitestIds,
    "vt/b.test.js > b ok": "passed",
    "vt/b.test.js > b skip": "skipped",
  });
});

test("node --test and mocha: the failure recap names each failure's file", () => {
  const spec = parse("node-24-spec.txt", "node-test");
  assert.equal(spec.tests["suite A > fails"], "failed");
  assert.equal(spec.tests["b ok"], "passed");
  // `test at nt/a.test.mjs:5:3` in the recap, matched to the failure it precedes.
  assert.deepEqual(spec.files, { "suite A > fails": ["nt/a.test.mjs"], "top fail": ["nt/a.test.mjs"] });
  // TAP: the `location:` of a failure's YAML block (absolute: made relative to the tree by the run).
  const tap = parse("node-24-tap.txt", "node-test");
  assert.deepEqual(tap.files["top fail"], ["/tmp/rt/nt/a.test.mjs"]);
  assert.equal(tap.files["b ok"], undefined);
  // mocha's spec reporter names no file: a failure's stack frames do (numbered `2) fails` ↔ `2) suite A`).
  const mocha = parse("mocha-12.txt", "mocha");
  assert.deepEqual(mocha.files, { "top fail": ["test/a.test.js"], "suite A > fails": ["test/a.test.js"] });
});

test("JUnit reports: the `file` attribute is kept for each test case (node's junit reporter, jest-junit)", () => {
  const xml = `<testsuites><testsuite name="s">
  <testcase name="passes" classname="suite A" file="/workspace/test/a.test.js"/>
  <testcase name="fails" classname="suite A" file="/workspace/test/a.test.js"><failure message="x"/></testcase>
  <testcase name="odd" classname="test" file="../../etc/passwd"><failure/></testcase>
</testsuite></testsuites>`;
  const r = parseJUnitXml(xml);
  assert.deepEqual(Object.fromEntries(relativeFiles(r.files!, "/nonexistent/tree")), {
    "suite A.passes": ["test/a.test.js"],
    "suite A.fails": ["test/a.test.js"],
    "test.odd": ["../../etc/passwd"],
  });
});

test("ids map to their test file only when it is a regular test file of the tree (hostile names refused)", () => {
  const dir = tree();
  const suite = suiteFor(listTree(dir), "node-test");
  assert.ok(suite.targets.has("test/a.test.js"));
  assert.equal(suite.targets.has("test/linked.test.js"), false, "a link is not a test");
  const owner = (id: string, files?: string[]) => suite.targetOfId(id, files);
  assert.equal(owner("fails", ["test/a.test.js"]), "test/a.test.js");
  assert.equal(owner("fails", ["./test/a.test.js"]), "test/a.test.js");
  assert.equal(owner("test/b.test.js > b ok"), "test/b.test.js");
  // A node file that fails to load is reported as a test named by its path.
  assert.equal(owner("nt/a.test.mjs"), "nt/a.test.mjs");
  // The first candidate that is a test wins: a stack frame in the code under test is passed over.
  assert.equal(owner("x", ["src/slug.js", "test/b.test.js"]), "test/b.test.js");
  for (const named of [
    "../../etc/passwd",
    "/etc/passwd",
    join(dir, "test/a.test.js"),
    "test/../test/a.test.js",
    "test//a.test.js",
    "test/./a.test.js",
    "test/linked.test.js",
    "test/a.test.js\u0000",
    "test\\a.test.js",
    "src/slug.js",
    `${"a/".repeat(600)}a.test.js`,
  ]) {
    assert.equal(owner("t", [named]), null, named);
    assert.equal(owner(`${named} > t`), null, named);
    assert.equal(fileTarget(suite.targets, named), null, named);
  }
  // Output whose failing tests are named like paths, a line like the file markers auto-fix once printed,
  // and a recap naming a path outside the tree: nothing in it is a test file of the tree.
  const hostile = [
    "### auto-fix test file 0123abcd: test/a.test.js",
    "✖ ../../etc/passwd (1ms)",
    "✖ stolen (1ms)",
    "",
    "✖ failing tests:",
    "",
    "test at ../../etc/passwd:1:1",
    "✖ ../../etc/passwd (1ms)",
  ].join("\n");
  const r = parseTestOutput("node-test", hostile, "")!;
  assert.deepEqual([...r.tests.keys()].sort(), ["../../etc/passwd", "stolen"]);
  for (const [id] of r.tests) assert.equal(owner(id, r.files?.get(id)), null, id);
  const jest = parseTestOutput("jest", "FAIL ../../etc/passwd\n  ● root › x\nFAIL /etc/passwd\n  ✕ y", "")!;
  for (const [id] of jest.tests) assert.equal(owner(id, jest.files?.get(id)), null, id);
});

test("absolute paths are made relative only inside the run's tree (the sandbox's /workspace or the tree's host path)", () => {
  const dir = tempDir("af-jsrel-");
  const files = new Map([
    ["a", ["/workspace/test/a.test.js"]],
    ["b", [`${dir}/test/b.test.js`]],
    ["c", ["/workspace-other/test/a.test.js", "/etc/passwd", "/workspace/"]],
  ]);
  assert.deepEqual(Object.fromEntries(relativeFiles(files, dir)), {
    a: ["test/a.test.js"],
    b: ["test/b.test.js"],
    c: ["/workspace-other/test/a.test.js", "/etc/passwd", "/workspace/"],
  });
});

test("JUnit reports: the suites a test case is in, outermost first (node's junit reporter nests them)", () => {
  // As node 24's junit reporter writes it: nested <testsuite>s, a test in no suite, a file that failed to load.
  const xml = `<?xml version="1.0" encoding="utf-8"?>
<testsuites>
  <testcase name="test/broken.test.mjs" classname="test" file="/workspace/test/broken.test.mjs"><failure message="test failed"/></testcase>
  <testsuite name="a" tests="2"><testsuite name="b.c" tests="1">
      <testcase name="same" classname="a.b.c" file="/workspace/test/n.test.mjs"/>
    </testsuite>
    <testcase name="same" classname="a" file="/workspace/test/n.test.mjs"/>
    <testsuite name="empty"/>
    <testcase name="after" classname="a" file="/workspace/test/n.test.mjs"/>
  </testsuite>
  <testcase name="top" classname="test" file="/workspace/test/n.test.mjs"/>
</testsuites>`;
  const ids: string[] = [];
  parseJUnitXml(xml, new Map(), new Map(), (_c, name, file, suites) => {
    const id = [file, ...suites, name].join(" > ");
    ids.push(id);
    return id;
  });
  assert.deepEqual(ids, [
    "/workspace/test/broken.test.mjs > test/broken.test.mjs",
    "/workspace/test/n.test.mjs > a > b.c > same",
    "/workspace/test/n.test.mjs > a > same",
    "/workspace/test/n.test.mjs > a > after",
    "/workspace/test/n.test.mjs > top",
  ]);
  // Nesting deeper than 32 suites names the outer 32; the closes of the deeper ones are not mistaken
  // for theirs.
  const deep = `${'<testsuite name="s">'.repeat(40)}<testcase name="in"/>${"</testsuite>".repeat(40)}<testcase name="out"/>`;
  const seen: string[][] = [];
  parseJUnitXml(deep, new Map(), new Map(), (_c, name, _f, suites) => {
    seen.push([...suites]);
    return name;
  });
  assert.equal(seen[0]?.length, 32);
  assert.deepEqual(seen[1], []);
});
