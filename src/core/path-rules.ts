/**
 * The one copy of the rules about repository paths: which files a patch may not touch (CI and
 * repository configuration, vendored and VCS data, tests, test configuration as the caller's rules
 * say, the repository's own protected globs), how a glob matches a path, and which folders walks leave out.
 *
 * Paths are repo-relative and `/`-separated, and real: callers read and write through `tree-fs`, which
 * never follows a link, so the path checked here is the path touched.
 */
import {
  CACHE_DIRS,
  DEPENDENCY_DIRS,
  isVirtualEnvMarker,
  type ListedKind,
  VCS_DIRS,
} from "./folder-names.ts";
import { isTestPath } from "./test-files.ts";
import {
  ALWAYS_PROTECTED_GLOBS,
  BUILD_SCRIPT_GLOBS,
  BUILD_SCRIPT_WHAT,
  WORKSPACE_FAMILIES,
  WORKSPACE_PROTECTED_GLOBS,
} from "./protected-lists.ts";
import { isTestConfigFileBy, type TestConfigRules, testConfigChangeBy } from "./test-config.ts";

// ---------------------------------------------------------------------------------------------------
// Folders

export { CACHE_DIRS, DEPENDENCY_DIRS, isVirtualEnvMarker, type ListedKind, VCS_DIRS };

/** Never worth descending into when looking for repository files: VCS data, dependencies, caches. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([...VCS_DIRS, ...DEPENDENCY_DIRS, ...CACHE_DIRS]);

/**
 * Build output, vendored code, other package managers' trees and editor settings: not the project's own
 * source. The index and project detection leave them out (with SKIPPED_DIRS); the work copy keeps them,
 * because the project's tests may need them, and a patch may still change a file there when the model
 * names one (a project may keep real code under `build/`).
 */
export const GENERATED_DIRS: ReadonlySet<string> = new Set([
  "bower_components",
  "jspm_packages",
  "dist",
  "build",
  "target",
  "vendor",
  "third_party",
  "third-party",
  "thirdparty",
  ".next",
  ".nuxt",
  ".turbo",
  ".yarn",
  ".gradle",
  ".idea",
  "coverage",
]);

/** SKIPPED_DIRS and GENERATED_DIRS together, and `*.egg-info` folders: not the project's own source. */
export function isNonSourceDir(name: string): boolean {
  return SKIPPED_DIRS.has(name) || GENERATED_DIRS.has(name) || name.endsWith(".egg-info");
}

/** Whether a folder's listing marks it as a virtual environment (see isVirtualEnvMarker). */
export function isVirtualEnvListing(listing: Iterable<{ name: string; kind: ListedKind }>): boolean {
  for (const e of listing) if (isVirtualEnvMarker(e.name, e.kind)) return true;
  return false;
}

/** For tree-fs walks (`keep`): leaves out the contents of virtual environments. */
export const notVirtualEnv = (_rel: string, listing: Iterable<{ name: string; kind: ListedKind }>): boolean =>
  !isVirtualEnvListing(listing);

/**
 * Whether the folder `dir` (repo-relative) is a virtual environment, given a way to learn what sits at a
 * path without following links (tree-fs `kind`). An unreadable or missing folder is not one.
 */
export function isVirtualEnvDir(dir: string, kindAt: (path: string) => ListedKind | "missing"): boolean {
  const base = normalisePath(dir).replace(/\/+$/, "");
  const at = (name: string): ListedKind | "missing" => {
    try {
      return kindAt(base ? `${base}/${name}` : name);
    } catch {
      return "missing";
    }
  };
  const cfg = at("pyvenv.cfg");
  if (cfg !== "missing" && isVirtualEnvMarker("pyvenv.cfg", cfg)) return true;
  const conda = at("conda-meta");
  return conda !== "missing" && isVirtualEnvMarker("conda-meta", conda);
}

// ---------------------------------------------------------------------------------------------------
// Globs

const MAX_GLOB_LENGTH = 1000;
const MAX_BRACE_ALTERNATIVES = 64;

/** `a{b,c}d` → [abd, acd] (innermost first, at most 64 alternatives; the rest are dropped). */
function expandBraces(glob: string): string[] {
  const open = glob.lastIndexOf("{");
  if (open < 0) return [glob];
  const close = glob.indexOf("}", open);
  if (close < 0) return [glob];
  const head = glob.slice(0, open);
  const tail = glob.slice(close + 1);
  const out: string[] = [];
  for (const alt of glob.slice(open + 1, close).split(",")) {
    for (const e of expandBraces(`${head}${alt}${tail}`)) {
      if (out.length >= MAX_BRACE_ALTERNATIVES) return out;
      out.push(e);
    }
  }
  return out;
}

