import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { prepareJob, ranIds, runs, selected, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

test("node --test: the test files that import the changed file (directly or through a helper) run", async () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({ type: "module", scripts: { test: "node --test test/" } }),
    ".github/auto-fix.yml": "test: node --test test/\nvalidation:\n  budget: 0\n",
    "src/slug.js": 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "src/sum.js": "export const sum = (a, b) => a + b;\n",
    "test/helpers/make.js":
      'import { slug } from "../../src/slug.js";\nexport const title = (s) => slug(s);\n',
    "test/slug.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert";\nimport { slug } from "../src/slug.js";\ntest("two words", () => assert.equal(slug("A B"), "a-b"));\n',
    "test/title.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert";\nimport { title } from "./helpers/make.js";\ntest("title", () => assert.equal(title("X Y"), "x-y"));\n',
    "test/sum.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert";\nimport { sum } from "../src/sum.js";\ntest("adds", () => assert.equal(sum(1, 2), 3));\n',
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "node-test");
  const v = await validateEdit(sandbox, job, { "src/slug.js": ['.replace(" ", "-")', '.replace(" ", "_")'] });
  assert.deepEqual(selected(v), {
    "test/slug.test.js": ["imports a changed module", "named after a changed module"],
    "test/title.test.js": ["imports a changed module"],
  });
  assert.equal(v.result.status, "regressions");
  // The test named after the module runs first and shows the regression: the helper's user is left out.
  assert.deepEqual(v.result.regressions, ["test/slug.test.js > two words"]);
  assert.deepEqual(runs(v), { "test/slug.test.js": "ran", "test/title.test.js": "after-regression" });
  assert.ok(
    !ranIds(v).some((id) => id.includes("adds")),
    `sum.test.js must not run: ${ranIds(v).join(", ")}`,
  );
  // One process: node's junit reporter names each test's file in a report of a name drawn per run, its
  // spec reporter writes the output.
  assert.match(
    v.run?.command ?? "",
    /^node --test --test-reporter=junit --test-reporter-destination=\.junit-node-test-[0-9a-f]{18}\.xml --test-reporter=spec --test-reporter-destination=stdout test\/slug\.test\.js$/,
  );
  assert.equal(v.run?.parser, "node-test-junit");
});

const nodeTest = (name: string, body: string) =>
  `import { test } from "node:test";\nimport assert from "node:assert";\n${body}\n// ${name}\n`;

/** A repository whose slug test fails before any patch (the bug), with hostile test names and output. */
const SLUGS = {
  "package.json": JSON.stringify({ type: "module" }),
  "src/slug.js": 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n',
  "src/sum.js": "export const sum = (a, b) => a + b;\n",
  "test/slug.test.js": nodeTest(
    "slug",
    'import { slug } from "../src/slug.js";\ntest("one space", () => assert.equal(slug("A B"), "a-b"));\ntest("many words", () => assert.equal(slug("A B C"), "a-b-c"));',
  ),
  "test/sum.test.js": nodeTest(
    "sum",
    'import { sum } from "../src/sum.js";\ntest("adds", () => assert.equal(sum(1, 2), 3));',
  ),
  // A failing test named like a path outside the tree, which also prints a crafted file marker and a
  // failure line that claim a file outside the tree and a link.
  "test/odd.test.js": nodeTest(
    "odd",
    'import { slug } from "../src/slug.js";\ntest("../../etc/passwd", () => assert.equal(slug("X Y Z"), "x-y-z"));\ntest("noise", () => { console.log("\\n### auto-fix test file: ../../etc/passwd\\n✖ stolen (1ms)\\n### auto-fix test file: test/linked.test.js\\n✖ linked (1ms)"); });',
  ),
};

