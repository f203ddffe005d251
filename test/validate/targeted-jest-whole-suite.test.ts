import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { installRunner } from "./support/js-runner.ts";
import { prepareJob, selected, validateEdit, writeRepo } from "./support/targeted-repo.ts";

// The real jest (auto-fix's development dependency, copied into the repository's node_modules as `npm ci`
// would have installed it), started by the repository's `npx jest`, in the real sandbox.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

test("jest: the whole suite of `npx jest` (quiet) names every test by file, and stands in for a file's unpatched results", async () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({ name: "shop", private: true }),
    ".github/auto-fix.yml": "test: npx jest\n",
    "src/a.js": "exports.one = () => 1;\n",
    "src/b.js": "exports.two = () => 2;\n",
    "test/a.test.js":
      'const { one } = require("../src/a.js");\ndescribe("suite", () => {\n  it("passes", () => { if (one() !== 1) throw new Error("one"); });\n  it("fails", () => { throw new Error("known"); });\n});\n',
    "test/b.test.js":
      'const { two } = require("../src/b.js");\nit("b", () => { if (two() !== 2) throw new Error("two"); });\n',
  });
  installRunner(repo, "jest");
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.validation.runner, "jest");
  // A change to b: its test runs (verbose), then, within the budget, the whole suite on the unpatched
  // tree, with --verbose added: without it jest would name only a's failure (two files).
  const first = await validateEdit(sandbox, job, { "src/b.js": ["=> 2", "=> 1 + 1"] });
  assert.deepEqual(selected(first), {
    "test/b.test.js": ["imports a changed module", "named after a changed module"],
  });
  assert.match(first.result.tests?.command ?? "", /npx jest/);
  const whole = job.states.tests.fullResult;
  assert.equal(whole?.command, "npx jest --verbose");
  assert.deepEqual(Object.fromEntries(whole?.tests ?? []), {
    "test/a.test.js > suite > fails": "failed",
    "test/a.test.js > suite > passes": "passed",
    "test/b.test.js > b": "passed",
  });
  // A change that breaks a's passing test: a's file is selected (it failed before, and imports a); the
  // unpatched whole suite named its passing test, so it does not run again unpatched: the regression is
  // caught.
  const broken = await validateEdit(sandbox, job, { "src/a.js": ["=> 1", "=> 0"] });
  assert.deepEqual(selected(broken), {
    "test/a.test.js": ["failed before the patch", "imports a changed module", "named after a changed module"],
  });
  assert.equal(broken.result.tests?.pristineRuns, 0);
  assert.equal(broken.result.status, "regressions");
  assert.deepEqual(broken.result.regressions, ["test/a.test.js > suite > passes"]);
  assert.match(broken.run?.command ?? "", /^npx jest --verbose --runTestsByPath test\/a\.test\.js$/);
});
