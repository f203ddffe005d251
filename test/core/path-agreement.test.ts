import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { isProtectedPath, parseRepoConfig } from "../../src/config/index.ts";
import {
  ALWAYS_PROTECTED_GLOBS,
  BUILD_SCRIPT_GLOBS,
  CACHE_DIRS,
  DEPENDENCY_DIRS,
  GENERATED_DIRS,
  isCiPath,
  isNonSourceDir,
  isVendoredPath,
  VCS_DIRS,
} from "../../src/core/path-rules.ts";
import { checkEditablePath, isTestConfigFile } from "../../src/runners/shared/conventions-test-config.ts";
import { isTestPath } from "../../src/core/test-files.ts";
import { forbiddenPatchPath } from "../../src/github/git.ts";
import { walkSources } from "../../src/index/walk.ts";
import { computePatch, createMemoryRepo } from "../../src/patch/index.ts";
import { tempDir } from "../support/temp.ts";
import { rng } from "../support/rng.ts";

// The configuration (`isProtectedPath`), the patch engine (`checkEditablePath`, `computePatch`) and the
// app's last look before a commit (`forbiddenPatchPath`) read one set of path rules. These tests feed
// them paths built from the rules' own names, from globs, from look-alikes and from sloppy spellings,
// and require the same answer from each.

const GLOBS = [
  "docs/**",
  "*.lock",
  "config/{dev,prod}.py",
  "/scripts/release.sh",
  "generated/",
  "**/*.pb.go",
];

/** Path segments: the rules' own names, their look-alikes and ordinary ones. */
function segments(): { dirs: string[]; files: string[] } {
  const dirs = new Set<string>([
    "src",
    "lib",
    "app",
    "pkg",
    "docs",
    "config",
    "scripts",
    "generated",
    "a",
    "b",
  ]);
  const files = new Set<string>(["main.py", "app.ts", "x.go", "README.md", "yarn.lock", "dev.py", "prod.py"]);
  for (const d of [...VCS_DIRS, ...DEPENDENCY_DIRS, ...CACHE_DIRS, ...GENERATED_DIRS]) {
    dirs.add(d);
    dirs.add(`${d}x`); // a look-alike that is not the rule's name
  }
  for (const g of [...ALWAYS_PROTECTED_GLOBS, ...BUILD_SCRIPT_GLOBS]) {
    const parts = g.replace(/\/\*\*$/, "").split("/");
    const last = parts.pop()!;
    for (const p of parts) if (p !== "**") dirs.add(p);
    if (g.endsWith("/**")) dirs.add(last);
    else files.add(last);
    files.add(`${last}.bak`);
    dirs.add(last.toUpperCase());
  }
  for (const f of ["pytest.ini", "conftest.py", "jest.config.js", "tox.ini", "gradlew", "pyproject.toml"])
    files.add(f);
  for (const f of ["test_app.py", "app_test.go", "app.test.ts", "AppTest.java", "tests.py"]) files.add(f);
  for (const d of ["tests", "test", "__tests__", "spec", "workflows", ".github", ".git"]) dirs.add(d);
  return { dirs: [...dirs], files: [...files] };
}

const PLAIN_DIRS = ["src", "lib", "app", "pkg", "docs", "tests", "test", "a"];
const PLAIN_FILES = ["main.py", "app.ts", "x.go", "README.md", "test_app.py", "app.test.ts", "conftest.py"];

function generatePaths(count: number, seed: number): string[] {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const { dirs, files } = segments();
  const out = new Set<string>();
  while (out.size < count) {
    const depth = Math.floor(next() * 4);
    const parts: string[] = [];
    // The rules name many files at any depth: ordinary names are drawn half the time, so that every
    // kind of answer stays common.
    for (let i = 0; i < depth; i++) parts.push(next() < 0.5 ? pick(PLAIN_DIRS) : pick(dirs));
    const last = next() < 0.15 ? pick(dirs) : pick(files);
    parts.push(next() < 0.5 ? pick(PLAIN_FILES) : last);
    out.add(parts.join("/"));
  }
  return [...out];
}

/** Sloppy spellings of one path that name the same file. */
const spellings = (path: string): string[] => [path, `./${path}`, `././${path}`, path.replaceAll("/", "\\")];

