import { lstatSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { CACHE_DIRS, DEPENDENCY_DIRS, isVirtualEnvMarker, VCS_DIRS } from "../core/folder-names.ts";

/**
 * Shared dependency trees: installed dependencies (`node_modules`, a Python virtual environment) of the
 * tree a job starts from are not copied into its work copies. Each copy holds an empty folder in their
 * place, and every sandboxed run in the copy gets the source's folder bound there read-only. A copy then
 * costs the project's own files; the dependencies cost nothing per copy, however many files they hold.
 *
 * Sandboxed code cannot write through: the bind is read-only (and the sandbox's uid owns none of it). A
 * run that replaced the empty folder with a link gets no bind at all (see `sharedBindsOf`), so a bind
 * never lands where the link points. Go's `vendor` is the project's source: copied as before.
 */
export interface SharedTree {
  /** Where the tree sits in the copy (repo-relative, `/`-separated). */
  rel: string;
  /** The host folder bound there read-only. */
  source: string;
}

/** Folders searched for dependency trees: the root and two levels below it (a monorepo's packages). */
const MAX_DEPTH = 3;

const registry = new Map<string, SharedTree[]>();

/** Whether a folder is a Python virtual environment, by its own listing (links never followed). */
async function isVenv(dir: string): Promise<boolean> {
  for (const marker of ["pyvenv.cfg", "conda-meta"]) {
    const st = await lstat(join(dir, marker)).catch(() => null);
    if (!st) continue;
    const kind = st.isFile()
      ? "file"
      : st.isDirectory()
        ? "directory"
        : st.isSymbolicLink()
          ? "link"
          : "special";
    if (isVirtualEnvMarker(marker, kind)) return true;
  }
  return false;
}

/**
 * The dependency trees of `root` worth sharing (repo-relative): real folders named as installed
 * dependencies are (`node_modules`, `site-packages`, `.tox`, ...) and virtual environments, at most three
 * levels down. Links are never followed, VCS data and caches are not
 * descended into, and nothing inside a dependency tree is looked at.
 */
export async function findDependencyTrees(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    const names = await readdir(rel ? join(root, rel) : root).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (VCS_DIRS.has(name) || CACHE_DIRS.has(name)) continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(root, r)).catch(() => null);
      if (!st?.isDirectory()) continue;
      if (DEPENDENCY_DIRS.has(name) || (await isVenv(join(root, r)))) out.push(r);
      else if (depth + 1 < MAX_DEPTH) await walk(r, depth + 1);
    }
  };
  await walk("", 0);
  return out;
}

/** Records that the copy at `dir` holds `trees` as shared, read-only dependency trees. */
export function shareTrees(dir: string, trees: SharedTree[]): void {
  if (trees.length > 0) registry.set(dir, trees);
}

export function sharedTreesOf(dir: string): SharedTree[] {
  return registry.get(dir) ?? [];
}

export function forgetShared(dir: string): void {
  registry.delete(dir);
}

/** Whether `rel` under `root` is a real folder, every folder on the way there too (no link anywhere). */
function realFolderPath(root: string, rel: string): boolean {
  let path = root;
  for (const part of ["", ...rel.split("/")]) {
    if (part === "." || part === "..") return false;
    path = part ? join(path, part) : path;
    try {
      const st = lstatSync(path);
      if (!st.isDirectory() || st.isSymbolicLink()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The read-only binds a sandboxed run in `workdir` gets: each shared tree whose place in the copy is
 * still a real folder (a run may have replaced it with a link, which is then left alone: no bind lands
 * where a link points) and whose source is still a real folder.
 */
export function sharedBindsOf(workdir: string): SharedTree[] {
  return sharedTreesOf(workdir).filter(
    (t) => realFolderPath(workdir, t.rel) && realFolderPath("/", t.source.replace(/^\/+/, "")),
  );
}
