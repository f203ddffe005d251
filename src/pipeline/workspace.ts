import { cp, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import { UserError } from "../core/errors.ts";

/** Folders never copied into the private work tree (VCS internals, dependencies, caches, our own output). */
export const SKIPPED_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  ".auto-fix",
  ".mypy_cache",
  ".pytest_cache",
  ".tox",
]);

export interface Workspace {
  /** The private copy the pipeline reads, patches and runs. */
  root: string;
  dispose(): Promise<void>;
}

/**
 * Copies the user's tree into a private temporary folder (symlinks copied as links, not followed; VCS
 * internals, dependency folders and `exclude` left out). The user's tree is only read.
 */
export async function createWorkspace(repo: string, exclude: string[] = []): Promise<Workspace> {
  let src: string;
  try {
    src = await realpath(repo);
    if (!(await stat(src)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new UserError(`--repo ${repo} is not a directory`);
  }
  const excluded = await Promise.all(exclude.map((e) => realpath(e).catch(() => e)));
  const parent = await mkdtemp(join(tmpdir(), "auto-fix-work-"));
  const root = join(parent, basename(src) || "repo");
  await cp(src, root, {
    recursive: true,
    verbatimSymlinks: true,
    errorOnExist: false,
    filter: (from) => {
      const rel = relative(src, from);
      if (rel === "") return true;
      if (excluded.some((e) => from === e || from.startsWith(e + sep))) return false;
      return !SKIPPED_DIRS.has(basename(from));
    },
  });
  return { root, dispose: () => rm(parent, { recursive: true, force: true }) };
}
