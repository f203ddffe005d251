import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIRS, DEPENDENCY_DIRS, VCS_DIRS } from "../core/folder-names.ts";
import { openTree, TreeFsError } from "../core/tree-fs.ts";

/**
 * The setup cache's key: every file the setup step runs or reads, by content. Two checkouts (of any two
 * refs) share a key only when their setup commands, the scripts those commands name, the files those
 * scripts name, and every manifest and lock file (at the root and two folders down) are byte for byte the
 * same; a branch that changes any of them gets a key of its own, so its setup result never reaches
 * another ref.
 */
export interface SetupCacheSpec {
  /** The operator's cache folder for setup results. */
  dir: string;
  /** Which repository this is (its remote without credentials, else its path). */
  repo: string;
  /** Size cap of the cache folder in bytes (default: AUTO_FIX_SETUP_CACHE_MAX_MB). */
  capBytes?: number;
}

/** Bumped when what a cache entry holds or how its key is made changes, so old entries are never used. */
export const SETUP_CACHE_FORMAT = 2;

/** Manifests, lock files and tool settings whose content decides what setup installs. */
const INPUT_NAMES = new Set([
  "requirements.txt",
  "constraints.txt",
  "Pipfile",
  "Pipfile.lock",
  "poetry.lock",
  "pdm.lock",
  "uv.lock",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "tox.ini",
  "noxfile.py",
  ".python-version",
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  "bun.lockb",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".nvmrc",
  ".node-version",
  "go.mod",
  "go.sum",
  "go.work",
  "go.work.sum",
  "Gemfile",
  "Gemfile.lock",
  "Cargo.toml",
  "Cargo.lock",
  "composer.json",
  "composer.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "gradle.properties",
  "gradle.lockfile",
  "Makefile",
  "makefile",
  "GNUmakefile",
  ".pnpmfile.cjs",
]);
/**
 * Folders package managers read while installing without any command naming them: patch-package's and
 * Yarn's patches, Yarn's plugins and its own release. Every file in them is an input.
 */
const INPUT_DIRS = ["patches", ".yarn/patches", ".yarn/plugins", ".yarn/releases"];
const INPUT_PATTERN = /^(?:requirements|constraints)[\w.-]*\.(?:txt|in)$/;
/** Folders searched for manifests: the root and two levels below it (a monorepo's packages). */
const MAX_DEPTH = 3;
/** Largest input hashed; a larger one (or a link, a device) makes the run uncacheable. */
const MAX_INPUT_BYTES = 32 * 1024 * 1024;
/** Largest script whose own words are read for further inputs. */
const MAX_SCRIPT_BYTES = 1024 * 1024;
/** More inputs than this: the run is not cached (a key over a whole tree would never be reused). */
const MAX_INPUTS = 2000;

/** Manifests and lock files of `tree`, at most MAX_DEPTH folders down; dependency, VCS and cache folders skipped. */
function manifests(tree: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(rel ? join(tree, rel) : tree).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      if (INPUT_NAMES.has(name) || INPUT_PATTERN.test(name)) out.push(r);
      else if (depth + 1 < MAX_DEPTH) {
        if (VCS_DIRS.has(name) || DEPENDENCY_DIRS.has(name) || CACHE_DIRS.has(name)) continue;
        let st: ReturnType<typeof lstatSync>;
        try {
          st = lstatSync(join(tree, r));
        } catch {
          continue;
        }
        if (st.isDirectory()) walk(r, depth + 1);
      }
    }
  };
  walk("", 0);
  return out;
}

