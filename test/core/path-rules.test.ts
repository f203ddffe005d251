import assert from "node:assert/strict";
import { test } from "node:test";
import { isProtectedPath, parseRepoConfig } from "../../src/config/index.ts";
import { compileGlob, isCiPath, matchGlob, testCommandFiles } from "../../src/core/path-rules.ts";
import {
  checkEditablePath,
  isTestConfigFile,
  testConfigChange,
} from "../../src/runners/shared/conventions-test-config.ts";
import { createMemoryRepo } from "../../src/patch/index.ts";
import { computePatch } from "../../src/patch/index.ts";

test("globs read like .gitignore", () => {
  const cases: [string, string, boolean][] = [
    ["*.lock", "yarn.lock", true],
    ["*.lock", "src/yarn.lock", true],
    ["docs/**", "docs/a/b.md", true],
    ["docs/**", "docs", true],
    ["docs/**", "src/docs/a.md", false],
    ["docs/", "docs/a.md", true],
    ["/docs", "src/docs", false],
    ["docs", "src/docs/a.md", true],
    ["src/**/gen_*.py", "src/gen_a.py", true],
    ["src/**/gen_*.py", "src/x/y/gen_a.py", true],
    ["src/**/gen_*.py", "lib/src/gen_a.py", false],
    ["{a,b}/*.py", "b/x.py", true],
    ["{a,b}/*.py", "c/x.py", false],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file12.txt", false],
    ["**", "anything/at/all", true],
    ["./config/**", "config/x", true],
  ];
  for (const [glob, path, want] of cases) assert.equal(matchGlob(glob, path), want, `${glob} ~ ${path}`);
});

test("a glob built to backtrack is matched in linear time", () => {
  // As a regular expression `a*a*a*...b` against "aaaa...c" backtracks for minutes; here it is a scan.
  const glob = `${"a*".repeat(400)}b`;
  const path = `${"a".repeat(2000)}c`;
  assert.equal(matchGlob(glob, path), false);
  assert.equal(matchGlob(`${"**/".repeat(200)}x`, `${"d/".repeat(300)}y`), false);
  assert.equal(compileGlob("x".repeat(5000))("x".repeat(5000)), false, "over-long globs match nothing");
  // A model's patched pyproject.toml built to make a header pattern backtrack is scanned in one pass.
  const hostile = `[${" ".repeat(300_000)}\n[tool.pytest${"]".repeat(10)}${" ".repeat(300_000)}x\n`;
  assert.ok(testConfigChange("pyproject.toml", "", hostile));
});

test("the configuration and the patch engine give one answer for every path", async () => {
  const config = parseRepoConfig("protected-paths: ['docs/**', '*.lock', 'config/{dev,prod}.py']");
  const paths = [
    ".github/workflows/ci.yml",
    ".github",
    "docs/a/b.md",
    "src/docs/a.md",
    "yarn.lock",
    "src/yarn.lock",
    "config/dev.py",
    "config/test.py",
    ".gitlab-ci.yml",
    "Jenkinsfile",
    "src/app.py",
  ];
  for (const path of paths) {
    const byConfig = isProtectedPath(path, config.protectedPaths);
    const byEngine = !checkEditablePath(path, config.protectedPaths).ok;
    assert.equal(byEngine, byConfig, path);
    // And the engine refuses an edit of it exactly then.
    const repo = createMemoryRepo({ [path]: "v = 1\n" });
    const r = await computePatch(
      repo,
      `<file>${path}</file>\n<original>\nv = 1\n</original>\n<patched>\nv = 2\n</patched>`,
      {
        protectedGlobs: config.protectedPaths,
      },
    );
    assert.equal(r.status === "RAW_PATCH_BUT_UNSAFE_PATH", byConfig, `${path}: ${r.status} ${r.feedback}`);
  }
  assert.ok(isCiPath(".github/workflows/ci.yml"));
  assert.ok(!isCiPath("src/.github.py"));
});

test("test configuration files are recognised whole, at any depth", () => {
  for (const p of [
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    "sub/conftest.py",
    "noxfile.py",
    "jest.config.js",
    "packages/web/vitest.config.mts",
    ".mocharc.yml",
    ".mocharc.json",
    "karma.conf.js",
    "gradlew",
    "gradle/wrapper/gradle-wrapper.properties",
    ".mvn/maven.config",
  ]) {
    assert.ok(isTestConfigFile(p), p);
    assert.match((checkEditablePath(p, []) as { message: string }).message, /test/, p);
  }
  for (const p of ["src/app.py", "setup.py", "package.json", "pyproject.toml", "src/jest.ts"]) {
    assert.ok(!isTestConfigFile(p), p);
  }
});