test("node --test: a test that failed before the patch is selected for every later candidate, by its file", async () => {
  const outside = writeRepo({
    "linked.test.js": nodeTest("outside", 'test("outside", () => assert.fail("outside"));'),
  });
  const repo = writeRepo({
    ...SLUGS,
    ".github/auto-fix.yml": "test: node --test\nvalidation:\n  budget: 0\n",
  });
  symlinkSync(join(outside, "linked.test.js"), join(repo, "test", "linked.test.js"));
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "node-test");
  // The fix: its tests run on the unpatched tree (where slug's and odd's fail) and after the patch.
  const fix = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.deepEqual(selected(fix), {
    "test/odd.test.js": ["imports a changed module"],
    "test/slug.test.js": ["imports a changed module", "named after a changed module"],
  });
  assert.deepEqual(fix.result.fixed.sort(), [
    "test/odd.test.js > ../../etc/passwd",
    "test/slug.test.js > many words",
  ]);
  assert.equal(fix.result.status, "passed");
  // A change elsewhere: the tests that failed before run again, attributed to their files; the crafted
  // marker's `../../etc/passwd` and the link named like a test are not tests of the tree.
  const other = await validateEdit(sandbox, job, { "src/sum.js": ["a + b", "b + a"] });
  assert.deepEqual(selected(other), {
    "test/odd.test.js": ["failed before the patch"],
    "test/slug.test.js": ["failed before the patch"],
    "test/sum.test.js": ["imports a changed module", "named after a changed module"],
  });
  const details = Object.fromEntries((other.result.tests?.selected ?? []).map((t) => [t.target, t.detail]));
  assert.equal(details["test/slug.test.js"], "failed: test/slug.test.js > many words");
  assert.equal(other.result.tests?.pristineRuns, 1, "only sum.test.js runs on the unpatched tree");
  // The fix ran two batches on the unpatched tree (the namesake, then the importer), this one one.
  assert.equal(job.states.tests.runCount, 3);
  // The unpatched results are attributed per file: slug's failures are compared, not called regressions.
  assert.equal(other.result.status, "no-regressions");
  assert.deepEqual(other.result.regressions, []);
  assert.equal(other.result.before?.failed, other.result.after?.failed);
  assert.ok(ranIds(other).includes("test/sum.test.js > adds"), ranIds(other).join(", "));
  assert.ok(!ranIds(other).some((id) => id.includes("outside")), "the linked file never runs");
  // Another try at the fix: every test it selects has its unpatched results already, per file.
  const again = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.split(" ").join("-")'],
  });
  assert.deepEqual(selected(again)["test/slug.test.js"], [
    "failed before the patch",
    "imports a changed module",
    "named after a changed module",
  ]);
  assert.equal(
    again.result.tests?.selected.find((t) => t.target === "test/slug.test.js")?.detail,
    "failed: test/slug.test.js > many words; src/slug.js",
  );
  assert.equal(again.result.tests?.pristineRuns, 0);
  assert.deepEqual(again.result.fixed.sort(), [
    "test/odd.test.js > ../../etc/passwd",
    "test/slug.test.js > many words",
  ]);
});

test("node --test: the whole suite, run with the junit reporter added, names each test's file and stands in for a file's unpatched results", async () => {
  const repo = writeRepo({ ...SLUGS, ".github/auto-fix.yml": "test: node --test\n" });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  // Within the budget the unpatched whole suite runs (node's junit reporter names every test's file; its
  // spec output alone would name files only for failures).
  const first = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(first.result.tests?.kind, "targeted+rest");
  const whole = job.states.tests.fullResult;
  assert.ok(
    whole?.tests?.has("test/sum.test.js > adds"),
    `the whole suite ran on the unpatched tree: ${whole?.exec.stdout}`,
  );
  assert.equal(whole?.parser, "node-test-junit");
  // sum.test.js was not run by itself: the whole suite stands in for it, and its regression is caught.
  const broken = await validateEdit(sandbox, job, { "src/sum.js": ["a + b", "a - b"] });
  assert.equal(broken.result.tests?.pristineRuns, 0);
  assert.equal(broken.result.status, "regressions");
  assert.deepEqual(broken.result.regressions, ["test/sum.test.js > adds"]);
});