/** `*` and `?` within one path segment; linear backtracking (no regular expression). */
function matchSegment(pat: string, s: string): boolean {
  let p = 0;
  let i = 0;
  let star = -1;
  let mark = 0;
  while (i < s.length) {
    if (p < pat.length && (pat[p] === "?" || pat[p] === s[i])) {
      p++;
      i++;
    } else if (p < pat.length && pat[p] === "*") {
      while (pat[p] === "*") p++;
      star = p;
      mark = i;
    } else if (star >= 0) {
      p = star;
      i = ++mark;
    } else return false;
  }
  while (pat[p] === "*") p++;
  return p === pat.length;
}

/**
 * Whether the pattern's segments match a prefix of the path's segments (a directory covers its contents).
 * `**` stands for any number of segments. Dynamic programming over (pattern, path) positions.
 */
function matchSegments(pat: readonly string[], path: readonly string[]): boolean {
  // reach[j]: the first i pattern segments can consume exactly the first j path segments.
  let reach = new Array<boolean>(path.length + 1).fill(false);
  reach[0] = true;
  for (const seg of pat) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    if (seg === "**") {
      let any = false;
      for (let j = 0; j <= path.length; j++) {
        any ||= reach[j]!;
        next[j] = any;
      }
    } else {
      for (let j = 0; j < path.length; j++) if (reach[j] && matchSegment(seg, path[j]!)) next[j + 1] = true;
    }
    reach = next;
    if (!reach.includes(true)) return false;
  }
  // Consumed the whole path, or a prefix of it (a directory and everything below).
  return reach.some((r, j) => r && j >= 1);
}

/**
 * A glob as a predicate over repo-relative paths, with .gitignore's reading: `*`, `?`, `**`, `{a,b}`;
 * a pattern without a `/` (other than a trailing one) matches a name at any depth; one with a `/` is
 * anchored at the root; a pattern that matches a directory also matches everything under it.
 * Matching is linear-time in the pattern and the path (no regular expression is built from the glob).
 */
