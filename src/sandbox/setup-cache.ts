import { execFile } from "node:child_process";
import { lstat, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CACHE_DIRS } from "../core/folder-names.ts";
import { hostGitEnv } from "../core/git-env.ts";
import { sandboxCeilings } from "./limits.ts";
import { SANDBOX_DEPS_DIR } from "./env.ts";
import { evictSetupCache, setupCacheCapBytes } from "./setup-cache-evict.ts";
import { SETUP_CACHE_FORMAT, type SetupCacheSpec } from "./setup-cache-key.ts";
import { findDependencyTrees } from "./shared-deps.ts";

export { type SetupCacheSpec, setupCacheKey } from "./setup-cache-key.ts";

/**
 * The setup step's result, kept per repository and per content of every file setup runs or reads
 * (`setup-cache-key.ts`): only the dependency folders setup created (`node_modules`, a virtual
 * environment, `site-packages`, the per-user installs under SANDBOX_DEPS_DIR), never a path that was in
 * the checkout, never a file outside those folders. A setup step that changes anything else (a tracked
 * test, a config file, a build in the tree) is not kept at all. The archive is checked before it is
 * written: no special file, no sparse file, no set-user-ID file, no Python startup hook, and no more
 * bytes than a sandboxed run may write (AUTO_FIX_MAX_DISK_MB) or the cache may hold
 * (AUTO_FIX_SETUP_CACHE_MAX_MB); links are archived as links, never followed.
 */

/** Why a setup result is not kept (said in the run's notes). */
export class SetupCacheRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SetupCacheRefusal";
  }
}

type Kind = "file" | "dir" | "link";
interface Entry {
  kind: Kind;
  sig: string;
}

/**
 * Every file, folder and link under `dir` with a signature of what it is (no link followed; other kinds
 * are recorded as "special"). Compared before and after setup, it says what setup added or changed.
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
      else out.set(r, { kind: "file", sig: `s${st.mode}:${st.rdev}:${st.mtimeNs}` });
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
  /** The files the key was made of. */
  inputs: string[];
  /** The dependency folders kept (repo-relative); every entry lies in one of them. */
  roots: string[];
  entries: { path: string; kind: Kind }[];
  bytes: number;
  createdAt: string;
}

const within = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);
/** Caches a setup step leaves (compiled Python, tool caches): neither kept nor a change that matters. */
const isCacheLitter = (path: string): boolean => path.split("/").some((s) => CACHE_DIRS.has(s));
/** Files Python runs at every start when they are on its path: never carried from one run to another. */
const STARTUP_HOOKS = new Set(["usercustomize.py", "sitecustomize.py"]);
const MB = 1024 * 1024;
const list = (paths: string[], n = 5): string =>
  paths.slice(0, n).join(", ") + (paths.length > n ? ` and ${paths.length - n} more` : "");

/** The dependency folders setup created in `dir` (none of them was in the checkout before it ran). */
async function createdDependencyFolders(dir: string, before: Map<string, Entry>): Promise<string[]> {
  // The per-user folder's parent first: when setup made it, whatever else setup put there is kept with
  // it (a module or build cache a setup script pointed into the tree, e.g. GOMODCACHE=$PWD/.cache/go).
  const parent = SANDBOX_DEPS_DIR.split("/")[0]!;
  const found = [parent, SANDBOX_DEPS_DIR, ...(await findDependencyTrees(dir))];
  const roots: string[] = [];
  for (const r of found) {
    if (before.has(r) || roots.some((k) => within(r, k))) continue;
    const st = await lstat(join(dir, r)).catch(() => null);
    if (st?.isDirectory()) roots.push(r);
  }
  return roots;
}

/** What setup changed outside `roots`: new, changed or removed paths (folders on the way to a root aside). */
function changesOutside(before: Map<string, Entry>, after: Map<string, Entry>, roots: string[]): string[] {
  const out: string[] = [];
  const onTheWay = (p: string) => roots.some((r) => r.startsWith(`${p}/`));
  for (const [p, e] of after) {
    if (before.get(p)?.sig === e.sig || roots.some((r) => within(p, r)) || isCacheLitter(p)) continue;
    if (e.kind === "dir" && onTheWay(p)) continue;
    out.push(p);
  }
  for (const p of before.keys()) if (!after.has(p) && !isCacheLitter(p)) out.push(`${p} (removed)`);
  return out.sort();
}

/**
 * The entries of the kept folders, checked: regular files that are neither sparse nor set-user-ID, folders
 * and links (as links). Refuses special files, startup hooks, and more than `limit` bytes or `maxEntries`.
 */
