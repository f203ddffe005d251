import type { Program } from "./programs.ts";

/** Most lines of current code shown for one node. */
const MAX_LINES = 400;

/** New-side line ranges (1-based, inclusive) of each file's hunks in a unified diff. */
export function changedRanges(diff: string): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  let file: string | null = null;
  for (const line of diff.split("\n")) {
    const plus = /^\+\+\+ (?:"?b\/)?(.+?)"?$/.exec(line);
    if (plus?.[1] && line.startsWith("+++ ")) {
      file = plus[1];
      if (!out.has(file)) out.set(file, []);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && file) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      out.get(file)!.push([start, Math.max(start, start + count - 1)]);
    }
  }
  return out;
}

/**
 * The code a node's patch changed, as it reads now: each changed region of each file with `window`
 * lines around it and line numbers, so the model can copy `<original>` blocks from code that already
 * includes the earlier attempt.
 */
export function renderCurrentCode(program: Program, diff: string, window = 12): string {
  const ranges = changedRanges(diff);
  const blocks: string[] = [];
  let budget = MAX_LINES;
  for (const [path, spans] of [...ranges.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const file = program.get(path);
    if (!file || budget <= 0) continue;
    const lines = file.text.replace(/\r\n?/g, "\n").split("\n");
    if (lines.at(-1) === "") lines.pop();
    const merged: [number, number][] = [];
    for (const [s, e] of spans.sort((x, y) => x[0] - y[0])) {
      const from = Math.max(1, s - window);
      const to = Math.min(lines.length, e + window);
      const last = merged.at(-1);
      if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    const width = String(lines.length).length;
    const parts: string[] = [];
    for (const [from, to] of merged) {
      const take = Math.min(to, from + budget - 1);
      const body: string[] = [];
      for (let n = from; n <= take; n++) body.push(`${String(n).padStart(width)}: ${lines[n - 1] ?? ""}`);
      budget -= take - from + 1;
      parts.push(`Lines ${from}-${take}${take < to ? " (cut)" : ""}:\n${body.join("\n")}`);
      if (budget <= 0) break;
    }
    blocks.push(`File ${path}${file.created ? " (new file)" : ""}:\n${parts.join("\n...\n")}`);
  }
  return blocks.join("\n\n");
}
