import type { SymbolInfo } from "../index/types.ts";
import { COUNTED_FILES_LIMIT, clip, mergeRanges, plural, type SearchMatch } from "./format.ts";

/**
 * How search_code shows its hits: grouped by the definition that encloses them (each group once, each
 * line once, with `>` on the lines that hit), files named in the issue first, up to a bound; the
 * matches beyond it counted per file.
 */

/** Most groups shown with their code. */
export const CODE_GROUPS_SHOWN = 5;
/** Most code lines shown over all groups. */
export const CODE_LINES_SHOWN = 160;
/** A definition up to this long is shown whole around its hits. */
const WHOLE_DEFINITION_LINES = 40;
/** Lines shown on each side of a hit outside a short definition. */
export const HIT_CONTEXT = 15;
/** Lines on each side when the budget is nearly spent. */
const SHORT_CONTEXT = 3;

export interface CodeHit extends SearchMatch {
  /** The innermost function or method around the hit, if any. */
  callable: SymbolInfo | null;
}

interface Group {
  file: string;
  callable: SymbolInfo | null;
  hits: CodeHit[];
}

/** Hits in the focus files first (in the order found otherwise); grouped by file and enclosing callable. */
export function groupHits(hits: readonly CodeHit[], focus: ReadonlySet<string>): Group[] {
  const ranked = [...hits].sort((a, b) => Number(focus.has(b.file)) - Number(focus.has(a.file)));
  const groups = new Map<string, Group>();
  for (const h of ranked) {
    const key = `${h.file}\u0000${h.callable ? `${h.callable.start}:${h.callable.end}` : "-"}`;
    let g = groups.get(key);
    if (!g) {
      g = { file: h.file, callable: h.callable, hits: [] };
      groups.set(key, g);
    }
    g.hits.push(h);
  }
  return [...groups.values()];
}

/** The line ranges shown for a group: its definition when short, else each hit with `context` lines. */
function groupRanges(g: Group, context: number, fileLines: number): [number, number][] {
  const c = g.callable;
  if (c && c.end - c.start + 1 <= WHOLE_DEFINITION_LINES) return [[c.start, c.end]];
  const lo = c ? c.start : 1;
  const hi = c ? c.end : fileLines;
  const ranges = g.hits.map((h): [number, number] => [
    Math.max(lo, h.start - context),
    Math.min(hi, h.end + context),
  ]);
  // A long definition keeps its header line in view.
  if (c) ranges.push([c.start, c.start]);
  return mergeRanges(ranges);
}

function markedRanges(lines: readonly string[], ranges: readonly [number, number][], hitLines: Set<number>) {
  const width = String(ranges.at(-1)?.[1] ?? 1).length;
  const out: string[] = [];
  ranges.forEach(([a, b], i) => {
    if (i > 0) out.push(`${" ".repeat(width + 1)} | ...`);
    for (let n = Math.max(1, a); n <= Math.min(b, lines.length); n++)
      out.push(`${hitLines.has(n) ? ">" : " "}${String(n).padStart(width)} | ${clip(lines[n - 1] ?? "")}`);
  });
  return out.join("\n");
}

const size = (rs: readonly [number, number][]) => rs.reduce((s, [a, b]) => s + b - a + 1, 0);

/**
 * The text of a search_code answer. `what` heads it; `readLines` gives a file's lines. Groups are shown
 * while the bounds allow; the rest of the matches are counted per file.
 */
export async function renderCodeHits(
  what: string,
  groups: readonly Group[],
  total: number,
  readLines: (file: string) => Promise<readonly string[] | null>,
  narrowHint: string,
  focused: boolean,
): Promise<string> {
  const blocks: string[] = [];
  let budget = CODE_LINES_SHOWN;
  let shownHits = 0;
  let g = 0;
  for (; g < groups.length && blocks.length < CODE_GROUPS_SHOWN; g++) {
    const group = groups[g]!;
    const lines = (await readLines(group.file)) ?? [];
    let ranges = groupRanges(group, HIT_CONTEXT, lines.length);
    if (size(ranges) > budget)
      ranges = groupRanges({ ...group, callable: null }, SHORT_CONTEXT, lines.length);
    if (size(ranges) > budget && blocks.length > 0) break;
    budget -= size(ranges);
    const hitLines = new Set<number>();
    for (const h of group.hits) for (let n = h.start; n <= h.end; n++) hitLines.add(n);
    const c = group.callable;
    const tags = [`<file>${group.file}</file>`];
    const cls = group.hits[0]!.class;
    if (cls) tags.push(`<class>${cls}</class>`);
    if (c) tags.push(`<func>${c.name}</func>`);
    const at = [...new Set(group.hits.map((h) => h.start))];
    const span = c ? `lines ${c.start}-${c.end}; ` : "";
    blocks.push(
      `- Search result ${blocks.length + 1}: ${tags.join(" ")} (${span}${plural(at.length, "hit")} on line${at.length > 1 ? "s" : ""} ${at.join(", ")})\n<code>\n${markedRanges(lines, ranges, hitLines)}\n</code>`,
    );
    shownHits += group.hits.length;
  }
  const first = focused ? " (files named in the issue first)" : "";
  const head = `${what}. Shown by the definition around them${first}; \`>\` marks each hit's line:`;
  if (shownHits >= total) return `${head}\n\n${blocks.join("\n\n")}`;
  const counts = new Map<string, number>();
  for (const rest of groups.slice(g)) counts.set(rest.file, (counts.get(rest.file) ?? 0) + rest.hits.length);
  const files = [...counts].sort((a, b) => b[1] - a[1]);
  const named = files.slice(0, COUNTED_FILES_LIMIT);
  const list = named.map(([f, n]) => `- <file>${f}</file> (${n} more ${n === 1 ? "match" : "matches"})`);
  const tail = files.slice(COUNTED_FILES_LIMIT);
  if (tail.length > 0) {
    const n = tail.reduce((s, [, k]) => s + k, 0);
    list.push(`- … and ${plural(n, "match", "matches")} in ${plural(tail.length, "other file")}`);
  }
  const others = total - shownHits;
  return (
    `${head}\n\n${blocks.join("\n\n")}\n\n` +
    `The other ${others === 1 ? "match" : `${others} matches`}, by file${tail.length > 0 ? ` (the ${COUNTED_FILES_LIMIT} files with the most)` : ""}:\n${list.join("\n")}` +
    (narrowHint ? `\n${narrowHint}` : "")
  );
}
