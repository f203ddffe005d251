import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import type { TestPlan } from "../../../src/runners/parts/conventions.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";

// node --test's regression test: beside the package's tests, in the module syntax the package loads, and
// read test by test from a real run's TAP lines.

const nodeTest = runnerFor("node-test");

const CJS = {
  "package.json": JSON.stringify({ name: "lib", scripts: { test: "node --test" } }),
  "lib/util.js": "module.exports = { add: (a, b) => a - b };\n",
  "test/util.test.js":
    'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../lib/util");\n\ntest("add", () => assert.equal(add(1, 2), 3));\n',
};

/** The plan's command, run as the stage runs it (outside this test run's own runner). */
const run = (root: string, command: string): string => {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync("sh", ["-c", command], { cwd: root, encoding: "utf8", timeout: 60_000, env });
  return `${r.stdout}\n${r.stderr}`;
};

const plan = (files: Record<string, string>): { root: string; plan: TestPlan } => {
  const root = writeRepo(files);
  const r = nodeTest.regression.plan(root, ["lib/util.js"]);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  return { root, plan: r.plan };
};

test("node --test: a CommonJS package gets require, an ES module package gets import", () => {
  const { plan: cjs } = plan(CJS);
  assert.equal(cjs.runner, "node-test");
  assert.equal(cjs.path, "test/util-regression.test.js");
  assert.match(cjs.notes, /const assert = require\("node:assert"\)/);
  assert.match(cjs.notes, /CommonJS/);
  assert.doesNotMatch(cjs.notes, /import assert|import \{/);
  const { plan: esm } = plan({
    ...CJS,
    "package.json": JSON.stringify({ name: "lib", type: "module", scripts: { test: "node --test" } }),
  });
  assert.match(esm.notes, /import assert from "node:assert"/);
  assert.doesNotMatch(esm.notes, /const assert = require/);
});

test("node --test: a real run of the new file is read test by test from its TAP lines", () => {
  const { root, plan: p } = plan(CJS);
  writeFileSync(
    join(root, p.path),
    'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../lib/util");\n\ntest("adds two numbers", () => assert.equal(add(2, 3), 5));\ntest("adds zeros", () => assert.equal(add(0, 0), 0));\ntest("later", { skip: true }, () => {});\n',
  );
  const out = run(root, p.command);
  assert.deepEqual(
    Object.fromEntries(nodeTest.regression.verdicts?.(out, p) ?? []),
    { "adds two numbers": "fail", "adds zeros": "pass", later: "skip" },
    out,
  );
  assert.equal(nodeTest.regression.testsRan?.(out), true);
  // A file with no test in it is reported as one test of its own (node names the file): it ran.
  writeFileSync(join(root, p.path), "// no tests\n");
  const empty = run(root, p.command);
  assert.match(empty, /^# tests 1$/m);
  assert.deepEqual([...(nodeTest.regression.verdicts?.(empty, p).values() ?? [])], ["pass"]);
});
