/** jest's and vitest's check tests in real runs: placed without a configuration; with one, unverified. */
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

test("jest and vitest: a repository without their configuration gets canaries; with it, unverified", async () => {
  const jest = jsShop("jest", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "jest" } }),
    ".github/auto-fix.yml": "test: npm test\n",
  });
  const r = await runIn(jest, { targets: ["test/slug.test.js"] });
  assert.equal(r.integrity?.state, "intact", detail(r));
  assert.deepEqual(ids(r), {
    "test/slug.test.js > slug > one space": "passed",
    "test/slug.test.js > slug > many words": "failed",
  });
  const configured = jsShop("vitest", {
    "package.json": JSON.stringify({
      name: "shop",
      private: true,
      type: "module",
      scripts: { test: "vitest run" },
    }),
    "vitest.config.mjs": "export default { test: { include: ['test/**/*.test.js'] } };\n",
    ".github/auto-fix.yml": "test: npm test\n",
  });
  const v = await runIn(configured, { targets: ["test/slug.test.js"] });
  assert.equal(v.integrity?.state, "unverified");
  assert.match(detail(v), /vitest's configuration \(vitest\.config\.mjs\) decides which test files it takes/);
});
