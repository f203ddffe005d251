import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { hostGitEnv } from "../core/git-env.ts";
import { openTree, TreeFsError } from "../core/tree-fs.ts";

/**
 * The setup step's result, kept per repository and per content of its lock and requirements files: what
 * setup added to or changed in the work tree (installed packages, `node_modules`, the per-user installs
 * under `.auto-fix/deps`), as a tar archive with a manifest. A later run of the same repository whose
 * lock files, setup commands and sandbox kind are the same restores it instead of installing again.
 */
export interface SetupCacheSpec {
  /** The operator's cache folder for setup results. */
  dir: string;
  /** Which repository this is (its remote without credentials, else its path). */
  repo: string;
}

/** Bumped when what a cache entry holds changes, so old entries are never used. */
const FORMAT = 1;

/** Lock, requirements and manifest files whose content decides what setup installs. */
const LOCK_NAMES = new Set([
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
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "go.mod",
  "go.sum",
  "Gemfile",
  "Gemfile.lock",
  "Cargo.toml",
  "Cargo.lock",
  "composer.json",
  "composer.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "gradle.lockfile",
]);
const LOCK_PATTERN = /^(?:requirements|constraints)[\w.-]*\.(?:txt|in)$/;
/** Largest lock file hashed (a larger one makes the run uncacheable rather than hashed in part). */
const MAX_LOCK_BYTES = 32 * 1024 * 1024;

/**
 * The cache key of a tree's setup: the repository, the setup commands, the sandbox kind and the content
 * of its lock files (at the root, in `requirements/`, and any file a setup command names with `-r`/`-c`).
 * Null when a lock file cannot be read as a regular file (a link, too large): such a run is not cached.
 */
export function setupCacheKey(
  tree: string,
  spec: SetupCacheSpec,
  setup: readonly string[],
  kind: string,
): { key: string; files: string[] } | null {
  const fs = openTree(tree);
  const names = new Set<string>();
  const list = (dir: string): string[] => {
    try {
      return readdirSync(join(tree, dir));
    } catch {
      return [];
    }
  };
  for (const n of list("")) if (LOCK_NAMES.has(n) || LOCK_PATTERN.test(n)) names.add(n);
  for (const n of list("requirements"))
    if (n.endsWith(".txt") || n.endsWith(".in")) names.add(`requirements/${n}`);
  for (const cmd of setup) {
    for (const m of cmd.matchAll(/(?:^|\s)(?:-r|-c|--requirement|--constraint)[=\s]+([\w./-]+)/g)) {
      const rel = m[1]!.replace(/^\.\//, "");
      if (!rel.startsWith("/") && !rel.split("/").includes("..")) names.add(rel);
    }
  }
  const files: [string, string][] = [];
  for (const rel of [...names].sort()) {
    let body: Buffer | null;
    try {
      body = fs.readIfExists(rel, { maxBytes: MAX_LOCK_BYTES });
    } catch (err) {
      if (err instanceof TreeFsError) return null;
      throw err;
    }
    if (body) files.push([rel, createHash("sha256").update(body).digest("hex")]);
  }
  const key = createHash("sha256")
    .update(JSON.stringify([FORMAT, spec.repo, setup, kind, files]))
    .digest("hex");
  return { key, files: files.map(([rel]) => rel) };
}

type Kind = "file" | "dir" | "link";
interface Entry {
  kind: Kind;
  sig: string;
}

/**
 * Every file, folder and link under `dir` with a signature of what it is (no link followed; sockets and
 * devices left out). Compared before and after setup, it says what setup added or changed.
 */
export async function snapshotTree(dir: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const walk = async (rel: string): Promise<void> => {
    const names = await readdir(join(dir, rel));
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(dir, r), { bigint: true });
      if (st.isSymbolicLink()) out.set(r, { kind: "link", sig: `l${st.size}:${st.mtimeNs}` });
      else if (st.isDirectory()) {
        out.set(r, { kind: "dir", sig: "d" });
        await walk(r);
      } else if (st.isFile()) out.set(r, { kind: "file", sig: `f${st.size}:${st.mtimeNs}:${st.mode}` });
    }
  };
  await walk("");
  return out;
}

const run = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  new Promise<string>((res, rej) => {
    execFile(cmd, args, { ...opts, maxBuffer: 16 * 1024 * 1024 }, (err, out, stderr) =>
      err ? rej(new Error(`${cmd} failed: ${String(stderr).trim() || err.message}`)) : res(String(out)),
    );
  });

