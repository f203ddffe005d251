/** The words and paths of a test command, as the planted tests' placement reads them. */
import { posix } from "node:path";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";

export const isOption = (w: string): boolean => w.startsWith("-");

/** The words of `words` after `from` that are not options nor an option's value (pytest's value options). */
export function positionals(words: readonly string[], from: number, values: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (isOption(w)) {
      if (values.has(w)) i++;
    } else out.push(w);
  }
  return out;
}

export const clean = (p: string): string => posix.normalize(p.replace(/^\.\//, "")).replace(/\/$/, "");

/** The folder a path argument stands in: itself when a folder, else the folder holding it ("" = root). */
export function folderOf(tree: TreeFs, arg: string): string | null {
  const rel = clean(arg);
  if (rel === "." || rel === "") return "";
  if (rel.startsWith("..") || rel.startsWith("/")) return null;
  try {
    const kind = tree.kind(rel);
    if (kind === "directory") return rel;
    if (kind === "file") {
      const d = posix.dirname(rel);
      return d === "." ? "" : d;
    }
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
  }
  return null;
}

/** Whether `name` matches a unittest discovery pattern (fnmatch: `*`, `?`, `[…]`). */
export function fnmatch(pattern: string, name: string): boolean {
  let re = "";
  for (const c of pattern) re += c === "*" ? ".*" : c === "?" ? "." : /[\w-]/.test(c) ? c : `\\${c}`;
  try {
    return new RegExp(`^${re}$`).test(name);
  } catch {
    return false;
  }
}
