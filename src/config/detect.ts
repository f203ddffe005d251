import { isNonSourceDir, notVirtualEnv } from "../core/path-rules.ts";
import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import {
  type Language,
  type LanguageId,
  languageForPath,
  languageOf,
  projectLanguages,
} from "../languages/index.ts";
import { RUNNERS, type RunnerName, runnerFor } from "../runners/index.ts";
import type { RepositoryFiles } from "../runners/parts/conventions.ts";
import { runnerOfCommand as commandRunner, runnerNamedIn } from "../runners/shared/command-spelling.ts";
import type { ReproducerRuntime, TestRunnerKind } from "./schema.ts";

/** The runner a repository's tests run under; `npm` = a package script that starts none auto-fix knows. */
export type TestFramework = RunnerName | "npm" | "unknown";

/** A language of the registry (src/languages/) a repository is in, or "unknown" (none of them). */
export type ProjectLanguage = Exclude<LanguageId, "tsx"> | "unknown";

/** What auto-fix can tell about a repository from its files when the configuration does not say. */
export interface Detection {
  language: ProjectLanguage;
  testCommand: string | null;
  framework: TestFramework;
  setup: string[];
  /** The language folder's reproducer runtime; null for a repository in no language auto-fix reads. */
  runtime: Exclude<ReproducerRuntime, "command"> | null;
  /** JUnit XML report globs the detected test command writes. */
  testReports: string[];
  /** How each choice was made, for the report. */
  reasons: string[];
}

/** Largest project file read to detect settings. */
const MAX_DETECT_BYTES = 1024 * 1024;

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
    const id = languageForPath(e.name);
    const lang = id ? (languageOf(id).markers.project as ProjectLanguage) : null;
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

/** The repository's files as the runners' recognition reads them (bounded, through tree-fs). */
function repositoryFiles(
  tree: TreeFs,
  read: (rel: string) => string,
  has: (rel: string) => boolean,
  testScript: string | null,
): RepositoryFiles {
  const memo = new Map<string, unknown>();
  return {
    tree,
    read,
    has,
    testScript,
    once<T>(key: string, compute: () => T): T {
      if (!memo.has(key)) memo.set(key, compute());
      return memo.get(key) as T;
    },
  };
}

const NPM_DEFAULT_TEST = /no test specified/;

/** Whether a runner starts in the sandbox, as the runner itself finds out. */
const runnerInstalled = (name: RunnerName): boolean => runnerFor(name).installed?.() ?? true;

/**
 * The runner whose files show it among the runners of `language` (in the registry's order), written
 * into `out`; the reasons say why, or that none was found.
 */
function recogniseRunner(
  out: Detection,
  files: RepositoryFiles,
  installed: (name: RunnerName) => boolean,
): void {
  const lang = out.language;
  const candidates = RUNNERS.filter((r) => (r.languages as readonly string[]).includes(lang));
  for (const r of candidates) {
    const found = r.recognise(files, () => installed(r.name));
    if (!found) continue;
    out.framework = r.name;
    out.testCommand = found.testCommand;
    out.setup.push(...(found.setup ?? []));
    out.testReports = found.testReports ?? [];
    out.reasons.push(...found.reasons);
    return;
  }
  const script = files.testScript;
  if ((lang === "javascript" || lang === "typescript") && script && !NPM_DEFAULT_TEST.test(script)) {
    // A script that starts no runner auto-fix recognises: still the suite, run as a whole.
    out.framework = "npm";
    out.testCommand = "npm test";
    out.reasons.push(`tests: npm test (${script})`);
    return;
  }
  // Where every runner of the language is told by its files alone, the report says which were missing.
  if (candidates.length === 0) out.reasons.push("tests: none detected");
  else if (candidates.every((r) => r.markFiles))
    out.reasons.push(
      `tests: none detected (no ${candidates.flatMap((r) => r.markFiles ?? []).join(" or ")})`,
    );
}

/**
 * The languages a repository may be in, from the registry: languages that share a reproducer runtime
 * (JavaScript and TypeScript) are one candidate with their files counted together, reported as the
 * member whose own project file is there (`tsconfig.json`), else the one with more files.
 */
function languageCandidates(
  has: (rel: string) => boolean,
  counts: ReadonlyMap<ProjectLanguage, number>,
): { lang: ProjectLanguage; marker: boolean; files: number }[] {
  const groups = new Map<string, Language[]>();
  for (const l of projectLanguages()) {
    const g = groups.get(l.reproducer.runtime) ?? [];
    g.push(l);
    groups.set(l.reproducer.runtime, g);
  }
  const count = (l: Language): number => counts.get(l.id as ProjectLanguage) ?? 0;
  return [...groups.values()].map((members) => {
    const own = members
      .slice(1)
      .reverse()
      .find((m) => m.markers.files.some(has));
    const pick = own ?? members.reduce((a, b) => (count(b) > count(a) ? b : a));
    return {
      lang: pick.id as ProjectLanguage,
      marker: members.some((m) => m.markers.files.some(has)),
      files: members.reduce((n, m) => n + count(m), 0),
    };
  });
}

/** Detects language, test command, setup and reproducer runtime from a repository's files. */
export function detectProject(
  root: string,
  opts: {
    /** Whether a runner starts in the sandbox (default: each runner finds out). */
    runnerInstalled?: (name: RunnerName) => boolean;
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
  const candidates = languageCandidates(has, counts);
  const ranked = candidates
    .map((c) => ({ ...c, score: c.files + (c.marker ? 1000 : 0) }))
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
    runtime: language === "unknown" ? null : languageOf(language).reproducer.runtime,
    testReports: [],
    reasons,
  };
  const script = typeof pkg.scripts?.test === "string" ? pkg.scripts.test : null;
  recogniseRunner(out, repositoryFiles(tree, read, has, script), opts.runnerInstalled ?? runnerInstalled);
  // What the language's package manager installs before any runner starts.
  if (language === "python" && has("requirements.txt"))
    out.setup.push("python3 -m pip install --user -r requirements.txt");
  if (language === "javascript" || language === "typescript") {
    const deps = Object.keys({ ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) });
    if (deps.length > 0 && !has("node_modules")) {
      out.setup.push(has("package-lock.json") ? "npm ci --ignore-scripts" : "npm install --ignore-scripts");
    }
  }
  return out;
}

/**
 * The framework a given test command most likely runs (for a command from the config or the CLI): the
 * runner the runners' own spellings find in it, else `fallback`.
 */
export function frameworkOfCommand(cmd: string, fallback: TestFramework): TestFramework {
  return runnerNamedIn(cmd) ?? fallback;
}

/**
 * The runner a test command hands selected tests to, when it can be targeted (the runners' own
 * spellings decide: see `runners/shared/command-spelling.ts`). Null = it cannot be targeted.
 */
export function runnerOfCommand(cmd: string, framework: TestFramework): TestRunnerKind | null {
  return commandRunner(cmd, framework);
}
