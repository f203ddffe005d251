import { posix } from "node:path";
import type { RepoConfig } from "../config/index.ts";
import { openTree } from "../core/tree-fs.ts";

/**
 * Where and how a regression test goes in this repository: its framework, the new file's path (by the
 * repository's own conventions: `tests/test_*.py`, `test/*.test.js`, `*_test.go` beside the package),
 * the command that runs that file alone, and an existing test file to copy the style of.
 */
export interface TestPlan {
  /** The framework as people name it (`pytest`, `node --test`, `go test`, ...). */
  framework: string;
  /** The language the model writes the file in. */
  language: string;
  /** Fence tags the model's answer may use for the file. */
  tags: string[];
  /** The new file, relative to the repository root (never an existing file). */
  path: string;
  /** Runs the new file alone from the repository root. */
  command: string;
  /** Style notes for the prompt. */
  notes: string;
  /** An existing test file (path and first lines) to follow, if any. */
  example: { path: string; text: string } | null;
}

export type PlanResult = { ok: true; plan: TestPlan } | { ok: false; reason: string };

const quote = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

// The tree is the repository's: read through tree-fs, so that no link leads out of it.
const listDir = (root: string, rel: string): string[] => {
  try {
    return openTree(root)
      .list(rel, 10_000)
      .filter((e) => e.kind === "file")
      .map((e) => e.name);
  } catch {
    return [];
  }
};

const kindOf = (root: string, rel: string): string => {
  try {
    return openTree(root).kind(rel);
  } catch {
    return "special"; // a link on the way: treated as taken, never used
  }
};

const isDir = (root: string, rel: string): boolean => kindOf(root, rel) === "directory";

/** The first lines of a small text file (an example of the repository's test style). */
function exampleOf(root: string, rel: string): { path: string; text: string } | null {
  try {
    const buf = openTree(root).readIfExists(rel, { maxBytes: 200_000 });
    if (!buf) return null;
    return { path: rel, text: buf.toString("utf8").split("\n").slice(0, 60).join("\n") };
  } catch {
    return null;
  }
}

/** A path beside `wanted` that does not exist yet (`_2`, `_3`, ... before the extension). */
function freshPath(root: string, wanted: string): string | null {
  const dot = wanted.lastIndexOf(".");
  const stem = dot > wanted.lastIndexOf("/") ? wanted.slice(0, dot) : wanted;
  const ext = dot > wanted.lastIndexOf("/") ? wanted.slice(dot) : "";
  for (let i = 1; i <= 20; i++) {
    const candidate =
      i === 1
        ? wanted
        : stem.endsWith(".test")
          ? `${stem.slice(0, -5)}_${i}.test${ext}`
          : `${stem}_${i}${ext}`;
    if (kindOf(root, candidate) === "missing") return candidate;
  }
  return null;
}

/** A name part from the fixed file: `stats/summary.py` → `summary`. */
const baseName = (file: string): string =>
  (
    posix
      .basename(file)
      .replace(/\.[^.]+$/, "")
      .replace(/[^A-Za-z0-9_]/g, "_") || "fix"
  ).toLowerCase();

const PYTHON_DIRS = ["tests", "test"];
const JS_DIRS = ["test", "tests", "__tests__"];

function pythonPlan(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const dir = PYTHON_DIRS.find((d) => isDir(root, d)) ?? "tests";
  const existing = listDir(root, dir).filter((f) => /^test_.*\.py$|_test\.py$/.test(f));
  const unittest = config.test.framework === "unittest";
  const wanted = `${dir}/test_${baseName(changed[0] ?? "fix")}_regression.py`;
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  return {
    ok: true,
    plan: {
      framework: unittest ? "unittest" : "pytest",
      language: "Python",
      tags: ["python", "py", "python3"],
      path,
      command: unittest
        ? `python3 -m unittest ${quote(path.replace(/\.py$/, "").replaceAll("/", "."))}`
        : `python3 -m pytest -q -p no:cacheprovider ${quote(path)}`,
      notes: unittest
        ? "Write a `unittest.TestCase` subclass with `test_` methods; import the project's modules by their package path."
        : "Write plain pytest test functions (`def test_...():` with `assert`); import the project's modules by their package path (the test runs from the repository root).",
      example: existing[0] ? exampleOf(root, `${dir}/${existing[0]}`) : null,
    },
  };
}

