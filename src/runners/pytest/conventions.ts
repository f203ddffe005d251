import { spawnSync } from "node:child_process";
import type { RunnerConventions } from "../parts/conventions.ts";
import { collectVerdicts, quote } from "../shared/conventions-files.ts";
import { pythonPlan, pythonTestStyle } from "../shared/conventions-python.ts";

/** The suite's command: every test's outcome on its own line (`-rA`), no cache written into the tree. */
const COMMAND = "python3 -m pytest -rA -p no:cacheprovider";

/** Settings files whose text shows the project configures or requires pytest. */
const SETTINGS = ["pyproject.toml", "setup.cfg", "tox.ini", "requirements.txt", "requirements-dev.txt"];

let installedCache: boolean | undefined;

/** `-rA`'s per-test lines: `PASSED tests/test_a.py::test_x`. */
const RESULT_LINE = /^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\S+)/gm;

/** The last line of `text` matching `re`, trimmed and bounded. */
const lastLine = (text: string, re: RegExp): string =>
  text
    .split("\n")
    .filter((l) => re.test(l))
    .pop()
    ?.trim()
    .slice(0, 300) ?? "";

/** pytest's own settings: its files, the conftest.py files it loads, its setup.cfg and pyproject sections. */
const TEST_CONFIG = {
  wholeFiles: [/^\.?pytest\.(ini|toml)$/, /^conftest\.py$/],
  iniSections: [/^(tool:pytest|pytest)$/],
  tomlTables: [/^(tool\.pytest|project\.entry-points\.pytest11|project\.entry_points\.pytest11)(\.|\[|$)/],
  settingWords: [/pytest|testpaths|addopts|python_(files|classes|functions)/i],
} satisfies RunnerConventions["testConfig"];

export const conventions: RunnerConventions = {
  testConfig: TEST_CONFIG,
  label: "pytest",
  languages: ["python"],
  recognise(files, installed) {
    const settings = SETTINGS.map((f) => files.read(f)).join("\n");
    if (files.has("pytest.ini") || files.has("conftest.py") || /pytest/.test(settings))
      return { testCommand: COMMAND, reasons: ["tests: pytest (configured or required by the project)"] };
    const style = pythonTestStyle(files);
    if (!style.pytest) return null;
    // unittest would collect none of these tests: they run under pytest, installed or not.
    const reasons = [`tests: pytest (no pytest configuration, but ${style.pytest})`];
    if (!installed())
      reasons.push(
        "pytest is not installed in the sandbox's Python (python3 -m pytest will fail): install it in a setup step (`setup:` in .github/auto-fix.yml) or list it in requirements.txt",
      );
    return { testCommand: COMMAND, reasons };
  },
  /** Whether `python3 -m pytest` can start in the sandbox's Python (the host's /usr, bound read-only). */
  installed() {
    installedCache ??=
      spawnSync("python3", ["-c", "import pytest"], { stdio: "ignore", timeout: 20_000 }).status === 0;
    return installedCache;
  },
  regressionDefault: true,
  regression: {
    plan: (root, changed) =>
      pythonPlan(root, changed, {
        runner: "pytest",
        framework: "pytest",
        command: (path) => `python3 -m pytest -q -rA -p no:cacheprovider ${quote(path)}`,
        notes: (sample) =>
          sample !== null && /^def test_/m.test(sample)
            ? "Write test functions (`def test_...():` with `assert`) as the sample does, and import what you use the way the sample imports it."
            : "Write pytest test functions (`def test_...():` with `assert`); import the project's modules by their package path (the test runs from the repository root).",
      }),
    // Only the new file's tests (a configuration may add other paths to the run). A collection error
    // (`ERROR path - ...`) names the file, not a test: it is left out here.
    verdicts: (output, plan) =>
      collectVerdicts(output, RESULT_LINE, (m) =>
        m[2]!.startsWith(`${plan.path}::`)
          ? [m[2]!, m[1] === "PASSED" || m[1] === "XPASS" ? "pass" : m[1] === "SKIPPED" ? "skip" : "fail"]
          : null,
      ),
    testsRan: (output) => !/no tests ran/.test(output),
    notLoaded(output) {
      if (!/^ERROR \S+\.py\b/m.test(output)) return null;
      const cause = lastLine(output, /^E\s+\w*(Error|Exception)\b/).replace(/^E\s+/, "");
      return `pytest could not load the file${cause ? ` (${cause})` : ""}, so no test in it ran`;
    },
  },
  watched: {
    libraries: ["pytest", "_pytest"],
    objects: ["pytest", "_pytest"],
    extensions: [],
    names: [/\b_?pytest/i, /conftest/i],
    variables: [/PYTEST_CURRENT_TEST|PYTEST_XDIST/],
  },
};
