import type { FileRecord, SymbolInfo } from "../index/types.ts";

/** A 1-based, inclusive line range. */
export type Range = [number, number];

/** A class up to this many lines is shown whole. */
export const SMALL_CLASS_LINES = 60;
/** A file up to this many lines is shown whole. */
export const SMALL_FILE_LINES = 100;
/** A member shown around an insertion point is shown whole up to this size, else by its ends. */
const FULL_MEMBER_LINES = 60;
/** The member most kindred by name to a new one is shown whole up to this size. */
const KINDRED_LINES = 150;
/** The last lines shown of a long member next to an insertion point. */
const MEMBER_TAIL_LINES = 8;
/** The most lines of one signature in an outline. */
const MAX_SIGNATURE_LINES = 4;
/** The most lines of class attributes (fields, constants, docstring) in a class outline. */
const MAX_ATTR_LINES = 80;
/** A constructor up to this size comes with a class outline (new methods build on its state). */
const CONSTRUCTOR_LINES = 40;
/** A module-level statement the model points at is shown whole up to this size, else around the line. */
const STATEMENT_FULL_LINES = 60;
/** Lines shown on each side of a pointed-at line inside a long statement. */
const AROUND_LINE = 12;
/** A neighbouring statement is shown whole up to this size, else by its first line. */
const NEIGHBOUR_FULL_LINES = 20;
/** Module-level code up to this many lines is shown whole when nothing points inside it. */
const MODULE_FULL_LINES = 150;
/** A top-level function the model names is shown whole up to this size. */
const FUNCTION_FULL_LINES = 150;
/** The most members or statements shown whole because the intended behaviour names them. */
const MAX_MENTIONED = 3;
/** A file with at most this many top-level definitions shows its classes' outlines. */
const FEW_DEFINITIONS = 3;
/** A class at least this share (one in three) of its file's lines shows its outline in the file's. */
const MAJOR_CLASS_SHARE = 3;
/** Gaps up to this many lines are shown rather than marked. */
const SMALL_GAP = 2;

/** What the model said besides the names: the lines and code it pointed at. */
export interface Hints {
  /** Lines named in the file argument (`x.py:120`) or the intended behaviour (`line 120`). */
  lines: number[];
  /** Words that look like code: `backticked`, snake_case, camelCase, CONSTANTS, `name(`, `.name`. */
  strong: Set<string>;
  /** Every word of the intended behaviour. */
  words: Set<string>;
  /** Backticked snippets with more than one word (`timeout = 30`). */
  snippets: string[];
  /** A method, function or class the model named that does not exist yet (the code to add). */
  missing: string | null;
  /** The existing member the new code goes after, when the model said so. */
  after?: string | null;
  /** Lines the search showed in this file: where the model looked. */
  seen: number[];
}

const LINE_RANGE_CAP = 50;
/** Stretches the search showed count as hints up to this size (a line or a few, not a whole class)... */
const SEEN_LINES = 20;
/** ...and only the most recent few. */
const MAX_SEEN = 5;

function pushRange(out: number[], a: number, b: number): void {
  if (!(a > 0)) return;
  const end = b >= a ? Math.min(b, a + LINE_RANGE_CAP) : a;
  for (let n = a; n <= end; n++) out.push(n);
}

