import { spawnSync } from "node:child_process";
import { posix } from "node:path";
import type { RunnerConventions, TestPlan } from "../parts/conventions.ts";
import {
  baseName,
  collectVerdicts,
  exampleOf,
  freshPath,
  isDir,
  join,
  listDir,
  pickSample,
} from "../shared/conventions-files.ts";

/** The build folder auto-fix configures (inside the work tree: each tree's copy carries its own). */
export const BUILD_DIR = "build";
/** Configure and build: the setup step (kept like other setup results). */
export const CMAKE_SETUP = [`cmake -S . -B ${BUILD_DIR}`, `cmake --build ${BUILD_DIR}`];
/**
 * The suite: CTest over the build folder (the runner rebuilds what a patch changed before it runs: see
 * `rebuilt` in command.ts). A build that fails stops before any test runs: the run names no test.
 */
export const CTEST_COMMAND = `ctest --test-dir ${BUILD_DIR} --output-on-failure`;

const TEST_DIRS = ["tests", "test", "unittests", "unit_tests"];
const CPP_SOURCE = /\.(cpp|cc|cxx)$/;

let installedCache: boolean | undefined;
const starts = (cmd: string): boolean =>
  spawnSync(cmd, ["--version"], { stdio: "ignore", timeout: 20_000 }).status === 0;

/** A line `cmd(` of a CMake file, comments left out. */
const calls = (text: string, cmd: string): boolean =>
  new RegExp(`^[ \\t]*${cmd}[ \\t]*\\(`, "im").test(text.replace(/#[^\n]*/g, ""));

/** GoogleTest style (`#include <gtest/gtest.h>` in a test file of the folder) or plain executables. */
function usesGtest(root: string, dir: string, files: readonly string[]): boolean {
  const sample = exampleOf(root, join(dir, files[0] ?? ""));
  return files.length > 0 && sample !== null && /#\s*include\s*[<"]gtest\/gtest\.h[>"]/.test(sample.text);
}

/** Compiles the new file with the project's sources that have no `main` (as the reproducer is) and runs it. */
function compileAndRun(path: string, gtest: boolean): string {
  const libs = gtest ? " -lgtest -lgtest_main -pthread" : "";
  return [
    `srcs=$(find . -path ./${BUILD_DIR} -prune -o \\( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \\) -not -path './${path}' -not -path '*/test*/*' -not -path '*/example*/*' -print | xargs -r grep -L -E '^[[:space:]]*int[[:space:]]+main[[:space:]]*\\(' || true)`,
    `g++ -std=c++17 -I. -Iinclude -Isrc -o /tmp/af-regression-test ${path} $srcs${libs}`,
    // A plain program that passes prints nothing of its own: its exit status is said, so that a run
    // that reached its end is told from one that printed nothing.
    gtest
      ? "/tmp/af-regression-test"
      : "/tmp/af-regression-test && echo 'regression test: every check held (exit 0)'",
  ].join(" && ");
}

/** GoogleTest's verdict lines (`[       OK ] Suite.Name (0 ms)`). */
const GTEST_LINE = /^\[ +(OK|FAILED|SKIPPED) +\] ([A-Za-z_][\w/]*\.[A-Za-z_][\w/]*) \(\d+ ms\)/gm;

export const conventions: RunnerConventions = {
  label: "CTest",
  languages: ["cpp"],
  markFiles: ["CMakeLists.txt"],
  recognise(files, installed) {
    const top = files.read("CMakeLists.txt");
    if (!top) return null;
    const lists = [top, ...TEST_DIRS.map((d) => files.read(`${d}/CMakeLists.txt`))];
    const enabled = calls(top, "enable_testing") || /include[ \t]*\([ \t]*CTest[ \t]*\)/i.test(top);
    const tests = lists.some(
      (t) => calls(t, "add_test") || calls(t, "gtest_discover_tests") || calls(t, "gtest_add_tests"),
    );
    if (!enabled || !tests) return null;
    const reasons = ["tests: ctest (CMakeLists.txt enables testing and adds tests)"];
    if (!installed())
      reasons.push(
        "cmake or ctest is not installed in the sandbox: the setup step will fail (Debian: apt-get install cmake g++)",
      );
    if (
      lists.some((t) => /gtest|GTest/.test(t)) &&
      !files.has("googletest") &&
      !files.has("third_party/googletest")
    )
      reasons.push(
        "the tests use GoogleTest: it must be installed where CMake finds it (Debian: libgtest-dev)",
      );
    return { testCommand: CTEST_COMMAND, setup: [...CMAKE_SETUP], reasons };
  },
  installed() {
    installedCache ??= starts("cmake") && starts("ctest") && starts("g++");
    return installedCache;
  },
  regressionDefault: true,
  regression: {
    plan(root, changed) {
      const file = changed.find((f) => CPP_SOURCE.test(f) || /\.(h|hpp|hh)$/.test(f));
      if (!file) return { ok: false, reason: "the patch changes no C++ file to write a test for" };
      const dir = TEST_DIRS.find((d) => isDir(root, d)) ?? posix.dirname(file);
      const wanted = join(dir, `${baseName(file)}_regression_test.cpp`);
      const path = freshPath(root, wanted);
      if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
      const existing = listDir(root, dir)
        .filter((f) => CPP_SOURCE.test(f))
        .sort();
      const sample = pickSample(existing, baseName(file));
      const gtest = usesGtest(root, dir, sample ? [sample] : existing);
      const plan: TestPlan = {
        runner: "ctest",
        framework: gtest ? "GoogleTest" : "CTest",
        language: "C++",
        tags: ["cpp", "c++", "cxx", "cc"],
        path,
        command: compileAndRun(path, gtest),
        notes: gtest
          ? "Write GoogleTest tests (`#include <gtest/gtest.h>`, `TEST(Suite, Name) { EXPECT_EQ(...); }`, no `main`: gtest_main provides it), including the project's headers by their path. The file is compiled with the project's sources and run by itself."
          : "Write one C++17 program with `int main()` that includes the project's headers by their path, checks with `assert(...)` from <cassert> and returns 0 when every check holds. The file is compiled with the project's sources and run by itself.",
        example: sample ? exampleOf(root, join(dir, sample)) : null,
      };
      return { ok: true, plan };
    },
    verdicts: (output, plan) =>
      plan.framework === "GoogleTest"
        ? collectVerdicts(output, GTEST_LINE, (m) => [
            m[2]!,
            m[1] === "OK" ? "pass" : m[1] === "SKIPPED" ? "skip" : "fail",
          ])
        : new Map(),
    testsRan: (output) => !/\[==========\] 0 tests? from/.test(output),
  },
  watched: {
    libraries: ["gtest", "gmock"],
    objects: ["testing"],
    extensions: [],
    // A string naming the runner, compared with outside tests, is a test-aware branch. Calls that end the
    // process or read the environment in library code (`std::exit`, `abort`, `getenv`) are the scan's
    // to watch per language (C++ has no scan family yet).
    names: [/^ctest$/i, /^gtest$/i, /^googletest$/i],
    variables: [/^CTEST_/, /^GTEST_/, /^DASHBOARD_TEST_FROM_CTEST$/],
  },
};
