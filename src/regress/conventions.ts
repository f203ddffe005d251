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

/**
 * A sample of a test file for the prompt: its head (imports, fixtures) and, when the first test starts
 * further down, that test's first lines too; bounded either way.
 */
function exampleOf(root: string, rel: string): { path: string; text: string } | null {
  try {
    const buf = openTree(root).readIfExists(rel, { maxBytes: 200_000 });
    if (!buf) return null;
    const lines = buf.toString("utf8").split("\n");
    const first = lines.findIndex((l) =>
      /^\s*(class \w*Test|def test_|(?:async )?def test|func Test|(?:describe|it|test)\()/.test(l),
    );
    if (first < 0 || first < 50)
      return { path: rel, text: lines.slice(0, Math.max(60, first + 30)).join("\n") };
    return { path: rel, text: [...lines.slice(0, 40), "...", ...lines.slice(first, first + 30)].join("\n") };
  } catch {
    return null;
  }
}

/** Folders from the changed file's own up to the root: `a/b/c.py` → `a/b`, `a`, `.`. */
function upward(file: string): string[] {
  const out: string[] = [];
  let d = posix.dirname(file);
  for (;;) {
    out.push(d);
    if (d === "." || d === "/" || d === "") break;
    d = posix.dirname(d);
  }
  return out;
}

const join = (dir: string, name: string): string => (dir === "." ? name : `${dir}/${name}`);

/**
 * The test folder nearest the changed file that holds test files (`is` tells one), searched from the
 * file's folder up: `<dir>/<name>` for each of `names`, and `<dir>` itself; null when none.
 */
function nearestTests(
  root: string,
  changed: string,
  names: string[],
  is: (f: string) => boolean,
): { dir: string; files: string[] } | null {
  for (const d of upward(changed)) {
    for (const dir of [...names.map((n) => join(d, n)), d]) {
      if (!isDir(root, dir)) continue;
      const files = listDir(root, dir).filter(is).sort();
      if (files.length > 0) return { dir, files };
    }
  }
  return null;
}

/** The sample to follow: the test file named after the changed one, else the first. */
const pickSample = (files: string[], base: string): string | undefined =>
  files.find((f) => f.replace(/^test_|[._-](test|spec)(?=\.)|\.[^.]+$/g, "").toLowerCase() === base) ??
  files[0];

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

const PY_TEST = (f: string): boolean => /^test_.*\.py$|_test\.py$/.test(f);
const JS_TEST = (f: string): boolean => /\.(test|spec)\.[cm]?[jt]s$/.test(f);

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

function pythonPlan(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const file = changed.find((f) => f.endsWith(".py")) ?? changed[0] ?? "fix.py";
  const base = baseName(file);
  const near = nearestTests(root, file, ["tests", "test"], PY_TEST);
  const dir = near?.dir ?? ["tests", "test"].find((d) => isDir(root, d)) ?? "tests";
  const files = near?.files ?? [];
  // The folder's naming: `x_test.py` when most of its files are named so, else `test_x.py`.
  const suffix = files.filter((f) => f.endsWith("_test.py")).length * 2 > files.length;
  const wanted = join(dir, suffix ? `${base}_regression_test.py` : `test_${base}_regression.py`);
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const sample = pickSample(files, base);
  const example = sample ? exampleOf(root, join(dir, sample)) : null;
  const unittest = config.test.framework === "unittest";
  const cls = example ? testBase(example.text) : null;
  const notes = cls
    ? `Write the tests as \`test_\` methods of a class deriving from \`${cls}\`, as the sample does, and import what you use the way the sample imports it.`
    : unittest
      ? "Write a `unittest.TestCase` subclass with `test_` methods; import the project's modules by their package path."
      : example && /^def test_/m.test(example.text)
        ? "Write test functions (`def test_...():` with `assert`) as the sample does, and import what you use the way the sample imports it."
        : "Write pytest test functions (`def test_...():` with `assert`); import the project's modules by their package path (the test runs from the repository root).";
  return {
    ok: true,
    plan: {
      framework: unittest ? "unittest" : "pytest",
      language: "Python",
      tags: ["python", "py", "python3"],
      path,
      command: unittest
        ? `python3 -m unittest -v ${quote(path.replace(/\.py$/, "").replaceAll("/", "."))}`
        : `python3 -m pytest -q -rA -p no:cacheprovider ${quote(path)}`,
      notes,
      example,
    },
  };
}

/** Whether a JavaScript file at `rel` loads as CommonJS: by its extension, else the nearest package.json. */
function isCommonJs(root: string, rel: string): boolean {
  if (/\.(cjs|cts)$/.test(rel)) return true;
  if (/\.(mjs|mts|ts|tsx)$/.test(rel)) return false;
  for (const d of upward(rel)) {
    try {
      const buf = openTree(root).readIfExists(join(d, "package.json"), { maxBytes: 1_000_000 });
      if (!buf) continue;
      const pkg = JSON.parse(buf.toString("utf8")) as { type?: unknown };
      return pkg.type !== "module";
    } catch {
      return true; // an unreadable package.json: node reads the file as CommonJS
    }
  }
  return true;
}

function jsPlan(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const fw = config.test.framework;
  const file = changed.find((f) => /\.[cm]?[jt]sx?$/.test(f)) ?? changed[0] ?? "index.js";
  const base = baseName(file);
  const near = nearestTests(root, file, ["test", "tests", "__tests__"], JS_TEST);
  const dir = near?.dir ?? ["test", "tests", "__tests__"].find((d) => isDir(root, d)) ?? "test";
  const files = near?.files ?? [];
  const sample = pickSample(files, base);
  const m = /\.(test|spec)(\.[cm]?[jt]s)$/.exec(sample ?? "");
  const wanted = join(dir, `${base}-regression.${m?.[1] ?? "test"}${m?.[2] ?? ".js"}`);
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const cjs = isCommonJs(root, path);
  const assertLine = cjs ? 'const assert = require("node:assert")' : 'import assert from "node:assert"';
  const load = cjs
    ? "This package loads the file as CommonJS: use `require(...)`, never `import` statements."
    : "This package loads the file as an ES module: use `import`, never `require(...)`.";
  const runners: Record<string, { name: string; command: string; notes: string }> = {
    "node-test": {
      name: "node --test",
      command: `node --test --test-reporter=tap ${quote(path)}`,
      notes: `Use \`${cjs ? 'const { test } = require("node:test")' : 'import { test } from "node:test"'}\` and \`${assertLine}\`.`,
    },
    jest: {
      name: "jest",
      command: `npx --no-install jest --runTestsByPath ${quote(path)}`,
      notes: "Use jest's `test` and `expect` as the repository's tests do.",
    },
    vitest: {
      name: "vitest",
      command: `npx --no-install vitest run ${quote(path)}`,
      notes: `Use \`${cjs ? 'const { test, expect } = require("vitest")' : 'import { test, expect } from "vitest"'}\`.`,
    },
    mocha: {
      name: "mocha",
      command: `npx --no-install mocha ${quote(path)}`,
      notes: `Use mocha's \`describe\`/\`it\` and \`${assertLine}\`.`,
    },
  };
  const r = runners[fw] ?? runners["node-test"]!;
  return {
    ok: true,
    plan: {
      framework: r.name,
      language: "JavaScript",
      tags: ["javascript", "js", "mjs", "cjs", "typescript", "ts"],
      path,
      command: r.command,
      notes: `${load} ${r.notes} Load the project's modules by relative path from the test file, as the sample does.`,
      example: sample ? exampleOf(root, join(dir, sample)) : null,
    },
  };
}

function goPlan(root: string, changed: string[]): PlanResult {
  const file = changed.find((f) => f.endsWith(".go") && !f.endsWith("_test.go"));
  if (!file) return { ok: false, reason: "the patch changes no Go package to put a test beside" };
  const dir = posix.dirname(file);
  const wanted = join(dir, `${baseName(file)}_regression_test.go`);
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const existing = listDir(root, dir)
    .filter((f) => f.endsWith("_test.go"))
    .sort();
  const sample = pickSample(existing, baseName(file));
  return {
    ok: true,
    plan: {
      framework: "go test",
      language: "Go",
      tags: ["go", "golang"],
      path,
      command: `go test -count=1 -v ${dir === "." ? "." : `./${quote(dir)}`}`,
      notes:
        "Write it in the package of the file beside it (same `package` clause as the sample), with `func TestXxx(t *testing.T)` functions that call `t.Fatalf` on failure.",
      example: sample ? exampleOf(root, join(dir, sample)) : null,
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
