/**
 * What a run may claim, end to end, with runners other than Python's: `auto-fix issue --dry-run` with
 * the real pipeline, the real sandbox and real node --test, go test and JUnit 4, the scripted model
 * playing a model that approves whatever it wrote (a reproducer in the repository's language). A real
 * fix is "fixed" with its test named; test files that all fail to load, and a patch that ends the runner
 * early (the reproducer then exits 0 too), never reach "fixed" or ✅.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { testsLine, truthRun } from "../support/truth-run.ts";
import { XML_RUNNER } from "../support/junit-xml-runner.ts";

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

// --- node --test ---

const SLUG = 'export function slug(s) {\n  return s.toLowerCase().replace(" ", "-");\n}\n';
const nodeTest = (head: string, body: string) =>
  `import { test } from "node:test";\nimport assert from "node:assert";\n${head}\n${body}\n`;
const NODE_FILES = (tests: Record<string, string>): Record<string, string> => ({
  ".github/auto-fix.yml": "test: node --test\n",
  "package.json": JSON.stringify({ name: "slugs", private: true, type: "module" }),
  "src/slug.js": SLUG,
  ...tests,
});
const SLUG_TESTS = {
  "test/slug.test.js": nodeTest(
    'import { slug } from "../src/slug.js";',
    'test("one space", () => assert.equal(slug("A B"), "a-b"));\ntest("many words", () => assert.equal(slug("A B C"), "a-b-c"));',
  ),
};
const NODE_REPRO =
  'import assert from "node:assert";\nimport { slug } from "./src/slug.js";\n\nassert.equal(slug("A B C"), "a-b-c");\n';
const NODE_FIX = {
  file: "src/slug.js",
  original: '  return s.toLowerCase().replace(" ", "-");',
  patched: '  return s.toLowerCase().replaceAll(" ", "-");',
};
const NODE_LOCATION = { file: "src/slug.js", method: "slug" };

test("node --test control: a real fix is fixed, with the fixed test named", async () => {
  const r = await truthRun({
    files: NODE_FILES(SLUG_TESTS),
    location: NODE_LOCATION,
    patch: NODE_FIX,
    reproducer: NODE_REPRO,
    reproducerLanguage: "javascript",
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.deepEqual(v.fixed, ["test/slug.test.js > many words"]);
  assert.equal(v.shows_fix, true);
  assert.deepEqual(v.counted, { before: 2, after: 2 });
  assert.match(
    r.result.evidence?.rests_on ?? "",
    /^the repository's tests: test\/slug\.test\.js \\?> many words failed before the patch and passes after it; the reproducer/,
  );
  assert.equal(
    testsLine(r.status),
    "- ✅ Ran the repository's tests — 2 tests ran before the patch and 2 after: no regressions; 1 test that failed before passes now",
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Validation\n\n✅ 2 tests ran before the patch and 2 after: no regressions; 1 test that failed before passes now\n/,
  );
  assert.match(
    r.body,
    /## Evidence\n\n✅ Marked fixed: it rests on [\s\S]*the repository's tests: test\/slug\.test\.js \\?> many words failed before the patch and passes after it;/,
  );
});

test("node --test: every test file failing to load is 'tests could not be run': patched, ⚠, never ✅", async () => {
  const r = await truthRun({
    files: NODE_FILES({
      "test/slug.test.js": nodeTest(
        'import { slug } from "../src/slug.js";\nimport { pad } from "../src/pad.js";',
        'test("many words", () => assert.equal(slug(pad("A B C")), "a-b-c"));',
      ),
    }),
    location: NODE_LOCATION,
    patch: NODE_FIX,
    reproducer: NODE_REPRO,
    reproducerLanguage: "javascript",
  });
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "could-not-run");
  assert.equal(v.passed, false);
  assert.equal(v.shows_fix, false);
  assert.deepEqual(v.fixed, []);
  assert.equal(
    testsLine(r.status),
    "- ⚠️ Tests could not be run: before the patch, every test module failed to load (1: `test/slug.test.js`); the patch was not validated by the repository's tests",
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Validation\n\n⚠️ Tests could not be run: before the patch, every test module failed to load \(1: test\/slug\.test\.js\)/,
  );
  assert.match(
    r.body,
    /## Evidence\n\n⚠️ Not marked fixed: [\s\S]*the repository's tests could not be run: before the patch, every test module failed to load/,
  );
});

// --- go test ---

const noGo = !has("go", ["version"]) && "go is not installed";
const CALC =
  "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Half(a int) int {\n\treturn a / 3\n}\n";
const GO_FILES = {
  ".github/auto-fix.yml": "test: go test ./...\ntimeouts:\n  test: 300\n  reproducer: 300\n",
  "go.mod": "module example.com/q\n\ngo 1.19\n",
  "calc/calc.go": CALC,
  "calc/calc_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n\nfunc TestHalf(t *testing.T) {\n\tif Half(4) != 2 {\n\t\tt.Fatal("half")\n\t}\n}\n',
};
const GO_REPRO =
  'package main\n\nimport (\n\t"fmt"\n\t"os"\n\n\t"example.com/q/calc"\n)\n\nfunc main() {\n\tif got := calc.Half(4); got != 2 {\n\t\tfmt.Fprintln(os.Stderr, "AssertionError: Half(4) =", got)\n\t\tos.Exit(1)\n\t}\n}\n';
const GO_LOCATION = { file: "calc/calc.go", method: "Half" };

test("go test control: a real fix is fixed, with the fixed test named", { skip: noGo }, async () => {
  const r = await truthRun({
    files: GO_FILES,
    location: GO_LOCATION,
    patch: { file: "calc/calc.go", original: "\treturn a / 3", patched: "\treturn a / 2" },
    reproducer: GO_REPRO,
    reproducerLanguage: "go",
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.deepEqual(v.fixed, ["example.com/q/calc.TestHalf"], JSON.stringify(v, null, 1));
  assert.deepEqual(v.counted, { before: 2, after: 2 });
  assert.equal(
    testsLine(r.status),
    "- ✅ Ran the repository's tests — 2 tests ran before the patch and 2 after: no regressions; 1 test that failed before passes now",
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Evidence\n\n✅ Marked fixed: it rests on [\s\S]*the repository's tests: example\.com\/q\/calc\.TestHalf failed before the patch and passes after it;/,
  );
});

const GO_EXIT = {
  file: "calc/calc.go",
  original: "package calc\n",
  patched: 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n',
};

test("go test: a patch whose init() exits 0 (so the reproducer passes) is never fixed: the tests no longer run", {
  skip: noGo,
}, async () => {
  const r = await truthRun({
    files: {
      ...GO_FILES,
      // One review round: the rewrite the validation asks for is the same patch, and the closing
      // round's validation rejects it again.
      ".github/auto-fix.yml": `${GO_FILES[".github/auto-fix.yml"]}budgets:\n  review-rounds: 1\n`,
    },
    location: GO_LOCATION,
    patch: GO_EXIT,
    rewrites: [GO_EXIT],
    reproducer: GO_REPRO,
    reproducerLanguage: "go",
  });
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  // The canary package's test was lost with the rest: the run was tampered with (and its tests no
  // longer run).
  assert.equal(v.status, "tampered");
  assert.equal(v.shows_fix, false);
  assert.deepEqual(v.fixed, []);
  assert.equal(v.integrity?.state, "tampered");
  assert.match(testsLine(r.status), /^- ❌ The test run cannot be trusted: /);
  assert.match(r.result.reason, /not "fixed": the repository's test run cannot be trusted/);
  assert.ok(r.body);
  assert.match(r.body, /## Validation\n\n❌ /);
  assert.match(r.body, /## Evidence\n\n⚠️ Not marked fixed: [\s\S]*cannot be trusted/);
  assert.ok(!r.body.includes("✅ Marked fixed"), r.body);
  assert.ok(!r.status.includes("✅ Ran the repository's tests"), r.status);
});

// --- JUnit 4 (a runner of the repository's that writes JUnit XML, read through `test-reports`) ---

const noJava = !has("javac", ["-version"]) && "javac is not installed";
const JUNIT_CP = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
const JAVA_BUILD = `rm -rf /tmp/af-out && mkdir -p /tmp/af-out && javac -nowarn -d /tmp/af-out -cp ${JUNIT_CP} $(find src -name '*.java')`;
const JAVA_RUN = `java -cp /tmp/af-out:${JUNIT_CP} XmlRunner`;
const JAVA_FILES = {
  ".github/auto-fix.yml": [
    `test: ${JAVA_BUILD} && ${JAVA_RUN} shop.PriceTest`,
    'test-reports: ["reports/*.xml"]',
    "validation:",
    "  runner: junit",
    `  command: ${JAVA_BUILD} && ${JAVA_RUN} {tests}`,
    "timeouts:",
    "  test: 300",
    "  reproducer: 300",
    "",
  ].join("\n"),
  "src/main/java/shop/Price.java":
    "package shop;\n\npublic class Price {\n  public static int half(int p) {\n    return p / 3;\n  }\n}\n",
  "src/test/java/XmlRunner.java": XML_RUNNER,
  "src/test/java/shop/PriceTest.java":
    "package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class PriceTest {\n  @Test public void half() { assertEquals(5, Price.half(10)); }\n  @Test public void zero() { assertEquals(0, Price.half(0)); }\n}\n",
};
const JAVA_REPRO =
  'public class Reproducer {\n  public static void main(String[] args) {\n    int got = shop.Price.half(10);\n    if (got != 5) throw new AssertionError("half(10) = " + got);\n  }\n}\n';

test("JUnit 4 control: a real fix is fixed, with the fixed test named", { skip: noJava }, async () => {
  const r = await truthRun({
    files: JAVA_FILES,
    location: { file: "src/main/java/shop/Price.java", method: "half" },
    patch: {
      file: "src/main/java/shop/Price.java",
      original: "    return p / 3;",
      patched: "    return p / 2;",
    },
    reproducer: JAVA_REPRO,
    reproducerLanguage: "java",
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  const v = r.result.validation!;
  assert.deepEqual(v.fixed, ["shop.PriceTest.half"], JSON.stringify(v, null, 1));
  assert.deepEqual(v.counted, { before: 2, after: 2 });
  assert.equal(
    testsLine(r.status),
    "- ✅ Ran the repository's tests — 2 tests ran before the patch and 2 after: no regressions; 1 test that failed before passes now",
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Evidence\n\n✅ Marked fixed: it rests on [\s\S]*the repository's tests: shop\.PriceTest\.half failed before the patch and passes after it;/,
  );
});

test("JUnit 4: a patch whose static initializer exits 0 (so the reproducer passes) is never fixed, and the run that then stops keeps what the tests said", {
  skip: noJava,
}, async () => {
  const exit = {
    file: "src/main/java/shop/Price.java",
    original: "public class Price {\n",
    patched: "public class Price {\n  static { System.exit(0); }\n",
  };
  // The model answers no more after its patch: the run stops when the validation asks for another.
  const r = await truthRun({
    files: JAVA_FILES,
    location: { file: "src/main/java/shop/Price.java", method: "half" },
    patch: exit,
    rewrites: [],
    reproducer: JAVA_REPRO,
    reproducerLanguage: "java",
  });
  assert.equal(r.result.status, "patched", r.result.reason);
  const v = r.result.validation!;
  assert.equal(v.status, "regressions");
  assert.deepEqual(v.fixed, []);
  assert.deepEqual(v.regressions, [
    "shop.PriceTest.half (no longer runs)",
    "shop.PriceTest.zero (no longer runs)",
  ]);
  assert.match(
    testsLine(r.status),
    /^- ❌ Ran the repository's tests — 2 regressions, tests that passed before the patch and fail after or ran before and no longer run: `shop\.PriceTest\.half` \(no longer runs\), `shop\.PriceTest\.zero` \(no longer runs\); after the patch /,
  );
  assert.ok(r.body);
  assert.match(
    r.body,
    /## Evidence\n\n⚠️ Not marked fixed: [\s\S]*the repository's tests show regressions: 2 regressions, tests that/,
  );
  assert.ok(!r.body.includes("✅ Marked fixed"), r.body);
  assert.ok(!r.body.includes("The repository's tests were not run"), r.body);
  // The review ran (it asked for another patch): it did not finish, it did not lack a reproducer.
  assert.match(r.result.reason, /\(then the model endpoint is unavailable: /);
  const reviewed = r.status.split("\n").find((l) => l.includes("Reviewed patch and reproducer")) ?? "";
  assert.doesNotMatch(reviewed, /no reproducer to review with/);
  assert.match(reviewed, /^- ❌ Reviewed patch and reproducer — not approved$/);
});
