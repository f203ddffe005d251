/** mocha's check tests in real runs: honest runs intact; an exit at import or a stubbed Runnable#run tampered. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import type { TestRun } from "../../../src/validate/index.ts";
import { jsShop } from "../../validate/support/js-shop.ts";
import { detail, ids, runIn as runWith } from "../support/canary-run.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const runIn = async (dir: string, opts: Parameters<typeof runWith>[2] = {}): Promise<TestRun> =>
  (await runWith(sandbox, dir, opts)).run;

/** A mocha repository whose command names its folder (mocha runs every file in one process). */
const mochaRepo = (extra: Record<string, string> = {}): string =>
  jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha test" } }),
    ".github/auto-fix.yml": "test: npx mocha test\n",
    ...extra,
  });

test("mocha: honest runs are intact; process.exit(0) at import or a stubbed Runnable#run is tampered", async () => {
  const honestDir = mochaRepo();
  const honest = await runIn(honestDir);
  assert.equal(honest.integrity?.state, "intact", detail(honest));
  // The whole suite runs with mocha's xunit report added: every id names its file.
  assert.deepEqual(ids(honest), {
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
    "test/sum.test.js > sum > adds": "passed",
    "test/sum.test.js > sum > zero": "passed",
    "test/title.test.js > title > trims": "passed",
  });

  const exited = await runIn(
    mochaRepo({ "src/sum.js": "process.exit(0);\nexports.sum = (a, b) => a + b;\n" }),
  );
  assert.equal(exited.integrity?.state, "tampered");

  const stub = [
    'const Runnable = require("mocha/lib/runnable");',
    "Runnable.prototype.run = function (fn) { fn(); };",
    "exports.sum = (a, b) => a + b;",
    "",
  ].join("\n");
  const stubbed = await runIn(mochaRepo({ "src/sum.js": stub }));
  assert.equal(stubbed.integrity?.state, "tampered");
  assert.match(detail(stubbed), /never ran its body/);

  // A targeted run (through npm test, mocha's xunit report) gets them as one more file.
  const targeted = await runIn(mochaRepo({ "src/sum.js": stub }), {
    targets: ["test/sum.test.js"],
    tweak: (c) => ({ ...c, test: { ...c.test, command: "npm test" } }),
  });
  assert.equal(targeted.integrity?.state, "tampered");
});
