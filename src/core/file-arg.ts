import { basename, isAbsolute, relative, sep } from "node:path";

export type FileArgResolution =
  | { ok: true; file: string }
  | { ok: false; reason: "not-found" | "ambiguous" | "outside"; message: string; candidates: string[] };

/** A file argument longer than this is not a path (it is refused without further work). */
const MAX_ARG = 1024;

/**
 * Resolves a file named by a model or a user to one of `files` (repo-relative, `/`-separated):
 * the relative path, `./path`, an absolute path inside `root`, the path under the repository's folder
 * (`project/src/x.py` when the repository is `project`, or names a folder the repository does not have
 * at its top), a unique path suffix, or a unique basename; a trailing location (`x.py:12`, `x.py:12-20`,
 * `x.py (lines 12-20)`, `x.py#L12`) is ignored. An ambiguous name gets a message listing the
 * candidates; nothing matching gets a message saying so.
 */
export function resolveFileArg(arg: string, files: readonly string[], root: string): FileArgResolution {
  if (arg.length > MAX_ARG) {
    return {
      ok: false,
      reason: "not-found",
      message: `The file name is ${arg.length} characters long; give a path relative to the repository root.`,
      candidates: [],
    };
  }
  const first = resolveName(arg, arg, files, root);
  if (first.ok || first.reason !== "not-found") return first;
  const bare = withoutLocation(arg);
  if (bare !== arg) {
    const again = resolveName(bare, arg, files, root);
    if (again.ok || again.reason !== "not-found") return again;
  }
  return first;
}

function resolveName(given: string, arg: string, files: readonly string[], root: string): FileArgResolution {
  let name = given
    .trim()
    .replace(/^["'`]|["'`]$/g, "")
    .replaceAll("\\", "/");
  if (isAbsolute(name)) {
    const rel = relative(root, name);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      return {
        ok: false,
        reason: "outside",
        message: `The path ${arg} is outside the repository.`,
        candidates: [],
      };
    }
    name = rel.split(sep).join("/");
  }
  while (name.startsWith("./")) name = name.slice(2);
  name = name.replace(/\/{2,}/g, "/");
  if (name.split("/").includes("..")) {
    return {
      ok: false,
      reason: "outside",
      message: `The path ${arg} leaves the repository.`,
      candidates: [],
    };
  }
  if (files.includes(name)) return { ok: true, file: name };
  const suffix = files.filter((f) => f.endsWith(`/${name}`));
  if (suffix.length === 1) return { ok: true, file: suffix[0]! };
  if (suffix.length > 1) {
    const shown = suffix.slice(0, 10);
    return {
      ok: false,
      reason: "ambiguous",
      message: `The file name ${arg} matches ${suffix.length} files: ${shown.join(", ")}${suffix.length > shown.length ? ", ..." : ""}. Give more of the path.`,
      candidates: suffix,
    };
  }
  const prefixed = underRepositoryFolder(name, files, root);
  if (prefixed) return { ok: true, file: prefixed };
  return {
    ok: false,
    reason: "not-found",
    message: `No file ${arg} in the repository. Use a path relative to the repository root, or search for a class or method to find the file.`,
    candidates: [],
  };
}

/**
 * `project/src/x.py` for `src/x.py`: the first folder is the repository's own name, or a folder the
 * repository does not have at its top (a name the model gave the checkout); what follows must be an
 * exact path. At most two such leading folders are dropped.
 */
function underRepositoryFolder(name: string, files: readonly string[], root: string): string | null {
  const own = basename(root);
  let parts = name.split("/");
  for (let dropped = 0; dropped < 2 && parts.length > 1; dropped++) {
    const head = parts[0]!;
    const isTopFolder = files.some((f) => f.startsWith(`${head}/`));
    if (head !== own && isTopFolder) return null;
    parts = parts.slice(1);
    const rest = parts.join("/");
    if (files.includes(rest)) return rest;
  }
  return null;
}

/** `x.py:12`, `x.py:12-20`, `x.py:12:5`, `x.py (lines 12-20)`, `x.py#L12-L20` → `x.py`. */
function withoutLocation(arg: string): string {
  let s = arg.trim();
  const paren = /\s*\((?:lines?|L)\b[^()]*\)$/i.exec(s);
  if (paren) s = s.slice(0, paren.index);
  const anchor = /#L\d+(?:-L?\d+)?$/.exec(s);
  if (anchor) s = s.slice(0, anchor.index);
  for (;;) {
    const m = /:\d+(?:-\d+)?$/.exec(s);
    if (!m) break;
    s = s.slice(0, m.index);
  }
  return s;
}