/** The hints in a location request. */
export function hintsOf(
  fileArg: string,
  intended: string,
  missing: string | null,
  seen: readonly (readonly [number, number])[] = [],
): Hints {
  const lines: number[] = [];
  const f =
    /(?:#L(\d+)(?:-L?(\d+))?|:(\d+)(?:-(\d+))?(?::\d+)?|\((?:lines?|L)\s*(\d+)(?:\s*-\s*(\d+))?\))\s*$/i.exec(
      fileArg,
    );
  if (f) {
    const a = Number(f[1] ?? f[3] ?? f[5]);
    const b = Number(f[2] ?? f[4] ?? f[6] ?? a);
    pushRange(lines, a, b);
  }
  for (const m of intended.matchAll(/\b(?:lines?|L)\s*(\d+)(?:\s*(?:-|–|to|and|through)\s*(\d+))?/gi)) {
    const a = Number(m[1]);
    pushRange(lines, a, m[2] ? Number(m[2]) : a);
  }
  const strong = new Set<string>();
  const snippets: string[] = [];
  for (const m of intended.matchAll(/`([^`\n]+)`/g)) {
    const s = m[1]!.trim();
    if (/\s/.test(s)) snippets.push(s);
    for (const w of s.matchAll(/[A-Za-z_$][\w$]*/g)) if (w[0].length >= 2) strong.add(w[0]);
  }
  const words = new Set<string>();
  for (const m of intended.matchAll(/(\.?)([A-Za-z_$][\w$]*)(\()?/g)) {
    const w = m[2]!;
    words.add(w);
    const codeLike =
      Boolean(m[1]) ||
      Boolean(m[3]) ||
      /_/.test(w.replace(/^_+|_+$/g, "")) ||
      /^_/.test(w) ||
      /[a-z][A-Z]/.test(w) ||
      // A constant; short capitals without an underscore are more often an acronym (GNU, URL, JSON).
      (/^[A-Z][A-Z0-9_]+$/.test(w) && w.length >= 5);
    if (codeLike && w.length >= 2) strong.add(w);
  }
  const seenLines: number[] = [];
  for (const [a, b] of seen.slice(-MAX_SEEN)) if (b - a < SEEN_LINES) pushRange(seenLines, a, b);
  return { lines, strong, words, snippets, missing, seen: seenLines };
}

/**
 * Where new code goes: the member the model said it follows, else the members most kindred by name
 * (best first).
 */
function anchorFirst(members: readonly SymbolInfo[], hints: Hints): { i: number; score: number }[] {
  const named = hints.after ? members.findIndex((m) => m.name === hints.after) : -1;
  if (named >= 0) return [{ i: named, score: Number.POSITIVE_INFINITY }];
  const scored = members.map((m, i) => ({ i, score: kinship(m.name, hints) })).filter((x) => x.score > 0);
  return scored.sort((a, b) => b.score - a.score || a.i - b.i);
}

/** Whether `word` occurs in `text` as a whole identifier. */
export function wordIn(word: string, text: string): boolean {
  let i = text.indexOf(word);
  while (i >= 0) {
    const before = text[i - 1] ?? " ";
    const after = text[i + word.length] ?? " ";
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
    i = text.indexOf(word, i + 1);
  }
  return false;
}

/** Name parts too common to tell where a new definition belongs. */
const COMMON_PARTS = new Set(["get", "set", "has", "add", "the", "new", "for", "init", "self", "test"]);

/** Lower-case name parts, common ones left out: `getDefaultValue`, `get_default_value` → default, value. */
export function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((p) => p.length >= 3 && !COMMON_PARTS.has(p));
}

/** How strongly the intended behaviour names `name`: 3 as code, 1 as a plain word, 0 not at all. */
function mention(name: string, hints: Hints): number {
  if (hints.strong.has(name)) return 3;
  if (name.length >= 4 && hints.words.has(name)) return 1;
  return 0;
}

/** Parts the missing name shares with `name` (a new `get_default` goes next to `set_default`). */
function kinship(name: string, hints: Hints): number {
  if (!hints.missing) return 0;
  const mine = new Set(nameParts(hints.missing));
  return nameParts(name).filter((p) => mine.has(p)).length;
}

/** Sorted, merged ranges; gaps of at most `SMALL_GAP` lines are closed. */
export function mergeRanges(ranges: readonly Range[], gap = SMALL_GAP): Range[] {
  const sorted = ranges.filter(([a, b]) => b >= a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Range[] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1 + gap) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function signature(s: SymbolInfo): Range {
  return [s.start, Math.min(Math.max(s.headerEnd, s.start), s.start + MAX_SIGNATURE_LINES - 1)];
}

/** What an excerpt shows, collected: line ranges and the definitions shown whole or by their ends. */
class Picks {
  readonly ranges: Range[] = [];
  readonly whole: string[] = [];
  readonly ends: string[] = [];

  /** A definition: whole up to `limit` lines, else its signature and its last lines. */
  def(s: SymbolInfo, limit = FULL_MEMBER_LINES): void {
    if (s.end - s.start + 1 <= limit) {
      this.ranges.push([s.start, s.end]);
      if (!this.whole.includes(s.name)) this.whole.push(s.name);
    } else {
      this.ranges.push(signature(s), [s.end - MEMBER_TAIL_LINES + 1, s.end]);
      if (!this.ends.includes(s.name)) this.ends.push(s.name);
    }
  }

  done(last: number, statements: number[], insertion: string | null): Excerpt {
    const ends = this.ends.filter((n) => !this.whole.includes(n));
    return { ranges: clamp(this.ranges, last), whole: this.whole, ends, statements, insertion };
  }
}

/** The direct members of a class in its file (methods and nested classes), in line order. */
export function membersOf(file: FileRecord, cls: SymbolInfo): SymbolInfo[] {
  return file.symbols
    .filter(
      (s) =>
        s !== cls &&
        s.className === cls.qualName &&
        (s.kind === "method" || (s.kind === "class" && s.start >= cls.start && s.end <= cls.end)),
    )
    .sort((a, b) => a.start - b.start);
}

function isConstructor(s: SymbolInfo, cls: SymbolInfo): boolean {
  return s.kind === "method" && (s.name === "__init__" || s.name === "constructor" || s.name === cls.name);
}

/** What an excerpt shows, and a sentence that says so. */
export interface Excerpt {
  ranges: Range[];
  /** The members or definitions shown whole, by name. */
  whole: string[];
  /** Those shown by their first and last lines only (too long to show whole). */
  ends: string[];
  /** The first lines of the module-level statements the model pointed at. */
  statements: number[];
  /** Where new code would go, when the model named code that does not exist yet. */
  insertion: string | null;
}

/**
 * The outline of a class: its header, attributes (those the hints name first, up to a budget), each
 * member's signature and its last line.
 */
export function classOutline(
  lines: readonly string[],
  cls: SymbolInfo,
  members: readonly SymbolInfo[],
  hints: Hints | null,
): Range[] {
  const out: Range[] = [
    [cls.start, Math.max(cls.headerEnd, cls.start)],
    [cls.end, cls.end],
  ];
  const words = hints ? [...hints.strong].filter((w) => w.length >= 3) : [];
  const named = (r: readonly [number, number]): boolean =>
    hints !== null &&
    (hints.lines.some((n) => n >= r[0] && n <= r[1]) ||
      lines.slice(r[0] - 1, r[1]).some((t) => words.some((w) => wordIn(w, t))));
  const attrs = [...cls.attrs].sort((x, y) => Number(named(y)) - Number(named(x)) || x[0] - y[0]);
  let budget = MAX_ATTR_LINES;
  for (const [a, b] of attrs) {
    const size = b - a + 1;
    if (size > budget && !named([a, b])) continue;
    out.push([a, b]);
    budget -= size;
  }
  for (const m of members) out.push(signature(m));
  return out;
}

/**
 * A class shown for a change inside it that is not one existing method: the outline, the constructor,
 * the members the intended behaviour names, the attributes and lines it points at, and for new code
 * the members around where it would go (next to the most kindred member by name, else at the end).
 */
export function classExcerpt(
  lines: readonly string[],
  cls: SymbolInfo,
  members: readonly SymbolInfo[],
  hints: Hints,
): Excerpt {
  const inside = members.filter((m) => m.start >= cls.start && m.end <= cls.end);
  const picks = new Picks();
  picks.ranges.push(...classOutline(lines, cls, inside, hints));
  const ctor = inside.find((m) => isConstructor(m, cls));
  if (ctor && ctor.end - ctor.start + 1 <= CONSTRUCTOR_LINES) picks.def(ctor);
  const mentioned = inside
    .map((m) => ({ m, score: mention(m.name, hints) }))
    .filter((x) => x.score > 0 && x.m !== ctor)
    .sort((a, b) => b.score - a.score || a.m.start - b.m.start)
    .slice(0, MAX_MENTIONED);
  for (const { m } of mentioned) picks.def(m);
  // The lines the model pointed at, and where the search showed it code.
  for (const n of new Set([...hints.lines, ...hints.seen])) {
    if (n < cls.start || n > cls.end) continue;
    const m = inside.find((x) => x.start <= n && x.end >= n);
    if (m && m.end - m.start + 1 <= FULL_MEMBER_LINES) picks.def(m);
    else if (m) picks.ranges.push(signature(m), [n - AROUND_LINE, n + AROUND_LINE]);
    else picks.ranges.push([Math.max(cls.start, n - 3), Math.min(cls.end, n + 3)]);
  }
  let insertion: string | null = null;
  if (hints.missing && inside.length > 0) {
    const scored = anchorFirst(inside, hints);
    const best = scored[0];
    if (best) {
      const at = inside[best.i]!;
      const next = inside[best.i + 1];
      // The kindred member is the model's pattern for the new one: shown whole up to a larger size.
      picks.def(at, KINDRED_LINES);
      if (next) picks.def(next);
      insertion = at.name === hints.after ? `after \`${at.name}\`` : `next to \`${at.name}\``;
    } else {
      const last = inside[inside.length - 1]!;
      picks.def(last);
      picks.ranges.push([last.end, cls.end]);
      insertion = "at the end of the class";
    }
  }
  return picks.done(lines.length, [], insertion);
}

