import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { jsShop } from "./support/js-shop.ts";
import { prepareJob, ranIds, runs, selected, validateEdit, writeRepo } from "./support/targeted-repo.ts";

// The real mocha (auto-fix's development dependency, copied into the repository's node_modules as
// `npm ci` would have installed it), run through the repository's `npm test` in the real sandbox.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const MOCHA_RUN =
  /^npm test -- --reporter xunit --reporter-options output=\.junit-mocha-[0-9a-f]{18}\.xml test\/slug\.test\.js$/;

test("mocha: the selection runs exactly its files though .mocharc names the whole suite, ids name their file", async () => {
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha" } }),
    // The usual configuration: the suite's files are named in .mocharc, and mocha adds them to the
    // files it is given on the command line.
    ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"] }),
    ".github/auto-fix.yml": "test: npm test\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "mocha");

  // The fix: slug's own test and the test that uses slug through a helper; not sum's.
  const fix = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.deepEqual(selected(fix), {
    "test/slug.test.js": ["imports a changed module", "named after a changed module"],
    "test/title.test.js": ["imports a changed module"],
  });
  assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
  assert.deepEqual(runs(fix), { "test/slug.test.js": "ran", "test/title.test.js": "ran" });
  // The whole suite ran last (it fits the budget): the fix is named by the same id as in the selected
  // tests' run, the xunit report auto-fix has mocha write naming each test's file.
  assert.deepEqual(fix.result.fixed, ["test/slug.test.js > slug > many words"]);
  assert.equal(fix.result.tests?.kind, "targeted+rest");

  // The unpatched whole suite: every test by `file > suite > name`, from the xunit report.
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.match(
    whole.command,
    /^npm test -- --reporter xunit --reporter-options output=\.junit-mocha-[0-9a-f]{18}\.xml$/,
  );
  assert.equal(whole.parser, "mocha-xunit");
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
    "test/sum.test.js > sum > adds": "passed",
    "test/sum.test.js > sum > zero": "passed",
    "test/title.test.js > title > trims": "passed",
  });

  // A regression: slug's test failed before the patch and is selected as such too; it runs in one
  // process whose xunit report names each test's file. .mocharc's spec adds every other test file to
  // the one given: their tests are not counted, nor credited to slug.test.js.
  const broken = await validateEdit(sandbox, job, { "src/slug.js": ["s.toLowerCase()", "s"] });
  assert.deepEqual(selected(broken), {
    "test/slug.test.js": [
      "failed before the patch",
      "imports a changed module",
      "named after a changed module",
    ],
    "test/title.test.js": ["imports a changed module"],
  });
  assert.equal(broken.result.status, "regressions");
  assert.deepEqual(broken.result.regressions, ["test/slug.test.js > slug > one space"]);
  assert.match(broken.run?.command ?? "", MOCHA_RUN);
  assert.deepEqual(ranIds(broken), [
    "test/slug.test.js > slug > many words",
    "test/slug.test.js > slug > one space",
  ]);
  assert.deepEqual(broken.run?.notes, [
    "3 tests of files not selected also ran (the runner's file filters or its configuration added them); not counted",
  ]);
  assert.deepEqual(runs(broken), { "test/slug.test.js": "ran", "test/title.test.js": "after-regression" });
  const details = Object.fromEntries((broken.result.tests?.selected ?? []).map((t) => [t.target, t.detail]));
  assert.equal(details["test/slug.test.js"], "failed: test/slug.test.js > slug > many words; src/slug.js");
});

test("mocha: a regression only a helper's user shows is caught in that file; test files that no longer load are regressions", async () => {
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha" } }),
    ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"] }),
    ".github/auto-fix.yml": "test: npm test\nvalidation:\n  budget: 0\n",
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  // Only an input like title's (starting with X) is broken: slug's own tests still pass.
  const v = await validateEdit(sandbox, job, {
    "src/slug.js": ["(s) => s.toLowerCase()", '(s) => (s.startsWith("X") ? s : s.toLowerCase())'],
  });
  assert.equal(v.result.status, "regressions");
  assert.deepEqual(v.result.regressions, ["test/title.test.js > title > trims"]);
  assert.deepEqual(runs(v), { "test/slug.test.js": "ran", "test/title.test.js": "ran" });
  assert.deepEqual(v.result.tests?.selected.find((t) => t.target === "test/title.test.js")?.reasons, [
    "imports a changed module",
  ]);
  // A patch after which the test files no longer load: the runner stops before its tests, the canaries'
  // too, so the run cannot be trusted (mocha's one process cannot tell a load error from a runner that
  // was ended): never "no regressions".
  const unloadable = await validateEdit(sandbox, job, { "src/slug.js": ["(s) =>", "(s) => {"] });
  assert.equal(unloadable.result.status, "tampered");
  assert.deepEqual(unloadable.result.fixed, []);
  // mocha stopped before its tests: it wrote no report, and its output names no test.
  assert.match(
    unloadable.run?.notes?.[0] ?? "",
    /^the runner wrote no report \(\.junit-mocha-[0-9a-f]{18}\.xml\): it stopped before its tests ran$/,
  );
});

test("mocha: a report rewritten by a test names files outside the tree and a link: none is selected or counted", async () => {
  const outside = writeRepo({ "linked.test.js": 'it("outside", () => { throw new Error("outside"); });\n' });
  // A test that finds the report's name in mocha's arguments and rewrites it when the process exits,
  // after mocha wrote it: failures credited to paths outside the tree and to a link named like a test.
  const forge = `const { writeFileSync } = require("node:fs");
const out = process.argv.find((a) => a.startsWith("output="));
process.on("exit", () => {
  if (!out) return;
  const c = (file, name) => '<testcase classname="forged" name="' + name + '" file="' + file + '"><failure>x</failure></testcase>';
  writeFileSync(out.slice(7), "<testsuite>" + c("/etc/passwd", "abs") + c("../../etc/passwd", "up") + c("/workspace/test/linked.test.js", "linked") + c("/workspace/test/sum.test.js", "sum") + "</testsuite>");
});
const { slug } = require("../src/slug.js");
it("forges", () => slug("a"));
`;
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha" } }),
    ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"] }),
    ".github/auto-fix.yml": "test: npm test\nvalidation:\n  budget: 0\n",
    "test/forge.test.js": forge,
  });
  symlinkSync(join(outside, "linked.test.js"), join(repo, "test", "linked.test.js"));
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  const v = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.deepEqual(Object.keys(selected(v)).sort(), [
    "test/forge.test.js",
    "test/slug.test.js",
    "test/title.test.js",
  ]);
  // .mocharc's spec puts forge.test.js in every run, so every report is the forged one: none of its ids
  // is a test of the selected files (sum.test.js was not selected), so none is counted.
  assert.ok(!ranIds(v).some((id) => /passwd|linked|forged/.test(id)), ranIds(v).join(", "));
  // A later candidate: the forged failures select nothing (slug's real failure was wiped out with the
  // real report: a test can stop its run from reporting, as it can stop it from printing).
  const other = await validateEdit(sandbox, job, { "src/sum.js": ["a + b", "b + a"] });
  assert.deepEqual(selected(other), {
    "test/sum.test.js": ["imports a changed module", "named after a changed module"],
  });
  // Of the forged report, only what it says of the selected file counts (a test file of the tree, which
  // the repository's code can make fail for real anyway).
  assert.deepEqual(ranIds(other), ["test/sum.test.js > forged > sum"]);
});
