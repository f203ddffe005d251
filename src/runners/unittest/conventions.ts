import type { RunnerConventions } from "../parts/conventions.ts";
import { collectVerdicts, quote } from "../shared/conventions-files.ts";
import { pythonPlan, pythonTestStyle } from "../shared/conventions-python.ts";

/** `-v`'s per-test lines: `test_x (tests.test_a.A.test_x) ... ok` (the docstring may take a line). */
const RESULT_LINE =
  /^(\w+) \(([\w.]+)\)[^\n]*?(?:\n[^\n]*?)? \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)/gm;

export const conventions: RunnerConventions = {
  label: "unittest",
  languages: ["python"],
  recognise(files) {
    const style = pythonTestStyle(files);
    // Test files written for another runner's style are not collected by unittest.
    if (style.files === 0 || style.pytest !== null) return null;
    return {
      testCommand: "python3 -m unittest discover -v",
      reasons: [
        style.testCase
          ? `tests: unittest discovery (${style.testCase} defines a unittest.TestCase suite; no pytest configuration)`
          : `tests: unittest discovery (${style.files} test file${style.files === 1 ? "" : "s"} found, none defining a unittest.TestCase or a pytest test that auto-fix recognises: it may collect nothing; set \`test:\` in .github/auto-fix.yml)`,
      ],
    };
  },
  regression: {
    plan: (root, changed) =>
      pythonPlan(root, changed, {
        runner: "unittest",
        framework: "unittest",
        command: (path) => `python3 -m unittest -v ${quote(path.replace(/\.py$/, "").replaceAll("/", "."))}`,
        notes: () =>
          "Write a `unittest.TestCase` subclass with `test_` methods; import the project's modules by their package path.",
      }),
    verdicts: (output) =>
      collectVerdicts(output, RESULT_LINE, (m) => [
        m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`,
        m[3] === "ok" || m[3] === "unexpected success" ? "pass" : m[3] === "skipped" ? "skip" : "fail",
      ]),
    testsRan: (output) => !/^Ran 0 tests/m.test(output),
  },
  watched: {
    libraries: ["unittest"],
    objects: ["unittest"],
    extensions: [],
    names: [/unittest/i, /doctest\b/i],
    variables: [],
  },
};