function jsPlan(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const fw = config.test.framework;
  const dir = JS_DIRS.find((d) => isDir(root, d)) ?? "test";
  const existing = listDir(root, dir).filter((f) => /\.(test|spec)\.[cm]?[jt]s$/.test(f));
  const ext = /\.(test|spec)(\.[cm]?[jt]s)$/.exec(existing[0] ?? "")?.[2] ?? ".mjs";
  const wanted = `${dir}/${baseName(changed[0] ?? "fix")}-regression.test${ext}`;
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const runners: Record<string, { name: string; command: string; notes: string }> = {
    "node-test": {
      name: "node --test",
      command: `node --test ${quote(path)}`,
      notes: 'Use `import { test } from "node:test"` and `import assert from "node:assert/strict"`.',
    },
    jest: {
      name: "jest",
      command: `npx --no-install jest --runTestsByPath ${quote(path)}`,
      notes: "Use jest's `test` and `expect` as the repository's tests do.",
    },
    vitest: {
      name: "vitest",
      command: `npx --no-install vitest run ${quote(path)}`,
      notes: 'Use `import { test, expect } from "vitest"`.',
    },
    mocha: {
      name: "mocha",
      command: `npx --no-install mocha ${quote(path)}`,
      notes: 'Use mocha\'s `describe`/`it` and `import assert from "node:assert/strict"`.',
    },
  };
  const r = runners[fw] ?? runners["node-test"]!;
  return {
    ok: true,
    plan: {
      framework: r.name,
      language: "JavaScript",
      tags: ["javascript", "js", "mjs", "typescript", "ts"],
      path,
      command: r.command,
      notes: `${r.notes} Import the project's modules by relative path from the test file.`,
      example: existing[0] ? exampleOf(root, `${dir}/${existing[0]}`) : null,
    },
  };
}

function goPlan(root: string, changed: string[]): PlanResult {
  const file = changed.find((f) => f.endsWith(".go") && !f.endsWith("_test.go"));
  if (!file) return { ok: false, reason: "the patch changes no Go package to put a test beside" };
  const dir = posix.dirname(file);
  const wanted = `${dir === "." ? "" : `${dir}/`}${baseName(file)}_regression_test.go`;
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const existing = listDir(root, dir).filter((f) => f.endsWith("_test.go"));
  return {
    ok: true,
    plan: {
      framework: "go test",
      language: "Go",
      tags: ["go", "golang"],
      path,
      command: `go test -count=1 ${dir === "." ? "." : `./${quote(dir)}`}`,
      notes:
        "Write it in the package of the file beside it (same `package` clause), with `func TestXxx(t *testing.T)` functions that call `t.Fatalf` on failure.",
      example: existing[0] ? exampleOf(root, `${dir}/${existing[0]}`) : null,
    },
  };
}

/**
 * The test plan for a patch changing `changed` (paths from the diff) in the tree at `root`, or why no
 * regression test can be planned (a framework this stage does not write for).
 */
export function planRegressionTest(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const fw = config.test.framework;
  const lang = config.language;
  if (fw === "pytest" || fw === "unittest" || (fw === "unknown" && lang === "python"))
    return pythonPlan(root, config, changed);
  if (["node-test", "jest", "vitest", "mocha"].includes(fw) || lang === "javascript" || lang === "typescript")
    return jsPlan(root, config, changed);
  if (fw === "go" || lang === "go") return goPlan(root, changed);
  if (fw === "maven" || fw === "gradle" || lang === "java")
    return { ok: false, reason: "regression tests are not yet written for Java (JUnit) projects" };
  return { ok: false, reason: "the repository's test framework could not be told" };
}