/** The top-level definitions of a file (those inside no other definition of the file). */
export function topLevelOf(file: FileRecord): SymbolInfo[] {
  const syms = [...file.symbols].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SymbolInfo[] = [];
  for (const s of syms) {
    const last = out[out.length - 1];
    if (last && s.start >= last.start && s.end <= last.end) continue;
    out.push(s);
  }
  return out;
}

const CONTINUES = /^(?:[)\]}]|else\b|elif\b|except\b|finally\b|catch\b)/;

/**
 * The module-level statements of a file: the lines outside every top-level definition, cut where a
 * line starts at column 0 (a closing bracket or `else`/`except`/`finally` continues the statement).
 * Blank lines at a statement's end are not part of it.
 */
export function moduleStatements(lines: readonly string[], top: readonly SymbolInfo[]): Range[] {
  const covered = new Uint8Array(lines.length + 2);
  for (const s of top) for (let n = s.start; n <= Math.min(s.end, lines.length); n++) covered[n] = 1;
  const out: Range[] = [];
  let cur: Range | null = null;
  for (let n = 1; n <= lines.length; n++) {
    const text = lines[n - 1]!;
    if (covered[n]) {
      cur = null;
      continue;
    }
    if (!text.trim()) continue;
    const starts = !/^\s/.test(text) && !CONTINUES.test(text);
    if (starts || cur === null) {
      cur = [n, n];
      out.push(cur);
    } else cur[1] = n;
  }
  return out;
}

