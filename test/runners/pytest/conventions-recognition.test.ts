import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { detectProject, parseRepoConfig } from "../../../src/config/index.ts";
import { tempDir } from "../../support/temp.ts";

// pytest's recognition from a repository's files, against unittest's: configuration, then the style of
// the test files themselves.

function repo(files: Record<string, string>): string {
  const root = tempDir("af-pytest-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

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
      const d = detectProject(root, { runnerInstalled: () => true });
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
    const d = detectProject(root, { runnerInstalled: () => false });
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
    const d = detectProject(root, { runnerInstalled: () => true });
    assert.ok(performance.now() - started < 2000);
    // The link's pytest test and the file over 256 KiB are not read; the long line costs nothing.
    assert.equal(d.framework, "unittest", d.reasons.join(" | "));
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
