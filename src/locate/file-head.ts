import type { CodeIndex } from "../index/code-index.ts";
import { slicesOf, topLevelOf } from "./excerpt.ts";
import type { ContextUnit } from "./locate.ts";

/** Most lines of a file's head shown with a location (its imports and module constants). */
export const HEAD_LINES = 40;

/**
 * The head of a file: the lines before its first top-level definition (imports, module constants),
 * without trailing blank lines, at most HEAD_LINES; null when there is none or the location shows it.
 * A fix that needs one more name imported then edits the import block it sees instead of adding a
 * second one blind.
 */
export async function fileHead(
  index: CodeIndex,
  file: string,
  shownFrom: number,
): Promise<ContextUnit | null> {
  const lines = await index.readLines(file);
  const rec = index.file(file);
  if (!lines || !rec) return null;
  const first = topLevelOf(rec)[0]?.start ?? lines.length + 1;
  let end = Math.min(first - 1, lines.length);
  while (end > 0 && !lines[end - 1]!.trim()) end--;
  if (end < 1 || shownFrom <= end) return null;
  const last = Math.min(end, HEAD_LINES);
  const slices = slicesOf(lines, [[1, last]]);
  const code = slices.map((s) => s.code).join("\n...\n");
  return {
    kind: "file-head",
    file,
    class: null,
    method: null,
    start: 1,
    end,
    code,
    slices,
    partial: last < end,
  };
}
