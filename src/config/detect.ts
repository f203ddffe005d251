import { spawnSync } from "node:child_process";
import { extname } from "node:path";
import { isNonSourceDir, notVirtualEnv } from "../core/path-rules.ts";
import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import { runnerOfCommand as commandRunner } from "../runners/shared/command-spelling.ts";
import type { ReproducerRuntime, TestRunnerKind } from "./schema.ts";

export type TestFramework =
  | "pytest"
  | "unittest"
  | "node-test"
  | "jest"
  | "vitest"
  | "mocha"
  | "npm"
  | "maven"
  | "gradle"
  | "go"
  | "unknown";

export type ProjectLanguage = "python" | "javascript" | "typescript" | "java" | "go" | "unknown";

/** What auto-fix can tell about a repository from its files when the configuration does not say. */
export interface Detection {
  language: ProjectLanguage;
  testCommand: string | null;
  framework: TestFramework;
  setup: string[];
  runtime: Exclude<ReproducerRuntime, "command">;
  /** JUnit XML report globs the detected test command writes. */
  testReports: string[];
  /** How each choice was made, for the report. */
  reasons: string[];
}

/** Largest project file read to detect settings. */
const MAX_DETECT_BYTES = 1024 * 1024;
const EXT_LANG: Record<string, ProjectLanguage> = {
  ".py": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".ts": "typescript",
  ".tsx": "typescript",
  ".java": "java",
  ".go": "go",
};

/** Entries a detection walk visits at most, and how deep it goes: a tree of any shape is read in bounded time. */
const DETECT_MAX_ENTRIES = 20_000;
const DETECT_MAX_DEPTH = 32;

/**
 * Folders detection does not count (core/path-rules): dependencies, VCS data, caches, build output,
 * vendored code and hidden folders; virtual environments are left out by their marker (`keep`).
 */
const worthEntering = (_rel: string, name: string): boolean => !isNonSourceDir(name) && !name.startsWith(".");

