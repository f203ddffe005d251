import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { before, test } from "node:test";
import { loadRepoConfig } from "../../../src/config/index.ts";
import { CMAKE_SETUP, CTEST_COMMAND } from "../../../src/runners/ctest/conventions.ts";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import { assertFixed, runMatrixCase, writeProject } from "../support/matrix.ts";
import { GTEST_FILES, PLAIN_FILES, SLUG_BUG } from "./projects.ts";

// CTest through the validate stage's own entry (`candidateRun`): a real CMake project configured and
// built with the real cmake and g++ in the real sandbox, before and after a real one-line fix.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const noCmake =
  (!has("cmake", ["--version"]) || !has("g++", ["--version"])) && "cmake or g++ is not installed";
const noGtest = noCmake || (!has("sh", ["-c", "ls /usr/lib/*/libgtest.a"]) && "GoogleTest is not installed");

const CONFIG = { ".github/auto-fix.yml": "timeouts:\n  test: 600\n  setup: 600\n" };

/**
 * Detection's choice for the project (the CTest runner, CMake's configure and build as the setup step,
 * the suite rebuilt before CTest runs) and its validation. Validation has no map of C++ test names to
 * files yet: the whole suite runs.
 */
async function validate(files: Record<string, string>) {
  const repo = writeProject(files);
  const config = loadRepoConfig(repo);
  assert.equal(config.test.framework, "ctest");
  assert.deepEqual(config.setup, CMAKE_SETUP);
  assert.equal(config.test.command, CTEST_COMMAND);
  const r = await runMatrixCase(sandbox, repo, SLUG_BUG);
  assert.equal(r.validation.result.tests?.kind, "full");
  return r;
}

/** No canaries are placed in CTest runs: the run says "could not check", never intact. */
function unverified(r: Awaited<ReturnType<typeof validate>>): void {
  const integrity = r.validation.result.integrity;
  assert.equal(integrity?.state, "unverified", JSON.stringify(integrity));
}

test("plain add_test executables: detected as ctest, per-test results before and after, the failing test fixed", {
  skip: noCmake,
}, async () => {
  const r = await validate({ ...PLAIN_FILES, ...CONFIG });
  assertFixed(r, {
    runner: "ctest",
    fixed: "slug_spaces",
    others: ["slug_plain", "total_adds"],
    canaries: false,
  });
  unverified(r);
});

test("GoogleTest through gtest_discover_tests: Suite.Name results before and after, the failing test fixed", {
  skip: noGtest,
}, async () => {
  const r = await validate({ ...GTEST_FILES, ...CONFIG });
  assertFixed(r, {
    runner: "ctest",
    fixed: "Slug.Spaces",
    others: ["Slug.Plain", "Total.Adds"],
    canaries: false,
  });
  unverified(r);
});

test("a test that does not build on either tree reads could not run, never a pass", {
  skip: noCmake,
}, async () => {
  const files: Record<string, string> = { ...PLAIN_FILES, ...CONFIG };
  files["tests/total_adds.cpp"] = '#include "total.h"\n\nint main() {\n  return no_such_function();\n}\n';
  const r = await runMatrixCase(sandbox, writeProject(files), SLUG_BUG);
  const v = r.validation.result;
  assert.equal(v.status, "could-not-run", JSON.stringify(v, null, 1));
  assert.deepEqual(v.fixed, []);
});

test("a patch that breaks the build reads no test as fixed and never passes", { skip: noCmake }, async () => {
  const broken = { ...SLUG_BUG, to: "? '-' : no_such_name" };
  const r = await runMatrixCase(sandbox, writeProject({ ...PLAIN_FILES, ...CONFIG }), broken);
  const v = r.validation.result;
  assert.notEqual(v.status, "passed", JSON.stringify(v, null, 1));
  assert.deepEqual(v.fixed, []);
  assert.deepEqual(r.after, {}, "no test ran on the patched tree");
  console.log(`broken build: ${v.status}: ${v.summary}`);
});

test("a patch that ends the process with std::exit(0) in library code is never intact: could not check", {
  skip: noCmake,
}, async () => {
  const attack = { ...SLUG_BUG, from: "for (char c : s)", to: "std::exit(0); for (char c : s)" };
  const r = await runMatrixCase(sandbox, writeProject({ ...PLAIN_FILES, ...CONFIG }), attack);
  const v = r.validation.result;
  // CTest sees each test executable exit 0 and reports it passed; no check test can tell (none are
  // placed in CTest runs), so the run's integrity is "could not check", never intact.
  assert.equal(v.integrity?.state, "unverified", JSON.stringify(v, null, 1));
  console.log(`std::exit attack: ${v.status}; integrity ${v.integrity?.state}: ${v.integrity?.detail}`);
});
