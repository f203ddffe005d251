import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { jsShop } from "./support/js-shop.ts";
import { prepareJob, ranIds, runs, selected, validateEdit } from "./support/targeted-repo.ts";

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
  /^npm test -- --reporter xunit --reporter-option output=\.auto-fix-mocha-[0-9a-f]{18}\.xml test\/slug\.test\.js$/;

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
  // The whole suite ran last (it fits the budget): the fix is named by its id there, mocha's own
  // reporter naming a file only for a failure.
  assert.deepEqual(fix.result.fixed, ["slug > many words"]);
  assert.equal(fix.result.tests?.kind, "targeted+rest");

  // The unpatched whole suite: every test by `suite > name`, the file beside a failure.
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.equal(whole.command, "npm test");
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "slug > one space": "passed",
    "slug > many words": "failed",
    "sum > adds": "passed",
    "sum > zero": "passed",
    "title > trims": "passed",
  });
  assert.deepEqual(Object.fromEntries(whole.files ?? []), { "slug > many words": ["test/slug.test.js"] });

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
  // A patch after which the test files no longer load: the runner stops before its tests, and the tests
  // that passed before are regressions, not "no regressions".
  const unloadable = await validateEdit(sandbox, job, { "src/slug.js": ["(s) =>", "(s) => {"] });
  assert.equal(unloadable.result.status, "regressions");
  assert.deepEqual(unloadable.result.regressions, ["test/slug.test.js > slug > one space (no longer runs)"]);
  // mocha stopped before its tests: it wrote no report, and its output names no test.
  assert.match(
    unloadable.run?.notes?.[0] ?? "",
    /^the runner wrote no report \(\.auto-fix-mocha-[0-9a-f]{18}\.xml\): it stopped before its tests ran$/,
  );
});
