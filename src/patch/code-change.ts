import { openTree, TreeFsError } from "../core/tree-fs.ts";
import { applyFileDiff, parseUnifiedDiff } from "../core/unified-diff.ts";
import { sameCode } from "./same-code.ts";

/** Whether a patch changes code (the pipeline's `CodeChange`). */
export interface CodeChange {
  /** true: some file's code changes; false: only comments and whitespace change; null: cannot be told. */
  changed: boolean | null;
  /** In words, for the report: which files change code, or why it could not be told. */
  detail: string;
}

/** Largest file read to compare its code before and after a patch. */
const MAX_COMPARE_BYTES = 4 * 1024 * 1024;

/**
 * Whether the patch `diff` changes code in the unpatched tree at `root`: each file it touches is read
 * (through tree-fs: no link followed, size capped), patched in memory and compared with its unpatched
 * version as tree-sitter syntax trees with comments and whitespace left out. A new or deleted file is a
 * change; a file that cannot be read or parsed leaves the answer open (null) unless another file changes
 * code.
 */
export async function codeChangeOfDiff(root: string, diff: string): Promise<CodeChange> {
  const tree = openTree(root);
  const changedFiles: string[] = [];
  const unknown: string[] = [];
  const files = parseUnifiedDiff(diff);
  for (const f of files) {
    const path = f.newPath ?? f.oldPath;
    if (!path) continue;
    if (f.oldPath === null || f.newPath === null || f.oldPath !== f.newPath) {
      changedFiles.push(path);
      continue;
    }
    let before: string | null;
    try {
      before = tree.readIfExists(f.oldPath, { maxBytes: MAX_COMPARE_BYTES })?.toString("utf8") ?? null;
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      unknown.push(`${path} (${err.message})`);
      continue;
    }
    if (before === null) {
      changedFiles.push(path);
      continue;
    }
    const after = applyFileDiff(before, f);
    if (after === null) {
      unknown.push(`${path} (the diff does not apply to it)`);
      continue;
    }
    const same = await sameCode(path, before, after);
    if (same === false) changedFiles.push(path);
    else if (same === null) unknown.push(`${path} (its syntax could not be compared)`);
  }
  if (changedFiles.length > 0)
    return { changed: true, detail: `the patch changes code in ${changedFiles.join(", ")}` };
  if (unknown.length > 0)
    return {
      changed: null,
      detail: `whether the patch changes code could not be told: ${unknown.join(", ")}`,
    };
  if (files.length === 0) return { changed: null, detail: "the patch names no file" };
  return {
    changed: false,
    detail:
      "the patch changes no code: once comments and whitespace are set aside, every file it touches is as before",
  };
}
