import { isAbsolute, relative, sep } from "node:path";

export type FileArgResolution =
  | { ok: true; file: string }
  | { ok: false; reason: "not-found" | "ambiguous" | "outside"; message: string; candidates: string[] };

/**
 * Resolves a file named by a model or a user to one of `files` (repo-relative, `/`-separated):
 * the relative path, `./path`, an absolute path inside `root`, a unique path suffix, or a unique basename.
 * An ambiguous name gets a message listing the candidates; nothing matching gets a message saying so.
 */
export function resolveFileArg(arg: string, files: readonly string[], root: string): FileArgResolution {
  let name = arg
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
  return {
    ok: false,
    reason: "not-found",
    message: `No file ${arg} in the repository. Use a path relative to the repository root, or search for a class or method to find the file.`,
    candidates: [],
  };
}