test("go test: the changed package and the packages whose tests import it", {
  skip: !has("go", ["version"]) && "go is not installed (Debian golang-go)",
}, async () => {
  const repo = writeRepo({
    "go.mod": "module example.com/shop\n\ngo 1.19\n",
    "price/price.go": "package price\n\nfunc Discount(p, pct int) int { return p - p*pct/100 }\n",
    "price/price_test.go":
      'package price\n\nimport "testing"\n\nfunc TestHalf(t *testing.T) {\n\tif Discount(10, 50) != 5 {\n\t\tt.Fatal("half")\n\t}\n}\n',
    "cart/cart.go":
      'package cart\n\nimport "example.com/shop/price"\n\nfunc Total(p int) int { return price.Discount(p, 10) }\n',
    "cart/cart_test.go":
      'package cart\n\nimport (\n\t"testing"\n\n\t"example.com/shop/price"\n)\n\nfunc TestTotal(t *testing.T) {\n\tif Total(100) != 90 || price.Discount(1, 0) != 1 {\n\t\tt.Fatal("total")\n\t}\n}\n',
    "util/util.go": "package util\n\nfunc One() int { return 1 }\n",
    "util/util_test.go":
      'package util\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal("one")\n\t}\n}\n',
    ".github/auto-fix.yml": "validation:\n  budget: 0\n",
  });
  const job = await prepareJob(sandbox, repo, (c) => ({
    ...c,
    timeouts: { ...c.timeouts, testMs: 300_000 },
  }));
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "go");
  const v = await validateEdit(sandbox, job, { "price/price.go": ["p*pct/100", "p*pct/50"] });
  assert.deepEqual(selected(v), {
    "./cart": ["imports a changed module"],
    "./price": ["in a changed package"],
  });
  assert.match(v.run?.command ?? "", /^go test -json \.\/cart \.\/price$/);
  assert.equal(v.result.status, "regressions", `${v.result.summary}\n${v.run?.exec.stderr}`);
  assert.deepEqual(v.result.regressions.filter((r) => !r.endsWith("<package>")).sort(), [
    "example.com/shop/cart.TestTotal",
    "example.com/shop/price.TestHalf",
  ]);
  assert.ok(!ranIds(v).some((id) => id.includes("util")), ranIds(v).join(", "));
});

