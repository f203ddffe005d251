import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { jsShop } from "./support/js-shop.ts";
import { prepareJob, ranIds, runs, selected, validateEdit } from "./support/targeted-repo.ts";

// The real vitest (auto-fix's development dependency, copied into the repository's node_modules as
// `npm ci` would have installed it), run in the real sandbox.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

test("vitest: the selection runs exactly its files, per-test ids name them, fixes and regressions are told apart", async () => {
  const repo = jsShop("vitest", {
    ".github/auto-fix.yml": "test: npx vitest run\n",
    // A test file whose path holds a selected file's path: vitest's file filters match substrings.
    "vendor/test/title.test.js":
      'import { it } from "vitest";\nimport assert from "node:assert";\nit("elsewhere", () => assert.ok(true));\n',
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "vitest");

  // The fix: slug's own test and the test that uses slug through a helper; not sum's.
  const fix = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.deepEqual(selected(fix), {
    "test/slug.test.js": ["imports a changed module", "named after a changed module"],
    "test/title.test.js": ["imports a changed module"],
  });
  assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
  assert.deepEqual(fix.result.fixed, ["test/slug.test.js > slug > many words"]);
  assert.deepEqual(runs(fix), { "test/slug.test.js": "ran", "test/title.test.js": "ran" });
  // The whole suite ran last (it fits the budget), with the verbose reporter added.
  assert.equal(fix.result.tests?.kind, "targeted+rest");
  assert.equal(fix.run?.command, "npx vitest run --reporter=verbose");

  // The unpatched whole suite ran once the related tests passed: the verbose reporter lists every test
  // (the default one folds a passing file into one line).
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.equal(whole.command, "npx vitest run --reporter=verbose");
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
    "test/sum.test.js > sum > adds": "passed",
    "test/sum.test.js > sum > zero": "passed",
    "test/title.test.js > title > trims": "passed",
    "vendor/test/title.test.js > elsewhere": "passed",
  });

  // A regression through the helper: title's test is selected (it imports slug through make.js).
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
  assert.match(broken.run?.command ?? "", /^npx vitest run --reporter=verbose test\/slug\.test\.js$/);
  assert.deepEqual(ranIds(broken), [
    "test/slug.test.js > slug > many words",
    "test/slug.test.js > slug > one space",
  ]);
  const details = Object.fromEntries((broken.result.tests?.selected ?? []).map((t) => [t.target, t.detail]));
  assert.equal(details["test/slug.test.js"], "failed: test/slug.test.js > slug > many words; src/slug.js");
});

test("vitest: a regression only a helper's user shows is caught in that file; test files that no longer load are regressions", async () => {
  const repo = jsShop("vitest", {
    // The usual script: `vitest` alone, which runs once (not in watch mode) in the sandbox (CI is set).
    "package.json": JSON.stringify({
      name: "shop",
      private: true,
      type: "module",
      scripts: { test: "vitest" },
    }),
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
  assert.equal(
    v.run?.command,
    "npm test -- --reporter=verbose test/slug.test.js + npm test -- --reporter=verbose test/title.test.js",
  );
  assert.deepEqual(v.result.tests?.selected.find((t) => t.target === "test/title.test.js")?.reasons, [
    "imports a changed module",
  ]);
  // A patch after which the test files no longer load: the runner stops before its tests, and the tests
  // that passed before are regressions, not "no regressions".
  const unloadable = await validateEdit(sandbox, job, { "src/slug.js": ["(s) =>", "(s) => {"] });
  assert.equal(unloadable.result.status, "regressions");
  // Every test that had an outcome before needs one after: the one that failed before no longer runs either.
  // The file that no longer loads is named too (its entry, not a test).
  assert.deepEqual(unloadable.result.regressions, [
    "test/slug.test.js > slug > one space (no longer runs)",
    "test/slug.test.js > slug > many words (no longer runs)",
    "test/slug.test.js > <file>",
  ]);
});
