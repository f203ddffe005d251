/** node --test's check tests in real runs: each file in a process of its own, the runner's report checked. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import type { TestRun } from "../../../src/validate/index.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";
import { detail, ids, runIn as runWith } from "../support/canary-run.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const runIn = async (dir: string, opts: Parameters<typeof runWith>[2] = {}): Promise<TestRun> =>
  (await runWith(sandbox, dir, opts)).run;

test("node --test: each file runs in a process of its own; canaries prove the runner reported honestly", async () => {
  const files = {
    "package.json": JSON.stringify({ name: "calc", private: true }),
    ".github/auto-fix.yml": "test: node --test\n",
    "src/calc.js": "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a + b;\n",
    "test/calc.test.js":
      'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add, mul } = require("../src/calc.js");\ntest("add", () => assert.equal(add(2, 3), 5));\ntest("mul", () => assert.equal(mul(2, 3), 6));\n',
  };
  const dir = writeRepo(files);
  const honest = await runIn(dir);
  assert.equal(honest.integrity?.state, "intact", detail(honest));
  assert.deepEqual(ids(honest), { "test/calc.test.js > add": "passed", "test/calc.test.js > mul": "failed" });
  const targeted = await runIn(dir, { targets: ["test/calc.test.js"] });
  assert.equal(targeted.integrity?.state, "intact", detail(targeted));
  assert.deepEqual(ids(targeted), {
    "test/calc.test.js > add": "passed",
    "test/calc.test.js > mul": "failed",
  });

  assert.match(detail(honest), /each test file runs in a process of its own/);
  // A patch that ends the process of the file that imports it: the canaries import what the test beside
  // them imports, so their process is ended too and the proof is missing.
  const exitDir = writeRepo({ ...files, "src/calc.js": `process.exit(0);\n${files["src/calc.js"]}` });
  const exited = await runIn(exitDir);
  assert.equal(exited.tests?.has("mul"), false);
  assert.equal(exited.integrity?.state, "tampered", detail(exited));
  assert.match(detail(exited), /never ran its body/);
});
