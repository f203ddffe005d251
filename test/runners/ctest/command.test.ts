import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { nameRegex } from "../../../src/runners/ctest/command.ts";
import { CMAKE_SETUP, CTEST_COMMAND } from "../../../src/runners/ctest/conventions.ts";
import { runnerFor } from "../../../src/runners/index.ts";
import { runnerOfCommand } from "../../../src/runners/shared/command-spelling.ts";
import { writeRepo } from "../../validate/support/targeted-repo.ts";
import { GTEST_FILES } from "./projects.ts";

// How CTest commands are named and targeted: `ctest` starts it, tests are chosen by an anchored `-R`.

const ctest = runnerFor("ctest");
const ctx = { reportName: ".junit-ctest-x.xml", reportsNamed: false };

test("ctest: a plain ctest command starts it; a script (configure && build && ctest) names no runner", () => {
  assert.equal(runnerOfCommand("ctest --test-dir build --output-on-failure", "ctest"), "ctest");
  assert.equal(runnerOfCommand("/usr/bin/ctest --test-dir build", "ctest"), "ctest");
  assert.equal(runnerOfCommand("cmake --build build && ctest --test-dir build", "ctest"), null);
  assert.equal(ctest.namedAt(["make", "ctest"]), -1);
});

test("ctest: a targeted run replaces the command's selection with exactly the named tests", () => {
  const w = ctest.targetedWords(
    ["ctest", "--test-dir", "build", "-R", "slug", "--exclude-regex=x", "-j", "2"],
    ["Slug.Spaces", "total_adds"],
    ctx,
  );
  assert.ok(!("reason" in w));
  // The build folder is rebuilt first (a patched tree's copy holds the unpatched build).
  assert.deepEqual(w.words, ["cmake", "--build", "build", "&&", "ctest", "--test-dir", "build", "-j", "2"]);
  assert.deepEqual(w.args, ["-R", "^(Slug\\.Spaces|total_adds)$"]);
  assert.ok("reason" in ctest.targetedWords(["make", "test"], ["a"], ctx));
});

test("ctest: the whole suite runs after CMake rebuilds the folder it tests (`.` when none is named)", () => {
  const w = ctest.suiteWords(["ctest", "--test-dir", "out/b", "--output-on-failure"], ctx);
  assert.ok(!("reason" in w));
  assert.deepEqual(w.words, [
    "cmake",
    "--build",
    "out/b",
    "&&",
    "ctest",
    "--test-dir",
    "out/b",
    "--output-on-failure",
  ]);
  const here = ctest.suiteWords(["ctest"], ctx);
  assert.ok(!("reason" in here));
  assert.deepEqual(here.words, ["cmake", "--build", ".", "&&", "ctest"]);
});

test("ctest: a target is a test name, never shell or regular-expression syntax", () => {
  for (const ok of ["slug_spaces", "Slug.Spaces", "Sizes/Param.Works/1", "ns::t-1"])
    assert.ok(ctest.validTarget(ok), ok);
  for (const bad of ["", "a b", ".*", "a|b", "$(x)", "-R", "a;b", "x".repeat(1001)])
    assert.ok(!ctest.validTarget(bad), bad);
  // `.` in a name matches only itself: `Slug.Spaces` never selects `SlugXSpaces`.
  const re = new RegExp(nameRegex(["Slug.Spaces"]));
  assert.ok(re.test("Slug.Spaces") && !re.test("SlugXSpaces") && !re.test("Slug.Spaces2"));
});

test("ctest: the scope is the command's -R expressions; a target is in one only when it names it alone", () => {
  assert.deepEqual(ctest.scope(["ctest", "--test-dir", "build"]), []);
  assert.deepEqual(ctest.scope(["ctest", "-R", "slug"]), ["slug"]);
  assert.equal(ctest.scope(["make", "test"]), null);
  assert.ok(ctest.inScope("a.b", [nameRegex(["a.b"])]));
  assert.ok(!ctest.inScope("a.b", ["a"]));
});

test("ctest: a targeted run, as validation runs it, runs exactly the named GoogleTest tests with the real ctest", {
  skip:
    spawnSync("sh", ["-c", "command -v cmake && ls /usr/lib/*/libgtest_main.a"], { stdio: "ignore" })
      .status !== 0 && "cmake or GoogleTest is not installed",
}, () => {
  const root = writeRepo(GTEST_FILES);
  for (const step of CMAKE_SETUP) {
    const r = spawnSync("sh", ["-c", step], { cwd: root, encoding: "utf8", timeout: 300_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  }
  const w = ctest.targetedWords(CTEST_COMMAND.split(" "), ["Slug.Spaces", "Total.Adds"], ctx);
  assert.ok(!("reason" in w));
  const run = spawnSync("/bin/sh", ["-c", `${w.words.join(" ")} "$@"`, "sh", ...w.args], {
    cwd: root,
    encoding: "utf8",
    timeout: 300_000,
  });
  assert.deepEqual(Object.fromEntries(ctest.parseOutput(run.stdout)?.tests ?? []), {
    "Slug.Spaces": "failed",
    "Total.Adds": "passed",
  });
});