const paths = (spec: SetupCacheSpec, key: string) => ({
  archive: join(spec.dir, `${key}.tar`),
  manifest: join(spec.dir, `${key}.json`),
});

interface Manifest {
  format: number;
  repo: string;
  setup: string[];
  lockFiles: string[];
  entries: { path: string; kind: Kind }[];
  createdAt: string;
}

/** Keeps what setup added to `dir` since `before` under `key`. Returns how many entries were kept. */
export async function storeSetupResult(
  spec: SetupCacheSpec,
  key: { key: string; files: string[] },
  dir: string,
  before: Map<string, Entry>,
  setup: readonly string[],
): Promise<number> {
  const after = await snapshotTree(dir);
  const entries = [...after]
    .filter(([p, e]) => before.get(p)?.sig !== e.sig)
    .map(([path, e]) => ({ path, kind: e.kind }));
  await mkdir(spec.dir, { recursive: true });
  const { archive, manifest } = paths(spec, key.key);
  const tmp = `${archive}.${process.pid}.${Date.now()}`;
  const list = `${tmp}.list`;
  try {
    await writeFile(list, entries.map((e) => `${e.path}\0`).join(""));
    await run("tar", ["-cf", tmp, "-C", dir, "--no-recursion", "--null", "-T", list]);
    await rename(tmp, archive);
    const m: Manifest = {
      format: FORMAT,
      repo: spec.repo,
      setup: [...setup],
      lockFiles: key.files,
      entries,
      createdAt: new Date().toISOString(),
    };
    await writeFile(`${manifest}.${process.pid}`, JSON.stringify(m));
    await rename(`${manifest}.${process.pid}`, manifest);
  } finally {
    await rm(tmp, { force: true });
    await rm(list, { force: true });
  }
  return entries.length;
}

/**
 * Puts a kept setup result into `dir` (a fresh copy of the repository): false when there is none, or
 * when it cannot be put back safely (an entry would land under a link of the tree or of the archive),
 * in which case the caller runs setup. The archive is the operator's, written from our own walk; its
 * entries are still checked so that no extraction writes through a link.
 */
export async function restoreSetupResult(
  spec: SetupCacheSpec,
  key: string,
  dir: string,
): Promise<number | null> {
  const { archive, manifest } = paths(spec, key);
  let m: Manifest;
  try {
    m = JSON.parse(await readFile(manifest, "utf8")) as Manifest;
    await lstat(archive);
  } catch {
    return null;
  }
  if (m.format !== FORMAT || !Array.isArray(m.entries)) return null;
  const kinds = new Map(m.entries.map((e) => [e.path, e.kind]));
  const realDirs = new Map<string, boolean>();
  const isRealDir = async (rel: string): Promise<boolean> => {
    const known = kinds.get(rel);
    if (known) return known === "dir";
    let v = realDirs.get(rel);
    if (v === undefined) {
      const st = await lstat(join(dir, rel)).catch(() => null);
      v = st?.isDirectory() === true && !st.isSymbolicLink();
      realDirs.set(rel, v);
    }
    return v;
  };
  for (const e of m.entries) {
    if (e.path.startsWith("/") || e.path.split("/").some((s) => s === ".." || s === "")) return null;
    const parts = e.path.split("/");
    for (let i = 1; i < parts.length; i++) if (!(await isRealDir(parts.slice(0, i).join("/")))) return null;
  }
  await run("tar", ["-xf", archive, "-C", dir, "--no-same-owner", "--no-same-permissions"]);
  return m.entries.length;
}

/**
 * Which repository `dir` is, for the setup cache: its `origin` remote without credentials, else its
 * resolved path.
 */
export async function repositoryIdentity(dir: string): Promise<string> {
  try {
    const url = (
      await run("git", ["-C", dir, "config", "--get", "remote.origin.url"], {
        env: hostGitEnv({ GIT_CEILING_DIRECTORIES: resolve(dir, "..") }),
      })
    ).trim();
    if (url) {
      try {
        const u = new URL(url);
        u.username = "";
        u.password = "";
        return u.toString().replace(/\.git$/, "");
      } catch {
        return url.replace(/^[^@/]+@/, "").replace(/\.git$/, "");
      }
    }
  } catch {
    // not a git checkout, or no origin: the path names it
  }
  return resolve(dir);
}
