/**
 * Folder names every walk agrees on (VCS data, installed dependencies, caches) and how a Python virtual
 * environment is known. Part of the path rules (`path-rules.ts` re-exports them), kept free of imports
 * so that the sandbox can use them without the rest.
 */

/** Version-control data. */
export const VCS_DIRS: ReadonlySet<string> = new Set([".git", ".hg", ".svn"]);
/**
 * Installed dependencies, known by name: package managers' trees and test tools' environments. Python
 * virtual environments are not here: they are known by what they hold (`isVirtualEnvMarker`), because
 * `venv`, `.venv` or `env` are also ordinary package names (the standard library has a `venv` package).
 */
export const DEPENDENCY_DIRS: ReadonlySet<string> = new Set([
  "node_modules",
  "site-packages",
  "dist-packages",
  ".tox",
  ".nox",
]);
/** Caches and auto-fix's own output. */
export const CACHE_DIRS: ReadonlySet<string> = new Set([
  "__pycache__",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".cache",
  ".auto-fix",
]);
/** What a directory entry is, as a listing says (never by following a link). */
export type ListedKind = "file" | "directory" | "link" | "special";

/**
 * Whether an entry of a folder's listing marks the folder as a Python virtual environment: a regular
 * file `pyvenv.cfg` (written by `python -m venv` and virtualenv) or a `conda-meta` folder (a conda
 * environment). The answer comes from the folder's own listing (or an lstat), never from following a
 * link: a link named `pyvenv.cfg` is not a marker, and what it points to is never looked at.
 */
export function isVirtualEnvMarker(name: string, kind: ListedKind): boolean {
  return (name === "pyvenv.cfg" && kind === "file") || (name === "conda-meta" && kind === "directory");
}
