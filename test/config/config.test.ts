import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

test("Python detection follows the test files: pytest's style runs under pytest without a config file", () => {
  const PYTEST = "python3 -m pytest -rA -p no:cacheprovider";
  const UNITTEST = "python3 -m unittest discover -v";
  const cases: [string, Record<string, string>, string, RegExp][] = [
    [
      "import pytest, bare test functions",
      {
        "shop.py": "def total(xs):\n    return sum(xs)\n",
        "tests/test_shop.py":
          "import pytest\nfrom shop import total\n\ndef test_total():\n    assert total([1]) == 1\n",
      },
      PYTEST,
      /tests: pytest \(no pytest configuration, but tests\/test_shop\.py imports pytest\)/,
    ],
    [
      "a bare test function alone",
      { "setup.py": "", "tests/test_a.py": "from a import f\n\nasync def test_f():\n    assert f()\n" },
      PYTEST,
      /tests\/test_a\.py has a module-level test function/,
    ],
    [
      "a fixture",
      { "pkg/a.py": "", "tests/deep/er/a_test.py": "from pytest import fixture\n" },
      PYTEST,
      /a_test\.py imports pytest/,
    ],
    [
      "a plain test class",
      { "a.py": "", "tests/test_a.py": "class TestA:\n    def test_x(self):\n        pass\n" },
      PYTEST,
      /test class that is not a unittest\.TestCase/,
    ],
    [
      "a conftest.py below the root",
      { "a.py": "", "tests/conftest.py": "", "tests/test_a.py": "import unittest\n" },
      PYTEST,
      /tests\/conftest\.py configures pytest/,
    ],
    [
      "TestCase suites only",
      {
        "a.py": "",
        "tests/test_a.py":
          "import unittest\n\nclass TestA(unittest.TestCase):\n    def test_x(self):\n        pass\n",
      },
      UNITTEST,
      /tests: unittest discovery \(tests\/test_a\.py defines a unittest\.TestCase suite/,
    ],
    [
      "TestCase and pytest functions side by side: pytest runs both",
      {
        "a.py": "",
        "tests/test_a.py": "from unittest import TestCase\n\nclass A(TestCase):\n    pass\n",
        "tests/test_b.py": "def test_b():\n    pass\n",
      },
      PYTEST,
      /test_b\.py has a module-level test function/,
    ],
    [
      "neither: unittest, and the reasons say it may collect nothing",
      { "a.py": "", "tests/test_a.py": "from base import Base\n\nclass ATests(Base):\n    pass\n" },
      UNITTEST,
      /none defining a unittest\.TestCase or a pytest test that auto-fix recognises: it may collect nothing/,
    ],
  ];
  for (const [what, files, command, reason] of cases) {
    const root = repo(files);
    try {
      const d = detectProject(root, { pytestInstalled: () => true });
      assert.equal(d.testCommand, command, what);
      assert.ok(
        d.reasons.some((r) => reason.test(r)),
        `${what}: ${d.reasons.join(" | ")}`,
      );
      assert.ok(!d.reasons.some((r) => /not installed/.test(r)), what);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  // pytest missing from the sandbox's Python: still pytest (unittest would collect nothing), said so.
  const root = repo({ "a.py": "", "tests/test_a.py": "import pytest\n\ndef test_a():\n    pass\n" });
  try {
    const d = detectProject(root, { pytestInstalled: () => false });
    assert.equal(d.framework, "pytest");
    assert.ok(
      d.reasons.some((r) => /pytest is not installed in the sandbox's Python/.test(r)),
      d.reasons.join(" | "),
    );
    // The report's notes carry the reasons (`auto-fix fix` adds them to the run's notes).
    assert.ok(parseRepoConfig(null, d).notes.some((n) => /not installed/.test(n)));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("Python detection reads test files through tree-fs: a link is not followed, a huge line costs nothing", () => {
  const outside = repo({ "evil.py": "import pytest\n\ndef test_x():\n    pass\n" });
  const root = repo({
    "a.py": "",
    "tests/test_a.py": `import unittest\n${"x".repeat(200_000)}(\n${"\n".repeat(50_000)}class A(unittest.TestCase):\n    pass\n`,
    "tests/test_big.py": `import pytest\n${"#".repeat(300_000)}\n`,
  });
  try {
    symlinkSync(join(outside, "evil.py"), join(root, "tests", "test_link.py"));
    const started = performance.now();
    const d = detectProject(root, { pytestInstalled: () => true });
    assert.ok(performance.now() - started < 2000);
    // The link's pytest test and the file over 256 KiB are not read; the long line costs nothing.
    assert.equal(d.framework, "unittest", d.reasons.join(" | "));
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
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
