import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { jsShop } from "../validate/support/js-shop.ts";
import { prepareJob, validateEdit, writeRepo } from "../validate/support/targeted-repo.ts";

// Real runners behind the spellings real projects use: `npm test` whose script is `node --test`, and
// mocha started through node with the project's own `--require` and `--reporter spec`, each run in the
// real sandbox before and after an honest one-line fix.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const NODE_TEST = (name: string, body: string) =>
  `const { describe, it } = require("node:test");\nconst assert = require("node:assert");\n${body.replace("NAME", name)}`;

test("npm test whose script is node --test: each test is named before and after, and the honest fix is fixed", async () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "node --test" } }),
    "src/slug.js": 'exports.slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "src/sum.js": "exports.sum = (a, b) => a + b;\n",
    "test/slug.test.js": NODE_TEST(
      "slug",
      'const { slug } = require("../src/slug.js");\ndescribe("NAME", () => {\n  it("one space", () => assert.equal(slug("A B"), "a-b"));\n  it("many words", () => assert.equal(slug("A B C"), "a-b-c"));\n});\n',
    ),
    "test/sum.test.js": NODE_TEST(
      "sum",
      'const { sum } = require("../src/sum.js");\ndescribe("NAME", () => {\n  it("adds", () => assert.equal(sum(1, 2), 3));\n});\n',
    ),
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.test.command, "node --test");
  assert.equal(job.config.validation.runner, "node-test");
  const fix = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
  assert.deepEqual(fix.result.fixed, ["test/slug.test.js > slug > many words"]);
  // The unpatched whole suite, run once the fix's own tests passed: every test named.
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.equal(whole.perTestUnavailable, undefined, JSON.stringify(whole.notes));
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
    "test/sum.test.js > sum > adds": "passed",
  });
});

test("mocha started through node with --require and --reporter spec: each test is named, and the honest fix is fixed", async () => {
  const command = "node node_modules/mocha/bin/mocha.js --require test/support/env --reporter spec test/";
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: command } }),
    "test/support/env.js": 'process.env.SHOP_ENV = "test";\n',
    "test/env.test.js":
      'const assert = require("node:assert");\ndescribe("env", () => {\n  it("is loaded", () => assert.equal(process.env.SHOP_ENV, "test"));\n});\n',
    ".github/auto-fix.yml": `test: ${command}\n`,
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  assert.equal(job.config.test.command, command);
  assert.equal(job.config.validation.runner, "mocha");
  const fix = await validateEdit(sandbox, job, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(fix.result.status, "passed", JSON.stringify(fix.result));
  assert.deepEqual(fix.result.fixed, ["test/slug.test.js > slug > many words"]);
  // The unpatched whole suite, run once the fix's own tests passed: every test named.
  const whole = job.states.tests.fullResult;
  assert.ok(whole, "the unpatched whole suite ran");
  assert.match(
    whole.command,
    /--reporter spec test\/ --reporter xunit --reporter-options output=\.junit-mocha-/,
  );
  assert.deepEqual(Object.fromEntries(whole.tests ?? []), {
    "test/env.test.js > env > is loaded": "passed",
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
    "test/sum.test.js > sum > adds": "passed",
    "test/sum.test.js > sum > zero": "passed",
    "test/title.test.js > title > trims": "passed",
  });
});
