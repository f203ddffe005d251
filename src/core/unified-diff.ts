/**
 * Applies a unified diff (as the patch engine writes it: `--- a/f`, `+++ b/f`, `@@ -a,b +c,d @@` hunks)
 * to texts in memory. Strict: a hunk whose old lines are not where it says fails the file, so what is
 * compared afterwards is exactly the patch's result or nothing.
 */

export interface FileDiff {
  /** The path before (null for a new file) and after (null for a deleted file), repository-relative. */
  oldPath: string | null;
  newPath: string | null;
  hunks: { oldStart: number; lines: string[] }[];
}

const pathOf = (raw: string, side: "a" | "b"): string | null => {
  let p = raw.replace(/\t.*$/, "").trim();
  if (p.startsWith('"') && p.endsWith('"')) p = p.slice(1, -1);
  if (p === "/dev/null") return null;
  if (p.startsWith(`${side}/`)) p = p.slice(2);
  return p;
};

/** The files of a unified diff and their hunks. */
export function parseUnifiedDiff(diff: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | null = null;
  let hunk: FileDiff["hunks"][number] | null = null;
  const lines = diff.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      cur = { oldPath: pathOf(line.slice(4), "a"), newPath: pathOf(lines[i + 1]!.slice(4), "b"), hunks: [] };
      files.push(cur);
      hunk = null;
      i++;
      continue;
    }
    const h = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(line);
    if (h && cur) {
      hunk = { oldStart: Number(h[1]), lines: [] };
      cur.hunks.push(hunk);
      continue;
    }
    if (
      hunk &&
      (line.startsWith(" ") || line.startsWith("+") || line.startsWith("-") || line.startsWith("\\"))
    )
      hunk.lines.push(line);
    else if (hunk && line === "" && i < lines.length - 1) hunk.lines.push(" ");
  }
  return files;
}

/** The text after the hunks, or null when a hunk does not fit `before`. */
export function applyFileDiff(before: string, file: FileDiff): string | null {
  const had = before === "" ? [] : before.split("\n");
  // A text ending in a newline splits into a last empty element that is not a line.
  const endsWithNewline = before.endsWith("\n");
  if (endsWithNewline) had.pop();
  const out: string[] = [];
  let at = 0;
  let newlineAtEnd = endsWithNewline || before === "";
  for (const h of file.hunks) {
    const start = Math.max(0, h.oldStart - 1);
    if (start < at) return null;
    while (at < start) {
      if (at >= had.length) return null;
      out.push(had[at++]!);
    }
    let prev = "";
    for (const l of h.lines) {
      const body = l.slice(1);
      if (l.startsWith("\\")) {
        // "\ No newline at end of file" after the new side's last line: the result ends without one.
        if (prev === "+" || prev === " ") newlineAtEnd = false;
        continue;
      }
      prev = l[0]!;
      if (l.startsWith(" ") || l.startsWith("-")) {
        if (had[at] !== body) return null;
        at++;
        if (l.startsWith(" ")) out.push(body);
      } else out.push(body);
      if (l.startsWith("+") || l.startsWith(" ")) newlineAtEnd = true;
    }
  }
  while (at < had.length) out.push(had[at++]!);
  if (out.length === 0) return "";
  return `${out.join("\n")}${newlineAtEnd ? "\n" : ""}`;
}
