import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { before, test } from "node:test";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { compareRuns, runTestSuite, type TestRun } from "../../src/validate/index.ts";
import { targetedCommand } from "../../src/validate/targets/runner-command.ts";
import { jsShop } from "./support/js-shop.ts";
import { writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const hasGo = (() => {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

async function runIn(
  dir: string,
  opts: { targets?: string[]; tweak?: (c: RepoConfig) => RepoConfig } = {},
): Promise<TestRun> {
  const config = (opts.tweak ?? ((c) => c))(loadRepoConfig(dir));
  let extra: Parameters<typeof runTestSuite>[4] = {};
  if (opts.targets) {
    const cmd = targetedCommand(config, opts.targets);
    assert.ok(!("reason" in cmd), "reason" in cmd ? cmd.reason : "");
    extra = { targeted: cmd };
  }
  const before = listing(dir);
  const r = await runTestSuite(sandbox, dir, config, undefined, extra);
  assert.ok(r);
  noneLeft(dir, before);
  return r;
}

const ids = (r: TestRun): Record<string, string> => Object.fromEntries(r.tests ?? []);
const detail = (r: TestRun): string => r.integrity?.detail ?? "";
/** The tree's files, caches and dependency folders left out. */
function listing(dir: string): Set<string> {
  return new Set(
    readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
      (f) => !/(^|\/)(node_modules|__pycache__|\.pytest_cache|\.benchmarks|\.hypothesis)(\/|$)/.test(f),
    ),
  );
}
/** No file the run added is left: the planted tests and their proof leave with the run. */
function noneLeft(dir: string, before: Set<string>): void {
  assert.deepEqual(
    [...listing(dir)].filter((f) => !before.has(f)),
    [],
  );
}

const GO = {
  "go.mod": "module example.com/calc\n\ngo 1.19\n",
  "ops/ops.go":
    "package ops\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a + b }\n",
  "ops/ops_test.go":
    'package ops\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal("mul")\n\t}\n}\n',
  "util/util.go": "package util\n\nfunc One() int { return 1 }\n",
  "util/util_test.go":
    'package util_test\n\nimport (\n\t"testing"\n\n\t"example.com/calc/util"\n)\n\nfunc TestOne(t *testing.T) {\n\tif util.One() != 1 {\n\t\tt.Fatal("one")\n\t}\n}\n',
};

test("go test: every tested package gets its canaries; honest runs are intact, os.Exit(0) in init() is tampered", {
  skip: !hasGo && "go is not installed",
}, async () => {
  const dir = writeRepo(GO);
  const honest = await runIn(dir);
  assert.equal(honest.integrity?.state, "intact", detail(honest));
  assert.match(detail(honest), /in each of 2 packages/);
  assert.deepEqual(ids(honest), {
    "example.com/calc/ops.TestAdd": "passed",
    "example.com/calc/ops.TestMul": "failed",
    "example.com/calc/ops.<package>": "failed",
    "example.com/calc/util.TestOne": "passed",
  });

  const fixedDir = writeRepo({
    ...GO,
    "ops/ops.go": GO["ops/ops.go"].replace(
      "Mul(a, b int) int { return a + b }",
      "Mul(a, b int) int { return a * b }",
    ),
  });
  const fixed = await runIn(fixedDir);
  assert.equal(fixed.integrity?.state, "intact", detail(fixed));
  assert.equal(fixed.exec.exitCode, 0, "the failing canaries alone do not fail the run");
  assert.deepEqual(compareRuns(honest, fixed).fixed, ["example.com/calc/ops.TestMul"]);

  // The hostile patch: the package under test ends its own test binary before any test, exit 0.
  const exitDir = writeRepo({
    ...GO,
    "ops/ops.go": GO["ops/ops.go"].replace(
      "package ops\n",
      'package ops\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n',
    ),
  });
  const exited = await runIn(exitDir);
  assert.equal(exited.integrity?.state, "tampered");
  assert.match(detail(exited), /ran its body in 1 of the 2 places/);

  // A targeted run of the package gets them too.
  const targeted = await runIn(exitDir, { targets: ["./ops"] });
  assert.equal(targeted.integrity?.state, "tampered");
  const honestTargeted = await runIn(dir, { targets: ["./ops"] });
  assert.equal(honestTargeted.integrity?.state, "intact", detail(honestTargeted));
  assert.deepEqual(Object.keys(ids(honestTargeted)).sort(), [
    "example.com/calc/ops.<package>",
    "example.com/calc/ops.TestAdd",
    "example.com/calc/ops.TestMul",
  ]);
});

test("go test: a package whose tests do not build is unverified, not tampered", {
  skip: !hasGo && "go is not installed",
}, async () => {
  const dir = writeRepo({
    ...GO,
    "ops/ops.go": GO["ops/ops.go"].replace("return a + b }\n\nfunc Mul", "return a + }\n\nfunc Mul"),
  });
  const r = await runIn(dir);
  assert.equal(r.integrity?.state, "unverified", detail(r));
  assert.match(detail(r), /did not build/);
});

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