/** Words of a command or script that may name a file of the tree (`sh scripts/setup.sh`, `-r=reqs.txt`). */
function pathWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[\s;&|()<>`"'$]+/)) {
    const bare = raw.replace(/^-[\w-]*=/, "");
    const word = bare === "./" ? "." : bare.replace(/^\.\//, "").replace(/\/+$/, "");
    if (!word || word.startsWith("-") || word.startsWith("/") || word.length > 300) continue;
    if (word.split("/").some((s) => s === ".." || s === "")) continue;
    out.push(word);
  }
  return out;
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Whether `rel` is a real folder of the tree (no link anywhere on the way). */
function isTreeDir(tree: string, rel: string): boolean {
  if (rel === ".") return true;
  let path = tree;
  for (const part of rel.split("/")) {
    path = join(path, part);
    try {
      if (!lstatSync(path).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Adds every file under folder `rel` to `into` (VCS, dependency and cache folders skipped); false past MAX_INPUTS. */
function filesUnder(tree: string, rel: string, into: Set<string>): boolean {
  const walk = (r: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(r ? join(tree, r) : tree);
    } catch {
      return true;
    }
    for (const name of names) {
      if (VCS_DIRS.has(name) || DEPENDENCY_DIRS.has(name) || CACHE_DIRS.has(name)) continue;
      const p = r ? `${r}/${name}` : name;
      const st = lstatSync(join(tree, p));
      if (st.isDirectory()) {
        if (!walk(p)) return false;
      } else into.add(p);
      if (into.size > MAX_INPUTS) return false;
    }
    return true;
  };
  return walk(rel === "." ? "" : rel);
}

/** Whether `rel` is a regular file or a link of the tree (no link on the way to it). */
function isTreeFile(tree: string, rel: string): boolean {
  let path = tree;
  const parts = rel.split("/");
  for (const [i, part] of parts.entries()) {
    path = join(path, part);
    try {
      const st = lstatSync(path);
      if (i < parts.length - 1 ? !st.isDirectory() : !st.isFile() && !st.isSymbolicLink()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The cache key of a tree's setup: the repository, the setup commands, the sandbox kind and the content
 * of every input (manifests and lock files; files a setup command names, and the files those name).
 * Null when an input cannot be read as a regular file (a link, too large) or there are too many: such a
 * run is not cached.
 */
export function setupCacheKey(
  tree: string,
  spec: SetupCacheSpec,
  setup: readonly string[],
  kind: string,
): { key: string; files: string[] } | null {
  const fs = openTree(tree);
  const names = new Set(manifests(tree));
  const named = new Set<string>();
  const dirs = new Set<string>();
  const take = (text: string, folders: boolean): void => {
    for (const w of pathWords(text)) {
      if (isTreeFile(tree, w)) named.add(w);
      else if (folders && isTreeDir(tree, w)) dirs.add(w);
    }
  };
  for (const cmd of setup) take(cmd, true);
  for (const d of INPUT_DIRS) if (isTreeDir(tree, d)) dirs.add(d);
  const scripts = [...named];
  named.clear();
  // What a command names is read too, and the files it names in turn (one level): a setup script, a
  // requirements file's `-r other.txt`, a manifest's `"postinstall": "node tools/build.js"`. A folder a
  // command or script names (`pip install .`, `-e ./lib`) is an input with every file in it.
  const read = (rel: string, folders: boolean): void => {
    let body: Buffer | null = null;
    try {
      body = fs.readIfExists(rel, { maxBytes: MAX_SCRIPT_BYTES });
    } catch {
      // too large or not a file: hashed (or refused) below, not read for words
    }
    if (body && !body.includes(0)) take(body.toString("utf8"), folders);
  };
  for (const rel of scripts) read(rel, true);
  for (const rel of names) read(rel, false);
  for (const n of [...scripts, ...named]) names.add(n);
  for (const d of dirs) if (!filesUnder(tree, d, names)) return null;
  if (names.size > MAX_INPUTS) return null;
  const files: [string, string][] = [];
  for (const rel of [...names].sort()) {
    // A link is keyed by where it points, never followed.
    const st = lstatOrNull(join(tree, rel));
    if (st?.isSymbolicLink()) {
      files.push([rel, `link:${readlinkSync(join(tree, rel))}`]);
      continue;
    }
    let body: Buffer | null;
    try {
      body = fs.readIfExists(rel, { maxBytes: MAX_INPUT_BYTES });
    } catch (err) {
      if (err instanceof TreeFsError) return null;
      throw err;
    }
    if (body) files.push([rel, createHash("sha256").update(body).digest("hex")]);
  }
  const key = createHash("sha256")
    .update(JSON.stringify([SETUP_CACHE_FORMAT, spec.repo, setup, kind, files]))
    .digest("hex");
  return { key, files: files.map(([rel]) => rel) };
}