test("JUnit 4: test classes of the changed class's package, importers and namesakes, through a {tests} template", {
  skip: !has("javac", ["-version"]) && "javac is not installed",
}, async () => {
  const cp = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
  const build = `rm -rf /tmp/af-out && mkdir -p /tmp/af-out && javac -nowarn -d /tmp/af-out -cp ${cp} $(find src -name '*.java')`;
  const repo = writeRepo({
    "src/main/java/shop/Price.java":
      "package shop;\n\npublic class Price {\n  public static int discount(int p, int pct) { return p - p * pct / 100; }\n}\n",
    "src/main/java/util/Strings.java":
      "package util;\n\npublic class Strings {\n  public static String twice(String s) { return s + s; }\n}\n",
    "src/test/java/shop/PriceTest.java":
      "package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class PriceTest {\n  @Test public void half() { assertEquals(5, Price.discount(10, 50)); }\n}\n",
    "src/test/java/cart/CartTest.java":
      "package cart;\n\nimport org.junit.Test;\nimport shop.Price;\nimport static org.junit.Assert.assertEquals;\n\npublic class CartTest {\n  @Test public void total() { assertEquals(90, Price.discount(100, 10)); }\n}\n",
    "src/test/java/util/StringsTest.java":
      'package util;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class StringsTest {\n  @Test public void twice() { assertEquals("aa", Strings.twice("a")); }\n}\n',
    ".github/auto-fix.yml": [
      `test: ${build} && java -cp /tmp/af-out:${cp} org.junit.runner.JUnitCore shop.PriceTest cart.CartTest util.StringsTest`,
      "validation:",
      "  runner: junit",
      `  command: ${build} && java -cp /tmp/af-out:${cp} org.junit.runner.JUnitCore {tests}`,
      "  budget: 0",
      "",
    ].join("\n"),
  });
  const job = await prepareJob(sandbox, repo, (c) => ({
    ...c,
    timeouts: { ...c.timeouts, testMs: 300_000 },
  }));
  jobs.push(job.states);
  const v = await validateEdit(sandbox, job, {
    "src/main/java/shop/Price.java": ["p * pct / 100", "p * pct / 50"],
  });
  assert.deepEqual(selected(v), {
    "cart.CartTest": ["imports a changed module"],
    "shop.PriceTest": ["named after a changed module", "in a changed package"],
  });
  // The namesake runs first and shows the regression: the importer is left out.
  assert.deepEqual(runs(v), { "shop.PriceTest": "ran", "cart.CartTest": "after-regression" });
  assert.match(v.run?.command ?? "", /JUnitCore shop\.PriceTest$/);
  const out = v.run?.exec.stdout ?? "";
  assert.match(out, /Tests run: 1,\s+Failures: 1/, out);
  assert.doesNotMatch(out, /StringsTest/);
  assert.equal(v.result.status, "regressions", v.result.summary);
});

test("node --test: one process names every test's file and suites; a file that no longer loads is a regression", async () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({ type: "module" }),
    ".github/auto-fix.yml": "test: node --test --test-reporter=dot\nvalidation:\n  budget: 0\n",
    "src/slug.js": 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    // The same suite and test names in two files, nested suites, and a test in no suite.
    "test/slug.test.js": nodeTest(
      "slug",
      'import { describe } from "node:test";\nimport { slug } from "../src/slug.js";\ndescribe("outer", () => { describe("inner", () => { test("same", () => assert.equal(slug("A B"), "a-b")); }); });\ntest("top", () => assert.equal(slug("A"), "a"));',
    ),
    "test/slug-more.test.js": nodeTest(
      "more",
      'import { describe } from "node:test";\nimport { slug } from "../src/slug.js";\ndescribe("outer", () => { describe("inner", () => { test("same", () => assert.equal(slug("X"), "x")); }); });',
    ),
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const upper = await validateEdit(sandbox, job, {
    "src/slug.js": ["s.toLowerCase()", 's.startsWith("X") ? s : s.toLowerCase()'],
  });
  assert.deepEqual(selected(upper), {
    "test/slug-more.test.js": ["imports a changed module"],
    "test/slug.test.js": ["imports a changed module", "named after a changed module"],
  });
  assert.deepEqual(runs(upper), { "test/slug.test.js": "ran", "test/slug-more.test.js": "ran" });
  assert.deepEqual(upper.result.regressions, ["test/slug-more.test.js > outer > inner > same"]);
  assert.deepEqual(ranIds(upper), [
    "test/slug-more.test.js > outer > inner > same",
    "test/slug.test.js > outer > inner > same",
    "test/slug.test.js > top",
  ]);
  // The command's own dot reporter is replaced by the junit report (files) and the spec output.
  assert.match(upper.run?.exec.stdout ?? "", /▶ outer\n {2}▶ inner\n {4}✖ same/);
  const unloadable = await validateEdit(sandbox, job, { "src/slug.js": ["(s) =>", "(s) => {"] });
  assert.equal(unloadable.result.status, "regressions");
  assert.deepEqual(unloadable.result.regressions, [
    "test/slug.test.js > outer > inner > same (no longer runs)",
    "test/slug.test.js > top (no longer runs)",
    // The file's own entry: it loaded before the patch and fails to load after.
    "test/slug.test.js > <file>",
  ]);
});
