import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { detectProject } from "../../../src/config/detect.ts";
import { CMAKE_SETUP, CTEST_COMMAND } from "../../../src/runners/ctest/conventions.ts";
import { runnerFor } from "../../../src/runners/index.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";
import { GTEST_FILES, PLAIN_FILES } from "./projects.ts";

// CTest's conventions: which CMake projects it is recognised in, the regression test written beside the
// project's tests (GoogleTest style where the tests use it, else a plain program) and run for real.

const ctest = runnerFor("ctest");
const has = (cmd: string): boolean => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
const noGpp = !has("g++") && "g++ is not installed";
const noGtest =
  (noGpp || spawnSync("sh", ["-c", "ls /usr/lib/*/libgtest_main.a"], { stdio: "ignore" }).status !== 0) &&
  "GoogleTest is not installed";

test("ctest: a CMake project that enables testing and adds tests is detected, configured and built as the setup step", () => {
  for (const files of [PLAIN_FILES, GTEST_FILES]) {
    const d = detectProject(writeRepo(files), { runnerInstalled: () => true });
    assert.equal(d.language, "cpp");
    assert.equal(d.framework, "ctest");
    assert.equal(d.testCommand, CTEST_COMMAND);
    assert.deepEqual(d.setup, CMAKE_SETUP);
  }
});

test("ctest: a CMake project without enable_testing() or without tests is not a CTest project", () => {
  const noTesting = {
    ...PLAIN_FILES,
    "CMakeLists.txt": PLAIN_FILES["CMakeLists.txt"]!.replace("enable_testing()", "# enable_testing()"),
  };
  const noTests = { ...PLAIN_FILES, "tests/CMakeLists.txt": "add_executable(x x.cpp)\n" };
  for (const files of [noTesting, noTests]) {
    const d = detectProject(writeRepo(files), { runnerInstalled: () => true });
    assert.equal(d.language, "cpp");
    assert.equal(d.framework, "unknown");
  }
});

test("ctest: a missing toolchain is said at detection", () => {
  const d = detectProject(writeRepo(PLAIN_FILES), { runnerInstalled: () => false });
  assert.ok(
    d.reasons.some((r) => /cmake or ctest is not installed/.test(r)),
    d.reasons.join("\n"),
  );
});

test("ctest: a plain regression program beside plain tests, compiled with the project's sources and run", {
  skip: noGpp,
}, () => {
  const root = writeRepo(PLAIN_FILES);
  const r = ctest.regression.plan(root, ["src/slug.cpp"]);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  assert.equal(r.plan.path, "tests/slug_regression_test.cpp");
  assert.equal(r.plan.framework, "CTest");
  assert.equal(r.plan.example?.path, "tests/slug_plain.cpp");
  writeFileSync(
    join(root, r.plan.path),
    '#include <cassert>\n#include "slug.h"\n\nint main() {\n  assert(slug("x y") == "x-y");\n  return 0;\n}\n',
  );
  const run = spawnSync("sh", ["-c", r.plan.command], { cwd: root, encoding: "utf8", timeout: 120_000 });
  // The bug is there: the program's assertion fails (a non-zero status, the assertion named).
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /Assertion .* failed/);
  assert.doesNotMatch(run.stdout, /every check held/);
  // With the fix the program runs to its end, and the run says so (a passing program prints nothing).
  const src = join(root, "src/slug.cpp");
  writeFileSync(src, readFileSync(src, "utf8").replace("? '_' : c", "? '-' : c"));
  const fixed = spawnSync("sh", ["-c", r.plan.command], { cwd: root, encoding: "utf8", timeout: 120_000 });
  assert.equal(fixed.status, 0, fixed.stdout + fixed.stderr);
  assert.match(fixed.stdout, /every check held/);
});

test("ctest: a GoogleTest regression test beside GoogleTest tests, read test by test", {
  skip: noGtest,
}, () => {
  const root = writeRepo(GTEST_FILES);
  const r = ctest.regression.plan(root, ["src/slug.cpp"]);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  assert.equal(r.plan.framework, "GoogleTest");
  assert.equal(r.plan.example?.path, "tests/slug_test.cpp");
  writeFileSync(
    join(root, r.plan.path),
    '#include <gtest/gtest.h>\n#include "slug.h"\n\nTEST(Regression, Dash) { EXPECT_EQ(slug("x y"), "x-y"); }\nTEST(Regression, Same) { EXPECT_EQ(slug("xy"), "xy"); }\n',
  );
  const run = spawnSync("sh", ["-c", r.plan.command], { cwd: root, encoding: "utf8", timeout: 180_000 });
  const verdicts = Object.fromEntries(ctest.regression.verdicts?.(run.stdout, r.plan) ?? []);
  assert.deepEqual(
    verdicts,
    { "Regression.Dash": "fail", "Regression.Same": "pass" },
    run.stdout + run.stderr,
  );
  assert.ok(ctest.regression.testsRan?.(run.stdout));
});

test("ctest: no regression plan for a patch that changes no C++ file", () => {
  const r = ctest.regression.plan(writeRepo(PLAIN_FILES), ["README.md"]);
  assert.equal(r.ok, false);
});

test("ctest: no check tests are placed, and why is said (the run then reads could not check)", () => {
  assert.equal(ctest.canaries.placed, false);
  if (!ctest.canaries.placed) assert.match(ctest.canaries.why, /CMakeLists\.txt/);
});
