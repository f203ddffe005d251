import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import { tempDir } from "../../support/temp.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";

// go test's regression test: in the changed package, named after the changed file, run with only its own
// tests (`-run`), and read test by test from a real `-v` run.

const goTest = runnerFor("go");

const PKG = {
  "go.mod": "module example.com/m\n\ngo 1.21\n",
  "pkg/a.go": "package pkg\n\nfunc A() int { return 1 }\n",
  "pkg/b.go": "package pkg\n\nfunc B(x int) int { return x - 1 }\n",
  "pkg/a_test.go": 'package pkg\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n',
  "pkg/b_test.go": 'package pkg\n\nimport "testing"\n\nfunc TestB(t *testing.T) {}\n',
};

test("go test: the test file named after the changed one is the sample; only the new tests run", () => {
  const root = writeRepo(PKG);
  const r = goTest.regression.plan(root, ["pkg/b.go"]);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  const p = r.plan;
  assert.equal(p.runner, "go");
  assert.equal(p.path, "pkg/b_regression_test.go");
  assert.equal(p.example?.path, "pkg/b_test.go");
  const text =
    'package pkg\n\nimport "testing"\n\nfunc TestBPlusOne(t *testing.T) {\n\tif B(2) != 3 {\n\t\tt.Fatalf("B(2) = %d", B(2))\n\t}\n}\n\nfunc TestBZero(t *testing.T) {\n\tif B(1) != 0 {\n\t\tt.Fatal("no")\n\t}\n}\n\nfunc TestBLater(t *testing.T) { t.Skip("later") }\n';
  writeFileSync(join(root, p.path), text);
  const command = goTest.regression.command?.(p, text) ?? p.command;
  assert.equal(command, `${p.command} -run '^(TestBPlusOne|TestBZero|TestBLater)$'`);
  const cache = tempDir("af-gocache-");
  const run = spawnSync("sh", ["-c", command], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, GOCACHE: cache, GOFLAGS: "-mod=mod", GOPROXY: "off" },
  });
  const out = `${run.stdout}\n${run.stderr}`;
  // TestB, the package's own test, is not run: only the new file's tests are read.
  assert.deepEqual(
    Object.fromEntries(goTest.regression.verdicts?.(out, p) ?? []),
    { TestBPlusOne: "fail", TestBZero: "pass", TestBLater: "skip" },
    out,
  );
  assert.equal(goTest.regression.testsRan?.(out), true);
  assert.equal(goTest.regression.testsRan?.("testing: warning: no tests to run\nPASS\n"), false);
});

test("go test: a patch that changes no Go package gets no plan, and says why", () => {
  const r = goTest.regression.plan(writeRepo(PKG), ["README.md"]);
  assert.deepEqual(r, { ok: false, reason: "the patch changes no Go package to put a test beside" });
});