test("sectioned files: only a change to their test part counts", () => {
  const pyproject = `[project]\nname = "x"\ndependencies = ["requests"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n`;
  assert.equal(testConfigChange("pyproject.toml", pyproject, pyproject.replace("requests", "httpx")), null);
  assert.match(
    testConfigChange(
      "pyproject.toml",
      pyproject,
      pyproject.replace('"-q"', '"-q --deselect tests/test_a.py::t"'),
    )!,
    /test settings/,
  );
  assert.ok(
    testConfigChange("pyproject.toml", pyproject, `${pyproject}\n[tool.coverage.run]\nomit = ["x"]\n`),
  );
  // A dotted key outside a test table still configures pytest.
  assert.ok(
    testConfigChange("pyproject.toml", "[tool]\n", '[tool]\npytest.ini_options.addopts = "-k not slow"\n'),
  );
  const cfg = "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n";
  assert.equal(testConfigChange("setup.cfg", cfg, cfg.replace("name = x", "name = y")), null);
  assert.ok(testConfigChange("setup.cfg", cfg, cfg.replace("testpaths = tests", "testpaths = nothing")));
  const pkg = JSON.stringify({ name: "x", version: "1.0.0", scripts: { test: "node --test" } }, null, 2);
  assert.equal(testConfigChange("package.json", pkg, pkg.replace("1.0.0", "1.0.1")), null);
  assert.ok(testConfigChange("package.json", pkg, pkg.replace("node --test", "exit 0")));
  assert.ok(
    testConfigChange(
      "package.json",
      pkg,
      pkg.replace('"name"', '"jest": {"testPathIgnorePatterns": ["a"]}, "name"'),
    ),
  );
  assert.match(testConfigChange("package.json", pkg, "{ not json")!, /valid JSON/);
  assert.ok(testConfigChange("build.gradle", "test { useJUnitPlatform() }\n", "test { exclude '**/*' }\n"));
  assert.ok(
    testConfigChange(
      "pom.xml",
      "<project/>",
      "<project><properties><skipTests>true</skipTests></properties></project>",
    ),
  );
  assert.equal(testConfigChange("pom.xml", "<project/>", "<project><name>x</name></project>"), null);
  assert.ok(testConfigChange("pytest.ini", null, "[pytest]\naddopts = -k nothing\n"), "a new pytest.ini");
});

test("files the test command names are protected", () => {
  assert.deepEqual(testCommandFiles("make test"), ["GNUmakefile", "Makefile", "makefile"]);
  assert.deepEqual(testCommandFiles("./scripts/run-tests.sh --fast"), ["scripts/run-tests.sh"]);
  assert.deepEqual(testCommandFiles("python3 -m pytest -c ci/pytest-ci.ini"), ["ci/pytest-ci.ini"]);
  assert.deepEqual(testCommandFiles("go test -json ./..."), []);
  assert.deepEqual(testCommandFiles("python3 -m pytest -rA -p no:cacheprovider"), []);
  const config = parseRepoConfig("test: make check");
  assert.ok(isProtectedPath("Makefile", config.protectedPaths));
  assert.match(
    (checkEditablePath("Makefile", config.protectedPaths) as { message: string }).message,
    /protected/,
  );
});

test("other forges' pipelines, code owners, merge bots, git hooks and dev containers are protected like .github/", () => {
  const config = parseRepoConfig(null);
  for (const path of [
    ".gitea/workflows/ci.yml",
    ".forgejo/workflows/ci.yml",
    ".cirrus.yml",
    ".semaphore/semaphore.yml",
    ".teamcity/settings.kts",
    ".pre-commit-config.yaml",
    "CODEOWNERS",
    "docs/CODEOWNERS",
    "renovate.json",
    ".mergify.yml",
    ".husky/pre-commit",
    ".devcontainer/devcontainer.json",
    "./.github/workflows/ci.yml",
  ]) {
    const verdict = checkEditablePath(path, config.protectedPaths);
    assert.equal(verdict.ok, false, path);
    assert.ok(isProtectedPath(path, config.protectedPaths), path);
  }
  // Files of the same names elsewhere, and the project's own docs, stay editable.
  for (const path of ["src/CODEOWNERS.py", "docs/guide.md", "src/husky.py"]) {
    assert.equal(checkEditablePath(path, config.protectedPaths).ok, true, path);
  }
});

test("a pyproject.toml that cannot be read as TOML, or is too large to judge, cannot be changed by a patch", () => {
  const ok = '[project]\nname = "x"\n';
  assert.equal(testConfigChange("pyproject.toml", ok, ok.replace('"x"', '"y"')), null);
  // Invalid after the patch: pytest would read nothing, so the change is refused.
  assert.match(testConfigChange("pyproject.toml", ok, `${ok}[tool.pytest\n`) ?? "", /cannot be judged/);
  // 300 kB of crafted dotted keys: not parsed at all (parsing such text takes about 1 µs a character).
  const big = `${ok}${Array.from({ length: 300 }, (_, i) => `[t${i}]\n${"a.".repeat(500)}b = 1`).join("\n")}\n`;
  assert.ok(big.length > 256 * 1024);
  assert.match(testConfigChange("pyproject.toml", big, `${big}# more\n`) ?? "", /over 256 kB/);
});