export function compileGlob(glob: string): (path: string) => boolean {
  let g = glob.trim();
  if (g === "" || g.length > MAX_GLOB_LENGTH) return () => false;
  g = g.replace(/^\.\//, "");
  const anchored = g.startsWith("/") || g.replace(/\/+$/, "").includes("/");
  g = g.replace(/^\/+/, "").replace(/\/+$/, "");
  const alternatives = expandBraces(g).map((alt) => {
    const segs = alt.split("/").filter((s) => s !== "");
    return anchored ? segs : ["**", ...segs];
  });
  return (path: string) => {
    const parts = normalisePath(path)
      .split("/")
      .filter((s) => s !== "");
    return alternatives.some((segs) => matchSegments(segs, parts));
  };
}

export function matchGlob(glob: string, path: string): boolean {
  return compileGlob(glob)(path);
}

const normalisePath = (path: string): string => path.replaceAll("\\", "/").replace(/^(\.\/)+/, "");

// ---------------------------------------------------------------------------------------------------
// Protected paths

export { ALWAYS_PROTECTED_GLOBS, BUILD_SCRIPT_GLOBS, WORKSPACE_PROTECTED_GLOBS };

/** A glob matched without regard to case (built-in rules: case-folding checkouts read any spelling). */
const foldedGlob = (glob: string): ((path: string) => boolean) => {
  const m = compileGlob(`/${glob.toLowerCase()}`);
  return (path: string) => m(normalisePath(path).toLowerCase());
};

const ciMatchers = ALWAYS_PROTECTED_GLOBS.map(foldedGlob);

/**
 * CI or repository configuration, or a workspace or agent file (anchored at the root unless the rule
 * says any depth), in any spelling of its case.
 */
export function isCiPath(path: string): boolean {
  return ciMatchers.some((m) => m(path));
}

/** What a path check may ask the file system: whether a repo-relative folder is a virtual environment. */
export interface PathFacts {
  isVirtualEnvDir?: (dir: string) => boolean;
}

/**
 * Inside a dependency, cache or VCS folder at any depth, or (when `facts` can tell) inside a virtual
 * environment.
 */
export function isVendoredPath(path: string, facts: PathFacts = {}): boolean {
  const parts = normalisePath(path).split("/");
  const dirs = parts.slice(0, -1);
  if (dirs.some((d) => SKIPPED_DIRS.has(d))) return true;
  const isVenv = facts.isVirtualEnvDir;
  if (!isVenv) return false;
  for (let i = 1; i <= dirs.length; i++) if (isVenv(dirs.slice(0, i).join("/"))) return true;
  return false;
}

/**
 * Files a test command names (`make test` → the Makefile, `./run-tests.sh`, `<runner> -c ci.ini`): they
 * decide how tests run, so they are protected like test configuration.
 */
export function testCommandFiles(command: string | null): string[] {
  if (!command) return [];
  const out = new Set<string>();
  const words = command.split(/[\s;&|()<>]+/).filter((w) => w !== "");
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.replace(/^["']|["']$/g, "");
    if (w === "make" || w === "gmake") {
      for (const m of ["Makefile", "makefile", "GNUmakefile"]) out.add(m);
      continue;
    }
    if (w === "just") out.add("justfile").add("Justfile");
    if (w === "task") out.add("Taskfile.yml");
    const value = w.includes("=") ? w.slice(w.indexOf("=") + 1) : w;
    if (value.startsWith("-") || value.startsWith("/") || value.includes("..") || value.includes("$"))
      continue;
    const rel = value.replace(/^(\.\/)+/, "");
    const pathLike =
      /^[\w.-]+(\/[\w.-]+)*$/.test(rel) &&
      (value.startsWith("./") || /\.(sh|bash|py|ini|cfg|toml|json|ya?ml|mk|[cm]?js|ts)$/.test(rel));
    if (pathLike && !/^python\d?(\.\d+)?$/.test(rel)) out.add(rel);
  }
  return [...out].sort();
}

export type PathVerdict = { ok: true } | { ok: false; message: string };

/** Why a path is protected: CI or repository configuration, a workspace file, or the first of `globs` it matches. */
type Protection =
  | { by: "ci" }
  | { by: "workspace"; what: string }
  | { by: "build"; glob: string }
  | { by: "glob"; glob: string };

const familyMatchers = WORKSPACE_FAMILIES.map((f) => ({ what: f.what, matchers: f.globs.map(foldedGlob) }));
const buildMatchers = new Map(BUILD_SCRIPT_GLOBS.map((g) => [g, foldedGlob(g)]));

/**
 * The one answer to "is this path protected?", for the configuration (`isProtectedPath`) and the patch
 * engine (`checkEditablePath`) alike. A build-script glob among `globs` matches in any case.
 */
function protection(path: string, globs: readonly string[]): Protection | null {
  const p = normalisePath(path);
  if (isCiPath(p)) {
    const family = familyMatchers.find((f) => f.matchers.some((m) => m(p)));
    return family ? { by: "workspace", what: family.what } : { by: "ci" };
  }
  for (const g of globs) {
    const build = buildMatchers.get(g);
    if (build ? build(p) : matchGlob(g, p)) return build ? { by: "build", glob: g } : { by: "glob", glob: g };
  }
  return null;
}

/** Whether a repository-relative path is CI configuration or matches one of the repository's globs. */
export function isProtectedPath(path: string, globs: readonly string[]): boolean {
  return protection(path, globs) !== null;
}

/**
 * Whether a patch may touch `path` at all: not CI or repository configuration, not vendored or VCS data,
 * not a test, not a test configuration file (by `testConfig`: every runner's and the general rules, as
 * `runners/shared/conventions-test-config.ts` joins them), not a protected glob. Sectioned files
 * (pyproject.toml, package.json, ...) pass here; `testConfigChangeBy` judges what an edit does to them.
 */
export function checkEditablePathBy(
  testConfig: TestConfigRules,
  path: string,
  protectedGlobs: readonly string[],
  facts: PathFacts = {},
): PathVerdict {
  const p = normalisePath(path);
  const prot = protection(p, protectedGlobs);
  if (prot?.by === "ci") {
    return {
      ok: false,
      message: `${p} is CI or repository configuration, which patches may not change. Fix the bug in the source code instead.`,
    };
  }
  if (prot?.by === "workspace") {
    return {
      ok: false,
      message: `${p} ${prot.what}; patches may not change it. Fix the bug in the source code instead.`,
    };
  }
  if (isVendoredPath(p, facts)) {
    return {
      ok: false,
      message: `${p} is vendored, generated or version-control data, which patches may not change. Change the project's own source instead.`,
    };
  }
  if (isTestPath(p)) {
    return {
      ok: false,
      message: `${p} is a test file; patches change source code only, never tests. Change the code under test instead.`,
    };
  }
  if (isTestConfigFileBy(testConfig, p))
    return { ok: false, message: testConfigChangeBy(testConfig, p, "", null)! };
  if (prot?.by === "build")
    return { ok: false, message: `${p} ${BUILD_SCRIPT_WHAT}. Fix the bug in the source code instead.` };
  if (prot?.by === "glob") {
    return {
      ok: false,
      message: `${p} is protected by the repository's configuration (${prot.glob}); patches may not change it. Change another file.`,
    };
  }
  return { ok: true };
}