const diffFor = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-v = 1\n+v = 2\n`;

test("configuration, patch engine and the app's commit check agree on 3000 generated paths", () => {
  const config = parseRepoConfig(`protected-paths: ${JSON.stringify(GLOBS)}`);
  const globs = config.protectedPaths;
  let protectedCount = 0;
  let refusedOther = 0;
  for (const path of generatePaths(3000, 14)) {
    const byConfig = isProtectedPath(path, globs);
    const verdict = checkEditablePath(path, globs);
    // Whatever the configuration protects, the engine refuses.
    if (byConfig) {
      protectedCount++;
      assert.equal(verdict.ok, false, `config protects ${path} but the engine would edit it`);
    }
    // Whatever the engine refuses, it refuses by a named rule: protected, vendored, a test, test config.
    if (!verdict.ok && !byConfig) {
      refusedOther++;
      assert.ok(
        isVendoredPath(path) || isTestPath(path) || isTestConfigFile(path),
        `${path} refused without a rule: ${verdict.message}`,
      );
    }
    // The app's check before a commit is the engine's rule without the repository's globs.
    const engineNoGlobs = checkEditablePath(path, []);
    const app = forbiddenPatchPath(diffFor(path));
    assert.equal(
      app === null,
      engineNoGlobs.ok,
      `${path}: app says ${app}, engine says ${JSON.stringify(engineNoGlobs)}`,
    );
    if (app !== null && !engineNoGlobs.ok) assert.equal(app, engineNoGlobs.message);
    // Each spelling of the path gets the same answers.
    for (const s of spellings(path)) {
      assert.equal(isProtectedPath(s, globs), byConfig, `config: ${s} vs ${path}`);
      assert.equal(checkEditablePath(s, globs).ok, verdict.ok, `engine: ${s} vs ${path}`);
      assert.equal(isCiPath(s), isCiPath(path), `ci: ${s} vs ${path}`);
    }
  }
  // The generator reached every kind of answer (a generator that only made plain paths proves nothing).
  assert.ok(protectedCount > 300, `only ${protectedCount} protected paths generated`);
  assert.ok(
    refusedOther > 300,
    `only ${refusedOther} paths refused by the other rules (${protectedCount} protected)`,
  );
});

test("the engine refuses an edit exactly where the rules say, for generated paths with real content", async () => {
  const config = parseRepoConfig(`protected-paths: ${JSON.stringify(GLOBS)}`);
  for (const path of generatePaths(300, 41)) {
    const repo = createMemoryRepo({ [path]: "v = 1\n" });
    const r = await computePatch(
      repo,
      `<file>${path}</file>\n<original>\nv = 1\n</original>\n<patched>\nv = 2\n</patched>`,
      { protectedGlobs: config.protectedPaths },
    );
    const refused = !checkEditablePath(path, config.protectedPaths).ok;
    assert.equal(r.status === "RAW_PATCH_BUT_UNSAFE_PATH", refused, `${path}: ${r.status} ${r.feedback}`);
  }
});

test("the lists of folders to skip live in core/path-rules alone, and the index follows them", async () => {
  const names = [...VCS_DIRS, ...DEPENDENCY_DIRS, ...CACHE_DIRS, ...GENERATED_DIRS];
  // No other module spells a skipped folder's name as a string, except for another purpose: detection
  // asks whether dependencies are installed, `fix` writes its runs under .auto-fix by default, the index
  // cache's default folder is ~/.cache/auto-fix, and the canaries remove the compiled copy Python leaves
  // of their own module and follow `go test`'s patterns.
  const allowed = new Set([
    "src/config/detect.ts:node_modules",
    "src/cli/commands/fix.ts:.auto-fix",
    // The operator's cache folder in the home (~/.cache/auto-fix), not a folder of a repository.
    "src/index/cache.ts:.cache",
    "src/runners/shared/canaries-python.ts:__pycache__",
    // go test's own rule: `./...` never matches packages under vendor/ (nor is a test file sought there).
    "src/runners/go/canaries.ts:vendor",
    "src/runners/shared/canaries-args.ts:vendor",
    // cargo's setup fetches offline when the crate's dependencies are vendored in the tree.
    "src/runners/cargo/conventions.ts:vendor",
    // CTest's setup configures CMake into build/, the folder its test command then runs in.
    "src/runners/ctest/conventions.ts:build",
  ]);
  const root = new URL("../../src/", import.meta.url).pathname;
  for (const file of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    // core/folder-names.ts is the part of the path rules the sandbox imports (path-rules re-exports it).
    if (!file.endsWith(".ts") || file === "core/path-rules.ts" || file === "core/folder-names.ts") continue;
    const text = readFileSync(join(root, file), "utf8");
    for (const name of names) {
      if (text.includes(`"${name}"`) || text.includes(`'${name}'`)) {
        assert.ok(allowed.has(`src/${file}:${name}`), `src/${file} lists the folder ${name} itself`);
      }
    }
  }
  // The index walks past every one of them, at any depth, and keeps a look-alike.
  const dir = tempDir("auto-fix-skip-");
  for (const name of names) {
    for (const at of [name, `src/${name}`]) {
      mkdirSync(join(dir, at), { recursive: true });
      writeFileSync(join(dir, at, "m.py"), "def f():\n    return 1\n");
    }
  }
  mkdirSync(join(dir, "src/distx"), { recursive: true });
  writeFileSync(join(dir, "src/distx/m.py"), "def g():\n    return 2\n");
  writeFileSync(join(dir, "src/m.py"), "def h():\n    return 3\n");
  const found = await walkSources(dir, { onNote: () => {} });
  assert.deepEqual(
    found.map((f) => f.rel),
    ["src/distx/m.py", "src/m.py"],
  );
  for (const name of names) assert.ok(isNonSourceDir(name), name);
  assert.ok(isNonSourceDir("pkg.egg-info"));
  assert.ok(!isNonSourceDir("src"));
});
