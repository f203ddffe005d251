import { languageOf } from "../languages/index.ts";
import type { CodeIndex, SymbolHit } from "../index/code-index.ts";
import { methodsOf } from "../index/lookup.ts";
import { plural } from "../core/words.ts";

export { plural };

/** How many matches the model sees in full; the rest are counted per file. */
export const DISPLAY_LIMIT = 3;

/** Files named in the per-file count of the matches beyond the display limit; the rest are summed. */
export const COUNTED_FILES_LIMIT = 10;

/** Longest line shown in full; longer ones (minified code, data) are cut with a note. */
export const MAX_LINE_CHARS = 400;

export function clip(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)} ... [${line.length - MAX_LINE_CHARS} more characters on this line]`;
}

/** One match as the APIs return it (lines 1-based, inclusive). */
export interface SearchMatch {
  file: string;
  class: string | null;
  method: string | null;
  start: number;
  end: number;
}

/** A match with the text the model sees for it. */
export interface ShownMatch extends SearchMatch {
  code: string;
}

/**
 * Lines `start..end` (1-based, inclusive) with right-aligned line numbers: `  12 | text`.
 * `lines` holds the whole file.
 */
export function numbered(lines: readonly string[], start: number, end: number, width?: number): string {
  const w = width ?? String(end).length;
  const out: string[] = [];
  for (let n = Math.max(1, start); n <= Math.min(end, lines.length); n++) {
    out.push(`${String(n).padStart(w)} | ${clip(lines[n - 1] ?? "")}`);
  }
  return out.join("\n");
}

/** Sorted, merged 1-based line ranges. */
export function mergeRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = ranges.filter(([a, b]) => b >= a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Selected ranges of a file, numbered, with a `...` line where lines were left out. */
export function numberedRanges(
  lines: readonly string[],
  ranges: readonly (readonly [number, number])[],
): string {
  const merged = mergeRanges(ranges);
  const width = String(merged[merged.length - 1]?.[1] ?? 1).length;
  const parts: string[] = [];
  merged.forEach(([a, b], i) => {
    if (i > 0) parts.push(`${" ".repeat(width)} | ...`);
    parts.push(numbered(lines, a, b, width));
  });
  return parts.join("\n");
}

/**
 * The signature of a class: its header, attributes (fields, constants, docstring), nested class headers
 * and the signatures of its methods, not their bodies. Go methods declared in other files of the package
 * follow under their own file tag.
 */
export async function classSignature(index: CodeIndex, cls: SymbolHit): Promise<string> {
  const lines = (await index.readLines(cls.file.path)) ?? [];
  const s = cls.sym;
  const ranges: (readonly [number, number])[] = [
    [s.start, s.headerEnd],
    ...s.attrs.map((r) => docHead(lines, r)),
  ];
  for (const other of cls.file.symbols) {
    if (other.kind === "class" && other.className === s.qualName) ranges.push([other.start, other.headerEnd]);
  }
  const elsewhere = new Map<string, [number, number][]>();
  for (const m of methodsOf(index, cls)) {
    if (m.file.path === cls.file.path) ranges.push([m.sym.start, m.sym.headerEnd]);
    else {
      const list = elsewhere.get(m.file.path) ?? [];
      list.push([m.sym.start, m.sym.headerEnd]);
      elsewhere.set(m.file.path, list);
    }
  }
  // Only lines within the class, unless its language puts methods outside it (Go's methods, Rust's
  // impl blocks, C++'s out-of-class definitions), or a prototype-style class's methods outside its
  // constructor.
  const outside = languageOf(cls.file.language).units.members !== "file";
  const inside = ranges.filter(([a]) => (a >= s.start && a <= s.end) || outside || s.kind !== "class");
  let text = numberedRanges(lines, inside);
  for (const [path, rs] of [...elsewhere].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const other = (await index.readLines(path)) ?? [];
    text += `\n\n<file>${path}</file>\n${numberedRanges(other, rs)}`;
  }
  return text;
}

/** Lines of a docstring shown in a class's signature: its first ones (the rest is `...`). */
export const DOCSTRING_LINES = 3;

/** A long docstring among a class's attributes keeps its first lines only. */
function docHead(lines: readonly string[], r: readonly [number, number]): readonly [number, number] {
  const [a, b] = r;
  if (b - a + 1 <= DOCSTRING_LINES) return r;
  return /^\s*[rRbBuU]?("""|''')/.test(lines[a - 1] ?? "") ? [a, a + DOCSTRING_LINES - 1] : r;
}

/** The block the model sees for one match. */
export function renderMatch(m: ShownMatch, index?: number): string {
  const head = index === undefined ? "" : `- Search result ${index}:\n`;
  const tags = [`<file>${m.file}</file>`];
  if (m.class) tags.push(`<class>${m.class}</class>`);
  if (m.method) tags.push(`<func>${m.method}</func>`);
  return `${head}${tags.join(" ")} (lines ${m.start}-${m.end})\n<code>\n${m.code}\n</code>`;
}

/**
 * `what` heads the text ("Found 5 methods named `save`"). The first DISPLAY_LIMIT matches are shown in
 * full; the rest as a per-file count with a hint to narrow the search.
 */
export function renderMatches(
  what: string,
  shown: ShownMatch[],
  all: SearchMatch[],
  narrowHint: string,
): string {
  if (all.length <= DISPLAY_LIMIT) {
    return `${what}:\n\n${shown
      .slice(0, DISPLAY_LIMIT)
      .map((m, i) => renderMatch(m, i + 1))
      .join("\n\n")}`;
  }
  const counts = new Map<string, number>();
  for (const m of all.slice(DISPLAY_LIMIT)) counts.set(m.file, (counts.get(m.file) ?? 0) + 1);
  // The files with the most further matches first (ties in the order found); a long tail is summed, so
  // that the text does not grow with the number of matches.
  const files = [...counts].sort((a, b) => b[1] - a[1]);
  const named = files.slice(0, COUNTED_FILES_LIMIT);
  const rest = named.map(([f, n]) => `- <file>${f}</file> (${n} more ${n === 1 ? "match" : "matches"})`);
  const tail = files.slice(COUNTED_FILES_LIMIT);
  if (tail.length > 0) {
    const n = tail.reduce((sum, [, k]) => sum + k, 0);
    rest.push(`- … and ${plural(n, "match", "matches")} in ${plural(tail.length, "other file")}`);
  }
  const others = all.length - DISPLAY_LIMIT;
  return (
    `${what}. The first ${DISPLAY_LIMIT} are shown in full:\n\n` +
    `${shown
      .slice(0, DISPLAY_LIMIT)
      .map((m, i) => renderMatch(m, i + 1))
      .join("\n\n")}\n\n` +
    `The other ${others === 1 ? "match" : `${others} matches`}, by file${tail.length > 0 ? ` (the ${COUNTED_FILES_LIMIT} files with the most)` : ""}:\n${rest.join("\n")}` +
    (narrowHint ? `\n${narrowHint}` : "")
  );
}
