import { execFileSync } from "node:child_process";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { assertFixed, runMatrixCase, writeProject } from "./support/matrix.ts";

// The runner matrix for Python: pytest and unittest, each under three spellings of its command (the
// runner itself, through the interpreter, with the project's own options), run in the real sandbox
// before and after a real one-line fix. Each spelling must name every test on both trees, turn the
// failing test green and nothing else, and prove its canaries.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const SLUG_BUG = { file: "shop/slug.py", from: 'replace(" ", "-", 1)', to: 'replace(" ", "-")' };

const PYTEST_FILES = {
  "shop/__init__.py": "",
  "shop/slug.py": 'def slug(s):\n    return s.lower().replace(" ", "-", 1)\n',
  "shop/total.py": "def total(a, b):\n    return a + b\n",
  "tests/__init__.py": "",
  "tests/test_slug.py":
    "from shop.slug import slug\n\n\ndef test_one_space():\n    assert slug('A B') == 'a-b'\n\n\ndef test_many_words():\n    assert slug('A B C') == 'a-b-c'\n",
  "tests/test_total.py": "from shop.total import total\n\n\ndef test_adds():\n    assert total(1, 2) == 3\n",
};

const PYTEST_IDS = {
  fixed: "tests/test_slug.py::test_many_words",
  others: ["tests/test_slug.py::test_one_space", "tests/test_total.py::test_adds"],
};

for (const command of [
  "pytest",
  "python -m pytest -q",
  "python3 -m pytest tests -p no:cacheprovider",
  "py.test -v",
]) {
  test(`pytest as \`${command}\`: per-test results before and after, the failing test fixed, canaries proven`, async () => {
    const repo = writeProject({ ...PYTEST_FILES, ".github/auto-fix.yml": `test: ${command}\n` });
    const r = await runMatrixCase(sandbox, repo, SLUG_BUG);
    assertFixed(r, { runner: "pytest", ...PYTEST_IDS });
  });
}

// Debian's pytest 7 (for /usr/bin/python3): a file named on its command line is collected once more when a
// folder also named holds it, as the canaries' file is.
const pytest7 = (() => {
  try {
    return /^pytest 7\./.test(
      execFileSync("/usr/bin/python3", ["-m", "pytest", "--version"], {
        encoding: "utf8",
        stdio: "pipe",
      }).trim(),
    );
  } catch {
    return false;
  }
})();

for (const command of ["/usr/bin/python3 -m pytest tests", "/usr/bin/python3 -m pytest"]) {
  test(`pytest 7 as \`${command}\`: per-test results before and after, the failing test fixed, canaries proven`, {
    skip:
      !pytest7 && "Debian's pytest 7 is not installed for /usr/bin/python3 (apt-get install python3-pytest)",
  }, async () => {
    const repo = writeProject({
      ...PYTEST_FILES,
      ".github/auto-fix.yml": `test: ${command}\nvalidation: full\n`,
    });
    const r = await runMatrixCase(sandbox, repo, SLUG_BUG);
    assertFixed(r, { runner: "pytest", ...PYTEST_IDS });
  });
}

const UNITTEST_FILES = {
  ...PYTEST_FILES,
  "tests/test_slug.py":
    "import unittest\n\nfrom shop.slug import slug\n\n\nclass SlugTest(unittest.TestCase):\n    def test_one_space(self):\n        self.assertEqual(slug('A B'), 'a-b')\n\n    def test_many_words(self):\n        self.assertEqual(slug('A B C'), 'a-b-c')\n",
  "tests/test_total.py":
    "import unittest\n\nfrom shop.total import total\n\n\nclass TotalTest(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(total(1, 2), 3)\n",
};

const UNITTEST_IDS = {
  fixed: "tests.test_slug.SlugTest.test_many_words",
  others: ["tests.test_slug.SlugTest.test_one_space", "tests.test_total.TotalTest.test_adds"],
};

for (const command of [
  "python -m unittest",
  "python3 -m unittest discover -s tests -t . -v",
  "python -m unittest discover tests",
]) {
  test(`unittest as \`${command}\`: per-test results before and after, the failing test fixed, canaries proven`, async () => {
    const repo = writeProject({ ...UNITTEST_FILES, ".github/auto-fix.yml": `test: ${command}\n` });
    const r = await runMatrixCase(sandbox, repo, SLUG_BUG);
    // Discovery from `tests` with no top folder names the modules from there (`test_slug`).
    const ids = / discover tests$/.test(command)
      ? {
          fixed: UNITTEST_IDS.fixed.slice("tests.".length),
          others: UNITTEST_IDS.others.map((o) => o.slice("tests.".length)),
        }
      : UNITTEST_IDS;
    assertFixed(r, { runner: "unittest", ...ids });
  });
}

// A command with a quoted word is read as shell syntax: no runner is recognised in it.
test("unittest as `python -m unittest discover -p 'test_*.py'`: per-test results before and after, the failing test fixed, canaries proven", {
  todo: "a quoted word (`-p 'test_*.py'`) makes the command shell syntax: no runner is recognised, so no targeting, report options or canaries",
}, async () => {
  const repo = writeProject({
    ...UNITTEST_FILES,
    ".github/auto-fix.yml": "test: python -m unittest discover -p 'test_*.py'\n",
  });
  const r = await runMatrixCase(sandbox, repo, SLUG_BUG);
  assertFixed(r, { runner: "unittest", ...UNITTEST_IDS });
});