async function checkedEntries(
  dir: string,
  roots: string[],
  limit: number,
  maxEntries: number,
): Promise<{ entries: { path: string; kind: Kind }[]; bytes: number }> {
  const entries: { path: string; kind: Kind }[] = [];
  let bytes = 0;
  const visit = async (rel: string): Promise<void> => {
    const st = await lstat(join(dir, rel));
    if (entries.length >= maxEntries) {
      throw new SetupCacheRefusal(`its dependency folders hold more than ${maxEntries} entries`);
    }
    bytes += 512;
    if (st.isSymbolicLink()) entries.push({ path: rel, kind: "link" });
    else if (st.isDirectory()) {
      entries.push({ path: rel, kind: "dir" });
      for (const name of (await readdir(join(dir, rel))).sort()) await visit(`${rel}/${name}`);
    } else if (st.isFile()) {
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      if (STARTUP_HOOKS.has(name)) {
        throw new SetupCacheRefusal(
          `${rel} is a Python startup hook (it runs in every later Python process)`,
        );
      }
      if ((st.mode & 0o6000) !== 0) throw new SetupCacheRefusal(`${rel} is set-user-ID or set-group-ID`);
      if (st.blocks * 512 < st.size) {
        throw new SetupCacheRefusal(
          `${rel} is a sparse file (${st.size} bytes, ${st.blocks * 512} on disk): it would cost its full size in an archive`,
        );
      }
      bytes += st.size;
      entries.push({ path: rel, kind: "file" });
    } else {
      throw new SetupCacheRefusal(
        `${rel} is a special file (a pipe, socket or device), which is never archived`,
      );
    }
    if (bytes > limit) {
      throw new SetupCacheRefusal(
        `its dependency folders hold more than ${+(limit / MB).toFixed(2)} MB (the most a sandboxed run may write, or the setup cache's cap)`,
      );
    }
  };
  for (const r of roots) await visit(r);
  return { entries, bytes };
}

/**
 * Keeps the dependency folders setup created in `dir` (since `before`) under `key`. Throws a
 * SetupCacheRefusal (saying why) when the result may not be kept. Returns how many entries were kept.
 */
export async function storeSetupResult(
  spec: SetupCacheSpec,
  key: { key: string; files: string[] },
  dir: string,
  before: Map<string, Entry>,
  setup: readonly string[],
  opts: { limitBytes?: number; maxEntries?: number } = {},
): Promise<number> {
  const after = await snapshotTree(dir);
  const roots = await createdDependencyFolders(dir, before);
  const outside = changesOutside(before, after, roots);
  if (outside.length > 0) {
    throw new SetupCacheRefusal(
      `the setup step changed files outside the dependency folders it created (${list(outside)}); only installed dependencies are ever kept`,
    );
  }
  const cap = spec.capBytes ?? setupCacheCapBytes();
  const limit = Math.min(opts.limitBytes ?? sandboxCeilings(undefined).diskMb * MB, cap);
  const { entries, bytes } = await checkedEntries(dir, roots, limit, opts.maxEntries ?? 1_000_000);
  await mkdir(spec.dir, { recursive: true });
  const { archive, manifest } = paths(spec, key.key);
  const tmp = `${archive}.${process.pid}.${Date.now()}`;
  const listFile = `${tmp}.list`;
  try {
    await writeFile(listFile, entries.map((e) => `${e.path}\0`).join(""));
    // Only the listed paths, links as links (tar never follows one without -h).
    await run("tar", ["-cf", tmp, "-C", dir, "--no-recursion", "--null", "-T", listFile]);
    const written = await stat(tmp);
    if (written.size > bytes + 1024 * 1024) {
      throw new SetupCacheRefusal(
        `its archive came out at ${written.size} bytes, more than its ${bytes} checked`,
      );
    }
    await rename(tmp, archive);
    const m: Manifest = {
      format: SETUP_CACHE_FORMAT,
      repo: spec.repo,
      setup: [...setup],
      inputs: key.files,
      roots,
      entries,
      bytes,
      createdAt: new Date().toISOString(),
    };
    await writeFile(`${manifest}.${process.pid}`, JSON.stringify(m));
    await rename(`${manifest}.${process.pid}`, manifest);
  } finally {
    await rm(tmp, { force: true });
    await rm(listFile, { force: true });
  }
  await evictSetupCache(spec.dir, cap, key.key);
  return entries.length;
}

/** Whether every folder on the way to `rel` (not `rel` itself) is a real folder or absent, and `rel` is absent. */
async function freePlace(dir: string, rel: string): Promise<boolean> {
  const parts = rel.split("/");
  if (rel.startsWith("/") || parts.some((s) => s === ".." || s === "." || s === "")) return false;
  for (let i = 1; i <= parts.length; i++) {
    const st = await lstat(join(dir, ...parts.slice(0, i))).catch(() => null);
    if (!st) return true;
    if (i === parts.length || !st.isDirectory() || st.isSymbolicLink()) return false;
  }
  return false;
}

/**
 * Puts a kept setup result into `dir` (a fresh checkout of the repository): null when there is none, or
 * when it cannot be put back as it was kept (a kept folder is already there, tracked or not; an entry
 * lies outside the kept folders; a folder on the way is a link), in which case the caller runs setup.
 * Nothing in the checkout is ever overwritten.
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
  if (m.format !== SETUP_CACHE_FORMAT || !Array.isArray(m.entries) || !Array.isArray(m.roots)) return null;
  for (const r of m.roots) if (!(await freePlace(dir, r))) return null;
  for (const e of m.entries) {
    if (!m.roots.some((r) => within(e.path, r))) return null;
    if (e.path.split("/").some((s) => s === ".." || s === "." || s === "")) return null;
  }
  try {
    await run("tar", [
      "-xf",
      archive,
      "-C",
      dir,
      "--no-same-owner",
      "--no-same-permissions",
      "--keep-old-files",
    ]);
  } catch {
    // Evicted meanwhile, or unreadable: whatever came out goes, and setup runs.
    for (const r of m.roots) await rm(join(dir, r), { recursive: true, force: true });
    return null;
  }
  const now = new Date();
  await utimes(manifest, now, now).catch(() => {});
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
