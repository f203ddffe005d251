import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openTree } from "../../../src/core/tree-fs.ts";
import { runnerFor } from "../../../src/runners/index.ts";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import type { TreeStates } from "../../../src/validate/index.ts";
import { tempDir } from "../../support/temp.ts";
import { prepareJob, validateEdit, writeRepo } from "../../validate/support/targeted-repo.ts";

// mocha 2 and 3 from the npm registry (installed once, from npm's cache when it holds them), run as a
// web framework's own command spells it: `_mocha --require test/support/env --reporter spec`. They take
// the report options only as `--reporter-options`, and their xunit report names no file.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

function installMocha(version: string, ...more: string[]): string {
  const dir = tempDir("af-mocha-");
  execFileSync(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      `mocha@${version}`,
      ...more,
    ],
    { cwd: dir, stdio: "pipe", timeout: 120_000 },
  );
  return join(dir, "node_modules");
}

const COMMAND = "node node_modules/mocha/bin/_mocha --require test/support/env --reporter spec test/";

for (const version of ["2.5.3", "3.5.3"]) {
  test(`mocha ${version} under _mocha --require --reporter spec: each test is named, and the honest fix is fixed`, async () => {
    const modules = installMocha(version);
    const repo = writeRepo({
      "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: COMMAND } }),
      "lib/slug.js": 'exports.slug = (s) => s.toLowerCase().replace(" ", "-");\n',
      "test/support/env.js": 'process.env.APP_ENV = "test";\n',
      "test/slug.js":
        'var assert = require("assert");\nvar slug = require("../lib/slug").slug;\ndescribe("slug", function () {\n  it("one space", function () { assert.equal(slug("A B"), "a-b"); });\n  it("many words", function () { assert.equal(slug("A B C"), "a-b-c"); });\n  it("sees the env", function () { assert.equal(process.env.APP_ENV, "test"); });\n});\n',
      ".github/auto-fix.yml": `test: ${COMMAND}\n`,
    });
    cpSync(modules, join(repo, "node_modules"), { recursive: true, verbatimSymlinks: true });
    // The version its options are worded for is the one installed.
    assert.equal(runnerFor("mocha").installedVersion(openTree(repo)).version, version);
    const job = await prepareJob(sandbox, repo);
    jobs.push(job.states);
    assert.equal(job.config.validation.runner, "mocha");
    const fix = await validateEdit(sandbox, job, {
      "lib/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
    });
    assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
    // Each test named before and after, by its file (the one the run was given: these reports name none).
    assert.deepEqual(fix.result.fixed, ["test/slug.js > slug > many words"]);
    assert.deepEqual(fix.result.counted, { before: 3, after: 3 });
    assert.ok(
      !(fix.run?.notes ?? []).some((n) => n.startsWith("mocha: ")),
      (fix.run?.notes ?? []).join("\n"),
    );
    assert.match(
      fix.run?.command ?? "",
      /--reporter spec --reporter xunit --reporter-options output=\.junit-mocha-[0-9a-f]{18}\.xml test\/slug\.js$/,
    );
  });
}

test("mocha 3.5.3 through npm test with -r should: each test is named, and the honest fix is fixed", async () => {
  const modules = installMocha("3.5.3", "should@13");
  const repo = writeRepo({
    "package.json": JSON.stringify({
      name: "ser",
      private: true,
      scripts: { test: "mocha -r should --reporter spec test/" },
    }),
    "lib/slug.js": 'exports.slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "lib/sum.js": "exports.sum = (a, b) => a + b;\n",
    "test/slug.js":
      'var slug = require("../lib/slug").slug;\ndescribe("slug", function () {\n  it("one space", function () { slug("A B").should.equal("a-b"); });\n  it("many words", function () { slug("A B C").should.equal("a-b-c"); });\n});\n',
    "test/sum.js":
      'var sum = require("../lib/sum").sum;\ndescribe("sum", function () {\n  it("adds", function () { sum(1, 2).should.equal(3); });\n});\n',
  });
  cpSync(modules, join(repo, "node_modules"), { recursive: true, verbatimSymlinks: true });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.test.command, "npm test");
  assert.equal(job.config.validation.runner, "mocha");
  const fix = await validateEdit(sandbox, job, {
    "lib/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
  // The whole suite ran in one process (its report names no file): ids by suite and name.
  assert.deepEqual(fix.result.fixed, ["slug > many words"]);
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.match(
    whole.command,
    /^npm test -- --reporter xunit --reporter-options output=\.junit-mocha-[0-9a-f]{18}\.xml$/,
  );
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "slug > one space": "passed",
    "slug > many words": "failed",
    "sum > adds": "passed",
  });
});
