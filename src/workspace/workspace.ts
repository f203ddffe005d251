import { forgetTempDir, trackTempDir } from "../core/temp-dirs.ts";
import { cp, lstat, mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import { UserError } from "../core/errors.ts";
import {
  CACHE_DIRS,
  DEPENDENCY_DIRS,
  isVirtualEnvMarker,
  type ListedKind,
  VCS_DIRS,
} from "../core/path-rules.ts";
import { tempParentOutside } from "../core/temp-outside.ts";

/**
 * Never copied into the private work tree: VCS internals, caches and our own output (core/path-rules).
 * Installed dependencies (DEPENDENCY_DIRS) are copied only when a stage runs the repository's code
 * (reproducer, tests, tree search): the search and the patch never need them and they can be large.
 */
const isNeverCopied = (name: string): boolean => VCS_DIRS.has(name) || CACHE_DIRS.has(name);

export interface Workspace {
  /** The private copy the pipeline reads, patches and runs. */
  root: string;
  /**
   * With `withDependencies: "shared"`: the dependency folders left out (each an empty folder in the
   * copy), with the user's folder each stands for, for the sandbox to bind read-only.
   */
  dependencies: { rel: string; source: string }[];
  dispose(): Promise<void>;
}

/**
 * Copies the user's tree into a private temporary folder (symlinks copied as links, not followed; VCS
 * internals, caches, `exclude` and, unless asked for, dependency folders left out). The user's tree is
 * only read. `withDependencies: "shared"`: dependency folders are not copied either, but each real one
 * leaves an empty folder in its place and is listed in `dependencies` (the stages that run code get the
 * user's folder bound there read-only, or copied in where they cannot).
 */
export async function createWorkspace(
  repo: string,
  exclude: string[] = [],
  opts: { withDependencies?: boolean | "shared" } = {},
): Promise<Workspace> {
  let src: string;
  try {
    src = await realpath(repo);
    if (!(await stat(src)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new UserError(`--repo ${repo} is not a directory`);
  }
  const excluded = await Promise.all(exclude.map((e) => realpath(e).catch(() => e)));
  const parent = await mkdtemp(join(await tempParentOutside(src, tmpdir()), "auto-fix-work-"));
  trackTempDir(parent);
  const root = join(parent, basename(src) || "repo");
  const dependencies: { rel: string; source: string }[] = [];
  await cp(src, root, {
    recursive: true,
    verbatimSymlinks: true,
    errorOnExist: false,
    filter: async (from) => {
      const rel = relative(src, from);
      if (rel === "") return true;
      if (excluded.some((e) => from === e || from.startsWith(e + sep))) return false;
      const name = basename(from);
      if (isNeverCopied(name)) return false;
      if (opts.withDependencies === true) return true;
      const dependency = DEPENDENCY_DIRS.has(name) || (await isVirtualEnvAt(from));
      if (dependency && opts.withDependencies === "shared") {
        const st = await lstat(from);
        // A link named like a dependency folder is copied as the link it is, never followed.
        if (!st.isDirectory()) return true;
        dependencies.push({ rel: rel.split(sep).join("/"), source: from });
      }
      return !dependency;
    },
  });
  // cp creates a folder's parents before its entries: the places of the left-out folders exist now.
  for (const d of dependencies) await mkdir(join(root, d.rel), { mode: 0o755 });
  return {
    root,
    dependencies,
    dispose: async () => {
      await rm(parent, { recursive: true, force: true });
      forgetTempDir(parent);
    },
  };
}

/**
 * A real directory (not a link) holding a virtual environment's marker, examined with lstat only: a
 * virtual environment is a dependency folder whatever its name, and a folder named `venv` without a
 * marker is code (core/path-rules isVirtualEnvMarker).
 */
async function isVirtualEnvAt(path: string): Promise<boolean> {
  const kindAt = async (p: string): Promise<ListedKind | null> => {
    try {
      const st = await lstat(p);
      return st.isSymbolicLink() ? "link" : st.isDirectory() ? "directory" : st.isFile() ? "file" : "special";
    } catch {
      return null;
    }
  };
  if ((await kindAt(path)) !== "directory") return false;
  for (const marker of ["pyvenv.cfg", "conda-meta"]) {
    const kind = await kindAt(join(path, marker));
    if (kind && isVirtualEnvMarker(marker, kind)) return true;
  }
  return false;
}
