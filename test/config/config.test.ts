import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import {
  detectProject,
  isProtectedPath,
  loadRepoConfig,
  parseRepoConfig,
  RepoConfigError,
} from "../../src/config/index.ts";
import { tempDir } from "../support/temp.ts";

function repo(files: Record<string, string>): string {
  const root = tempDir("af-config-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

test("a full configuration file is read with every field", () => {
  const c = parseRepoConfig(`
setup:
  - pip install -e .
test: pytest -x tests
reproducer:
  runtime: command
  command: ruby {file}
  file: repro.rb
  pattern: "Failure|AssertionError"
timeouts: { setup: 60, test: 30, reproducer: 5 }
strategy: { mode: tree, branch: 4, iterations: 12 }
budgets: { cost-usd: 0.5, review-rounds: 3 }
protected-paths: ["docs/**"]
label: bugfix-bot
sandbox: { backend: docker, image: "ruby:3.3" }
`);
  assert.deepEqual(c.setup, ["pip install -e ."]);
  assert.equal(c.test.command, "pytest -x tests");
  assert.equal(c.test.framework, "pytest");
  assert.equal(c.test.source, "config");
  assert.equal(c.reproducer.command, "ruby repro.rb");
  assert.equal(c.reproducer.pattern, "Failure|AssertionError");
  assert.deepEqual(c.timeouts, { setupMs: 60_000, testMs: 30_000, reproducerMs: 5000 });
  assert.deepEqual(c.strategy, {
    mode: "tree",
    c: 0.5,
    branch: 4,
    maxExpansion: 3,
    maxRollout: 12,
    valueMix: 0.5,
    expandAttempts: 2,
  });
  assert.equal(c.budgets.costUsd, 0.5);
  assert.equal(c.budgets.reviewRounds, 3);
  assert.equal(c.label, "bugfix-bot");
  assert.equal(c.sandbox.image, "ruby:3.3");
  assert.ok(c.protectedPaths.includes(".github/**"));
  assert.ok(c.protectedPaths.includes("docs/**"));
  assert.equal(parseRepoConfig("strategy: tree").strategy.mode, "tree");
});

test("every bad field gets its own clear message", () => {
  try {
    parseRepoConfig(`
test: 5
timeouts: { test: soon }
strategy: sideways
reproducer: { runtime: cobol }
colour: blue
budgets: { cost-usd: -1 }
`);
    assert.fail("expected a RepoConfigError");
  } catch (err) {
    assert.ok(err instanceof RepoConfigError);
    const text = err.problems.join("\n");
    assert.match(text, /^test: expected a command/m);
    assert.match(text, /^timeouts\.test: expected a number of seconds/m);
    assert.match(text, /^strategy: /m);
    assert.match(text, /^reproducer\.runtime: expected one of python, node, java, go, rust, cpp, command/m);
    assert.match(text, /unknown setting\(s\) 'colour'/);
    assert.match(text, /^budgets\.cost-usd: /m);
    assert.match(err.message, /\.github\/auto-fix\.yml is not valid/);
  }
  assert.throws(() => parseRepoConfig("test: [unclosed"), /YAML syntax \(line 1/);
  // The position is said once, in front: the parser's own "at line 3, column 1:" does not dangle at the end.
  assert.throws(
    () => parseRepoConfig("search:\n  rounds: [1\nx: 2\n"),
    (e: Error) =>
      /YAML syntax \(line 3, column 1\): Flow sequence in block collection must be sufficiently indented and end with a \]$/m.test(
        e.message,
      ) && !/column \d+:\s*$/m.test(e.message),
  );
  assert.throws(() => parseRepoConfig("- a list"), /must be a mapping/);
  assert.throws(() => parseRepoConfig("reproducer: { runtime: command }"), /needs a `command` template/);
  assert.throws(() => parseRepoConfig("reproducer: { pattern: '(' }"), /not a valid regular expression/);
  assert.throws(() => parseRepoConfig("reproducer: { file: ../outside.py }"), /relative path inside/);
});

test("detection without a file: pytest, unittest, npm test, maven, gradle, go", () => {
  const cases: [Record<string, string>, string | null, string, string][] = [
    [
      { "pyproject.toml": "[tool.pytest.ini_options]\n", "pkg/a.py": "" },
      "python3 -m pytest -rA -p no:cacheprovider",
      "pytest",
      "python",
    ],
    [
      { "setup.py": "", "tests/test_a.py": "import unittest\n" },
      "python3 -m unittest discover -v",
      "unittest",
      "python",
    ],
    [
      { "package.json": '{"scripts":{"test":"vitest run"}}', "src/a.ts": "", "tsconfig.json": "{}" },
      "npm test",
      "vitest",
      "node",
    ],
    // `npm test` runs the script's command, which auto-fix runs itself to name each test.
    [
      { "package.json": '{"scripts":{"test":"node --test"}}', "a.js": "" },
      "node --test",
      "node-test",
      "node",
    ],
    [
      { "package.json": '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' },
      null,
      "unknown",
      "node",
    ],
    [{ "pom.xml": "<project/>", "src/main/java/A.java": "" }, "mvn -B -o test", "maven", "java"],
    [{ "build.gradle": "", gradlew: "", "src/A.java": "" }, "./gradlew --offline test", "gradle", "java"],
    [{ "go.mod": "module x\n", "a.go": "" }, "go test -json ./...", "go", "go"],
    [{ "src/main/java/A.java": "", "src/main/java/B.java": "" }, null, "unknown", "java"],
  ];
  for (const [files, cmd, framework, runtime] of cases) {
    const root = repo(files);
    try {
      const c = loadRepoConfig(root);
      assert.equal(c.test.command, cmd, JSON.stringify(files));
      assert.equal(c.test.framework, framework, JSON.stringify(files));
      assert.equal(c.reproducer.runtime, runtime, JSON.stringify(files));
      assert.equal(c.fromFile, false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
});

test("the file wins over detection, and --test-cmd wins over both", () => {
  const root = repo({ "pytest.ini": "", ".github/auto-fix.yml": "test: make check\n", "a.py": "" });
  try {
    const c = loadRepoConfig(root);
    assert.equal(c.test.command, "make check");
    assert.equal(c.test.source, "config");
    assert.equal(c.reproducer.command, "python3 reproducer.py");
    const o = loadRepoConfig(root, { testCommand: "python3 -m pytest -q tests/unit" });
    assert.equal(o.test.command, "python3 -m pytest -q tests/unit");
    assert.equal(o.test.source, "cli");
    assert.equal(o.test.framework, "pytest");
    assert.throws(() => loadRepoConfig(root, { testCommand: "  " }), /must not be empty/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const mixed = detectProject(
    repo({ "package.json": "{}", "a.py": "", "b.py": "", "c.py": "", "requirements.txt": "" }),
  );
  assert.equal(mixed.language, "python");
});

test("protected paths", () => {
  const globs = parseRepoConfig("protected-paths: ['docs/**', '*.lock']").protectedPaths;
  assert.ok(isProtectedPath(".github/workflows/ci.yml", globs));
  assert.ok(isProtectedPath("docs/a/b.md", globs));
  assert.ok(isProtectedPath("yarn.lock", globs));
  assert.ok(isProtectedPath(".gitlab-ci.yml", globs));
  assert.ok(!isProtectedPath("src/docs.py", globs));
  // One rule for the configuration and the patch engine, read like .gitignore: a glob without "/" names
  // a file at any depth.
  assert.ok(isProtectedPath("src/yarn.lock", globs));
  assert.ok(!isProtectedPath("src/docs/a.md", globs));
});