function firstLine(r: Range): Range {
  return [r[0], r[0]];
}

/**
 * A file shown for a module-level change: an outline (each top-level definition's signature and each
 * module-level statement's first line), the definitions the intended behaviour names, the statements
 * the model points at (by line, by the code it quotes or names) with the statements on either side,
 * and for new code the definitions around where it would go. With nothing to point at, the module-level
 * code is shown whole when it is short.
 */
export function fileExcerpt(lines: readonly string[], file: FileRecord, hints: Hints): Excerpt {
  const top = topLevelOf(file);
  const stmts = moduleStatements(lines, top);
  const picks = new Picks();
  const ranges = picks.ranges;
  const statements: number[] = [];
  for (const s of top) ranges.push(signature(s));
  // The outline of a class that is much of the file (Java, most TypeScript) or one of a few, or that
  // holds a member the intended behaviour names.
  for (const s of top) {
    if (s.kind !== "class") continue;
    const members = membersOf(file, s);
    if (
      top.length <= FEW_DEFINITIONS ||
      (s.end - s.start + 1) * MAJOR_CLASS_SHARE >= lines.length ||
      members.some((m) => hints.strong.has(m.name))
    ) {
      ranges.push(...classOutline(lines, s, members, hints));
    }
  }
  for (const st of stmts) ranges.push(firstLine(st));
  let focused = false;
  const showSymbol = (s: SymbolInfo): void => {
    focused = true;
    if (s.kind === "class" && s.end - s.start + 1 > SMALL_CLASS_LINES) {
      const x = classExcerpt(lines, s, membersOf(file, s), { ...hints, missing: null, lines: [], seen: [] });
      ranges.push(...x.ranges);
      if (!picks.ends.includes(s.name)) picks.ends.push(s.name);
    } else picks.def(s, FUNCTION_FULL_LINES);
  };
  // Top-level definitions the intended behaviour names, and members it names as code.
  const named = file.symbols
    .map((s) => ({ s, score: top.includes(s) ? mention(s.name, hints) : hints.strong.has(s.name) ? 2 : 0 }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.s.start - b.s.start)
    .slice(0, MAX_MENTIONED);
  for (const { s } of named) showSymbol(s);
  // The lines the model pointed at: by number, or by the code it quoted or named.
  const pointed = new Set(hints.lines.filter((n) => n >= 1 && n <= lines.length));
  const codeWords = [...hints.strong].filter((w) => w.length >= 3);
  let byCode = 0;
  for (const st of stmts) {
    for (let n = st[0]; n <= st[1] && byCode < 3 * MAX_MENTIONED; n++) {
      const text = lines[n - 1]!;
      if (hints.snippets.some((s) => text.includes(s)) || codeWords.some((w) => wordIn(w, text))) {
        pointed.add(n);
        byCode++;
        break;
      }
    }
  }
  // Where the search showed the model code in this file.
  for (const n of hints.seen) if (n >= 1 && n <= lines.length) pointed.add(n);
  for (const n of [...pointed].sort((a, b) => a - b)) {
    focused = true;
    const i = stmts.findIndex((st) => st[0] <= n && st[1] >= n);
    if (i < 0) {
      // Inside a definition: the innermost one holding the line.
      const holder = file.symbols
        .filter((s) => s.start <= n && s.end >= n)
        .sort((a, b) => a.end - a.start - (b.end - b.start))[0];
      if (holder && holder.end - holder.start + 1 <= FUNCTION_FULL_LINES)
        ranges.push([holder.start, holder.end]);
      else ranges.push([n - AROUND_LINE, n + AROUND_LINE]);
      continue;
    }
    const st = stmts[i]!;
    if (!statements.includes(st[0])) statements.push(st[0]);
    if (st[1] - st[0] + 1 <= STATEMENT_FULL_LINES) ranges.push(st);
    else ranges.push(firstLine(st), [n - AROUND_LINE, n + AROUND_LINE]);
    for (const j of [i - 1, i + 1]) {
      const nb = stmts[j];
      if (!nb) continue;
      if (nb[1] - nb[0] + 1 <= NEIGHBOUR_FULL_LINES) ranges.push(nb);
      else ranges.push(j < i ? [nb[1] - 2, nb[1]] : [nb[0], nb[0] + 2]);
    }
  }
  let insertion: string | null = null;
  if (hints.missing) {
    const scored = anchorFirst(top, hints);
    const best = scored[0];
    focused = true;
    if (best) {
      const at = top[best.i]!;
      const next = top[best.i + 1];
      picks.def(at, KINDRED_LINES);
      if (next) ranges.push(signature(next));
      insertion = at.name === hints.after ? `after \`${at.name}\`` : `next to \`${at.name}\``;
    } else {
      const lastDef = top[top.length - 1];
      if (lastDef) picks.def(lastDef);
      const lastStmt = stmts[stmts.length - 1];
      if (lastStmt && (!lastDef || lastStmt[0] > lastDef.end)) ranges.push(lastStmt);
      ranges.push([Math.max(1, lines.length - 2), lines.length]);
      insertion = "at the end of the file";
    }
  }
  if (!focused) {
    const size = stmts.reduce((n, st) => n + st[1] - st[0] + 1, 0);
    if (size <= MODULE_FULL_LINES) ranges.push(...stmts);
    else for (const st of stmts) if (st[1] - st[0] < 3) ranges.push(st);
  }
  return picks.done(lines.length, statements, insertion);
}

function clamp(ranges: readonly Range[], last: number): Range[] {
  return mergeRanges(ranges.map(([a, b]): Range => [Math.max(1, a), Math.min(last, b)]));
}

/** The ranges as verbatim slices of the file. */
export function slicesOf(
  lines: readonly string[],
  ranges: readonly Range[],
): { start: number; end: number; code: string }[] {
  return mergeRanges(ranges).map(([a, b]) => {
    const end = Math.min(b, lines.length);
    return { start: a, end, code: lines.slice(a - 1, end).join("\n") };
  });
}
