import { isNonSourceDir, notVirtualEnv } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { RunnerName } from "../names.ts";
import type { PlanResult, RepositoryFiles } from "../parts/conventions.ts";
import {
  baseName,
  exampleOf,
  freshPath,
  isDir,
  join,
  nearestTests,
  pickSample,
} from "./conventions-files.ts";

/** Python test files read to tell one runner's style from another's, and how much of each. */
const MAX_STYLE_FILES = 200;
const MAX_STYLE_BYTES = 256 * 1024;
const MAX_STYLE_LINE = 400;
const MAX_STYLE_ENTRIES = 20_000;
export const PY_TEST_FILE = /^test_.*\.py$|_test\.py$/;

/** What the repository's Python test files are written for, with the first file showing each. */
export interface PythonTestStyle {
  /** Test files found (`test_*.py`, `*_test.py`). */
  files: number;
  /** Why they need pytest (`tests/test_a.py imports pytest`), or null. */
  pytest: string | null;
  /** A file with a `unittest.TestCase` suite, or null. */
  testCase: string | null;
}

/** What one line of a test module shows: pytest's style, a TestCase suite, or nothing. */
function lineStyle(raw: string): { pytest?: string; testCase?: true } {
  const line = raw.length > MAX_STYLE_LINE ? raw.slice(0, MAX_STYLE_LINE) : raw;
  if (/^(import[ \t]+pytest\b|from[ \t]+pytest\b|import[ \t]+[\w., \t]*\bpytest\b)/.test(line))
    return { pytest: "imports pytest" };
  if (/^[ \t]*@pytest\.fixture\b/.test(line)) return { pytest: "defines a pytest fixture" };
  if (/^(async[ \t]+)?def[ \t]+test\w*[ \t]*\(/.test(line))
    return { pytest: "has a module-level test function" };
  if (/^class[ \t]+Test\w*[ \t]*(\([ \t]*(object)?[ \t]*\))?[ \t]*:/.test(line))
    return { pytest: "has a test class that is not a unittest.TestCase" };
  if (/^class[ \t].*\b(TestCase|IsolatedAsyncioTestCase)\b/.test(line)) return { testCase: true };
  return {};
}

/** Folders a look at the tree does not enter: dependencies, VCS data, caches, build output, hidden ones. */
const worthEntering = (_rel: string, name: string): boolean => !isNonSourceDir(name) && !name.startsWith(".");

/**
 * Reads the repository's Python test files (through tree-fs: no link followed, at most 200 files of at
 * most 256 KiB each, larger ones left out, lines cut at 400 characters) for what they are written for: a
 * file that imports pytest, defines a fixture, a module-level `def test_…` or a plain `class Test…:` runs
 * only under pytest; a `conftest.py` anywhere asks for pytest too.
 */
function readPythonTestStyle(tree: TreeFs): PythonTestStyle {
  const { entries } = tree.walk({
    maxDepth: 8,
    maxEntries: MAX_STYLE_ENTRIES,
    descend: worthEntering,
    keep: notVirtualEnv,
  });
  const style: PythonTestStyle = { files: 0, pytest: null, testCase: null };
  let read = 0;
  for (const e of entries) {
    if (e.kind !== "file") continue;
    if (e.name === "conftest.py") {
      style.pytest ??= `${e.rel} configures pytest`;
      continue;
    }
    if (!PY_TEST_FILE.test(e.name)) continue;
    style.files++;
    if (read >= MAX_STYLE_FILES || (style.pytest !== null && style.testCase !== null)) continue;
    read++;
    let text: string;
    try {
      text = tree.read(e.rel, { maxBytes: MAX_STYLE_BYTES }).toString("utf8");
    } catch (err) {
      // A file over 256 KiB, a link or a special file is not read.
      if (!(err instanceof TreeFsError)) throw err;
      continue;
    }
    for (const line of text.split("\n")) {
      const s = lineStyle(line);
      if (s.pytest) style.pytest ??= `${e.rel} ${s.pytest}`;
      if (s.testCase) style.testCase ??= e.rel;
      if (style.pytest !== null && style.testCase !== null) break;
    }
  }
  return style;
}

/** The repository's Python test style, read once however many runners ask. */
export const pythonTestStyle = (files: RepositoryFiles): PythonTestStyle =>
  files.once("python-test-style", () => readPythonTestStyle(files.tree));

/** The base class a Python sample's tests derive from (`AsyncHTTPTestCase`, `unittest.TestCase`), if any. */
function testBase(text: string): string | null {
  const m = /^class \w+\(([\w.]+)[^)]*\):/m.exec(
    text
      .split("\n")
      .filter((l) => !/^\s*#/.test(l))
      .join("\n"),
  );
  return m && /Test|Case/.test(m[1]!) ? m[1]! : null;
}

/** What differs between the Python runners' regression tests: the runner, its command, its style. */
export interface PythonRegressionStyle {
  runner: RunnerName;
  framework: string;
  /** Runs the file at `path` alone. */
  command(path: string): string;
  /** Style notes when the sample derives from no test class (its text given, if any). */
  notes(sample: string | null): string;
}

/** The regression test plan in a Python repository: beside the nearest tests, in their naming. */
export function pythonPlan(
  root: string,
  changed: readonly string[],
  style: PythonRegressionStyle,
): PlanResult {
  const file = changed.find((f) => f.endsWith(".py")) ?? changed[0] ?? "fix.py";
  const base = baseName(file);
  const near = nearestTests(root, file, ["tests", "test"], (f) => PY_TEST_FILE.test(f));
  const dir = near?.dir ?? ["tests", "test"].find((d) => isDir(root, d)) ?? "tests";
  const files = near?.files ?? [];
  // The folder's naming: `x_test.py` when most of its files are named so, else `test_x.py`.
  const suffix = files.filter((f) => f.endsWith("_test.py")).length * 2 > files.length;
  const wanted = join(dir, suffix ? `${base}_regression_test.py` : `test_${base}_regression.py`);
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const sample = pickSample(files, base);
  const example = sample ? exampleOf(root, join(dir, sample)) : null;
  const cls = example ? testBase(example.text) : null;
  const notes = cls
    ? `Write the tests as \`test_\` methods of a class deriving from \`${cls}\`, as the sample does, and import what you use the way the sample imports it.`
    : style.notes(example?.text ?? null);
  return {
    ok: true,
    plan: {
      runner: style.runner,
      framework: style.framework,
      language: "Python",
      tags: ["python", "py", "python3"],
      path,
      command: style.command(path),
      notes,
      example,
    },
  };
}