function countLanguages(tree: TreeFs): Map<ProjectLanguage, number> {
  const counts = new Map<ProjectLanguage, number>();
  const { entries } = tree.walk({
    maxDepth: DETECT_MAX_DEPTH,
    maxEntries: DETECT_MAX_ENTRIES,
    descend: worthEntering,
    keep: notVirtualEnv,
  });
  for (const e of entries) {
    if (e.kind !== "file") continue;
    const lang = EXT_LANG[extname(e.name)];
    if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  return counts;
}

/**
 * Reads project files through tree-fs: a link, a special file or an oversized file reads as absent, and
 * the reasons say so.
 */
function projectFiles(tree: TreeFs, reasons: string[]) {
  const read = (rel: string): string => {
    try {
      return tree.readIfExists(rel, { maxBytes: MAX_DETECT_BYTES })?.toString("utf8") ?? "";
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      reasons.push(`${rel} ignored: ${err.message}`);
      return "";
    }
  };
  const has = (rel: string): boolean => {
    try {
      const k = tree.kind(rel);
      return k === "file" || k === "directory";
    } catch {
      return false;
    }
  };
  return { read, has };
}

/** Python test files read to tell pytest's style from unittest's, and how much of each. */
const MAX_STYLE_FILES = 200;
const MAX_STYLE_BYTES = 256 * 1024;
const MAX_STYLE_LINE = 400;
const PY_TEST_FILE = /^test_.*\.py$|_test\.py$/;

/** What the repository's Python test files are written for, with the first file showing each. */
interface PythonTestStyle {
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

/**
 * Reads the repository's Python test files (through tree-fs: no link followed, at most 200 files of at
 * most 256 KiB each, larger ones left out, lines cut at 400 characters) for what they are written for: a file that imports pytest,
 * defines a fixture, a module-level `def test_…` or a plain `class Test…:` runs only under pytest; a
 * `conftest.py` anywhere asks for pytest too.
 */
function pythonTestStyle(tree: TreeFs): PythonTestStyle {
  const { entries } = tree.walk({
    maxDepth: 8,
    maxEntries: DETECT_MAX_ENTRIES,
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

let pytestInstalledCache: boolean | undefined;

/** Whether `python3 -m pytest` can start in the sandbox's Python (the host's /usr, bound read-only). */
export function pytestInstalled(): boolean {
  pytestInstalledCache ??=
    spawnSync("python3", ["-c", "import pytest"], { stdio: "ignore", timeout: 20_000 }).status === 0;
  return pytestInstalledCache;
}

const NPM_DEFAULT_TEST = /no test specified/;
const PYTEST_COMMAND = "python3 -m pytest -rA -p no:cacheprovider";

/** Detects language, test command, setup and reproducer runtime from a repository's files. */
export function detectProject(
  root: string,
  opts: {
    /** Whether pytest runs in the sandbox's Python (default: asks python3). */ pytestInstalled?: () => boolean;
  } = {},
): Detection {
  const reasons: string[] = [];
  const tree = openTree(root);
  const { read, has } = projectFiles(tree, reasons);
  const counts = countLanguages(tree);
  const pkgText = read("package.json");
  let pkg: { scripts?: Record<string, string>; dependencies?: object; devDependencies?: object } = {};
  try {
    pkg = pkgText ? (JSON.parse(pkgText) as typeof pkg) : {};
  } catch {
    reasons.push("package.json is not valid JSON; ignored");
  }
  const pyMarkers = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pytest.ini", "tox.ini"];
  const candidates: { lang: ProjectLanguage; marker: boolean }[] = [
    { lang: "python", marker: pyMarkers.some((m) => has(m)) },
    {
      lang:
        has("tsconfig.json") || (counts.get("typescript") ?? 0) > (counts.get("javascript") ?? 0)
          ? "typescript"
          : "javascript",
      marker: pkgText !== "",
    },
    {
      lang: "java",
      marker: has("pom.xml") || has("build.gradle") || has("build.gradle.kts"),
    },
    { lang: "go", marker: has("go.mod") },
  ];
  const score = (lang: ProjectLanguage): number =>
    lang === "typescript" || lang === "javascript"
      ? (counts.get("typescript") ?? 0) + (counts.get("javascript") ?? 0)
      : (counts.get(lang) ?? 0);
  const ranked = candidates
    .map((c) => ({ ...c, score: score(c.lang) + (c.marker ? 1000 : 0) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score);
  const language = ranked[0]?.lang ?? "unknown";
  reasons.push(
    `language: ${language} (${ranked.map((r) => `${r.lang}=${r.score}`).join(", ") || "no source files"})`,
  );

  const out: Detection = {
    language,
    testCommand: null,
    framework: "unknown",
    setup: [],
    runtime: "python",
    testReports: [],
    reasons,
  };
  switch (language) {
    case "python": {
      out.runtime = "python";
      const cfg = `${read("pyproject.toml")}\n${read("setup.cfg")}\n${read("tox.ini")}\n${read("requirements.txt")}\n${read("requirements-dev.txt")}`;
      const configured = has("pytest.ini") || has("conftest.py") || /pytest/.test(cfg);
      const style = configured ? null : pythonTestStyle(tree);
      if (configured) {
        out.framework = "pytest";
        out.testCommand = PYTEST_COMMAND;
        reasons.push("tests: pytest (configured or required by the project)");
      } else if (style?.pytest) {
        // unittest would collect none of these tests: they run under pytest, installed or not.
        out.framework = "pytest";
        out.testCommand = PYTEST_COMMAND;
        reasons.push(`tests: pytest (no pytest configuration, but ${style.pytest})`);
        if (!(opts.pytestInstalled ?? pytestInstalled)()) {
          reasons.push(
            "pytest is not installed in the sandbox's Python (python3 -m pytest will fail): install it in a setup step (`setup:` in .github/auto-fix.yml) or list it in requirements.txt",
          );
        }
      } else if (style && style.files > 0) {
        out.framework = "unittest";
        out.testCommand = "python3 -m unittest discover -v";
        reasons.push(
          style.testCase
            ? `tests: unittest discovery (${style.testCase} defines a unittest.TestCase suite; no pytest configuration)`
            : `tests: unittest discovery (${style.files} test file${style.files === 1 ? "" : "s"} found, none defining a unittest.TestCase or a pytest test that auto-fix recognises: it may collect nothing; set \`test:\` in .github/auto-fix.yml)`,
        );
      }
      if (has("requirements.txt")) out.setup.push("python3 -m pip install --user -r requirements.txt");
      break;
    }
    case "javascript":
    case "typescript": {
      out.runtime = "node";
      const script = pkg.scripts?.test;
      if (script && !NPM_DEFAULT_TEST.test(script)) {
        out.testCommand = "npm test";
        out.framework = /vitest/.test(script)
          ? "vitest"
          : /jest/.test(script)
            ? "jest"
            : /mocha/.test(script)
              ? "mocha"
              : /node\s+(--[\w-]+\s+)*--test/.test(script)
                ? "node-test"
                : "npm";
        reasons.push(`tests: npm test (${script})`);
      }
      const deps = Object.keys({ ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) });
      if (deps.length > 0 && !has("node_modules")) {
        out.setup.push(has("package-lock.json") ? "npm ci --ignore-scripts" : "npm install --ignore-scripts");
      }
      break;
    }
    case "java": {
      out.runtime = "java";
      if (has("pom.xml")) {
        out.framework = "maven";
        out.testCommand = "mvn -B -o test";
        out.setup.push("mvn -B -q dependency:go-offline", "mvn -B -q dependency:copy-dependencies");
        out.testReports = ["target/surefire-reports/TEST-*.xml", "**/target/surefire-reports/TEST-*.xml"];
      } else if (has("build.gradle") || has("build.gradle.kts")) {
        out.framework = "gradle";
        const gradle = has("gradlew") ? "./gradlew" : "gradle";
        out.testCommand = `${gradle} --offline test`;
        out.setup.push(`${gradle} --no-daemon dependencies`);
        out.testReports = ["build/test-results/test/*.xml", "**/build/test-results/test/*.xml"];
      }
      reasons.push(
        out.testCommand ? `tests: ${out.framework}` : "tests: none detected (no pom.xml or build.gradle)",
      );
      break;
    }
    case "go":
      out.runtime = "go";
      out.framework = "go";
      out.testCommand = "go test -json ./...";
      if (has("go.sum")) out.setup.push("go mod download");
      reasons.push("tests: go test");
      break;
    default:
      reasons.push("tests: none detected");
  }
  return out;
}

/** The framework a given test command most likely runs (for a command from the config or the CLI). */
export function frameworkOfCommand(cmd: string, fallback: TestFramework): TestFramework {
  if (/\bpytest\b/.test(cmd)) return "pytest";
  if (/\bunittest\b/.test(cmd)) return "unittest";
  if (/\bvitest\b/.test(cmd)) return "vitest";
  if (/\bjest\b/.test(cmd)) return "jest";
  if (/\bmocha\b/.test(cmd)) return "mocha";
  if (/\bnode\b.*--test\b/.test(cmd)) return "node-test";
  if (/\bmvn\b/.test(cmd)) return "maven";
  if (/\bgradlew?\b/.test(cmd)) return "gradle";
  if (/\bgo\s+test\b/.test(cmd)) return "go";
  return fallback;
}

/**
 * The runner a test command hands selected tests to, when it can be targeted (the runners' own
 * spellings decide: see `runners/shared/command-spelling.ts`). Null = it cannot be targeted.
 */
export function runnerOfCommand(cmd: string, framework: TestFramework): TestRunnerKind | null {
  return commandRunner(cmd, framework);
}
