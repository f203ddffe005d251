/** go test's check tests in real runs: every tested package gets them; an exit in init() tampered, a build failure unverified. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import { compareRuns, type TestRun } from "../../../src/validate/index.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";
import { detail, ids, runIn as runWith } from "../support/canary-run.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const runIn = async (dir: string, opts: Parameters<typeof runWith>[2] = {}): Promise<TestRun> =>
  (await runWith(sandbox, dir, opts)).run;

const hasGo = (() => {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

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
