import { extname } from "node:path";
import { isNonSourceDir, notVirtualEnv } from "../core/path-rules.ts";
import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import type { ReproducerRuntime } from "./schema.ts";

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

function hasPythonTests(tree: TreeFs): boolean {
  const { entries } = tree.walk({
    maxDepth: 3,
    maxEntries: DETECT_MAX_ENTRIES,
    descend: worthEntering,
    keep: notVirtualEnv,
  });
  return entries.some((e) => e.kind === "file" && /^test_.*\.py$|_test\.py$/.test(e.name));
}

const NPM_DEFAULT_TEST = /no test specified/;

/** Detects language, test command, setup and reproducer runtime from a repository's files. */
export function detectProject(root: string): Detection {
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
      const pytest = has("pytest.ini") || has("conftest.py") || /pytest/.test(cfg);
      if (pytest) {
        out.framework = "pytest";
        out.testCommand = "python3 -m pytest -rA -p no:cacheprovider";
        reasons.push("tests: pytest (configured or required by the project)");
      } else if (hasPythonTests(tree)) {
        out.framework = "unittest";
        out.testCommand = "python3 -m unittest discover -v";
        reasons.push("tests: unittest discovery (test files found, no pytest configuration)");
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
