import { type CodeIndex, splitLines } from "../index/code-index.ts";
import { enclosingAt } from "../index/lookup.ts";
import type { SymbolInfo } from "../index/types.ts";
import { type CodeHit, groupHits, renderCodeHits } from "./code-hits.ts";
import { numbered, plural, renderMatches, type SearchMatch } from "./format.ts";
import type { SearchResult } from "./search-api.ts";

/** Safety cap on recorded hits of one search (a one-letter search in a huge repository). */
const MAX_HITS = 20000;
/** Largest window get_code_around_line shows on each side. */
const MAX_WINDOW = 200;

function fail(text: string): SearchResult {
  return { ok: false, text, results: [] };
}

interface Hit {
  file: string;
  start: number;
  end: number;
}

/** 1-based line of each offset in `offsets` (ascending). */
function linesOfOffsets(text: string, offsets: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const off of offsets) {
    for (let nl = text.indexOf("\n", pos); nl !== -1 && nl < off; nl = text.indexOf("\n", nl + 1)) {
      line++;
      pos = nl + 1;
    }
    out.push(line);
  }
  return out;
}

/** Exact literal hits: one per starting line. */
function exactHits(text: string, code: string): { start: number; end: number }[] {
  const offsets: number[] = [];
  let i = text.indexOf(code);
  while (i !== -1 && offsets.length < MAX_HITS) {
    offsets.push(i);
    const nl = text.indexOf("\n", i + code.length);
    if (nl === -1) break;
    i = text.indexOf(code, Math.max(nl + 1, i + code.length));
  }
  if (offsets.length === 0) return [];
  const codeLines = code.split("\n").length - 1;
  return linesOfOffsets(text, offsets).map((l) => ({ start: l, end: l + codeLines }));
}

/** KMP failure table of a sequence of line ids. */
function failureTable(pat: readonly number[]): Int32Array {
  const fail = new Int32Array(pat.length);
  let k = 0;
  for (let i = 1; i < pat.length; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1]!;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  return fail;
}

/**
 * Multi-line fragments whose indentation differs: lines compared with their surrounding whitespace
 * trimmed (the first line may be the end of a longer line, the last the start of one). The middle lines
 * are found with KMP over interned lines, so a crafted fragment costs linear time, not lines × lines.
 */
function looseHits(text: string, code: string): { start: number; end: number }[] {
  const want = code
    .split("\n")
    .map((l) => l.trim())
    .filter((l, i, a) => l !== "" || (i > 0 && i < a.length - 1));
  if (want.length < 2) return [];
  const lines = splitLines(text).map((l) => l.trim());
  const last = want.length - 1;
  const first = want[0]!;
  const final = want[last]!;
  const ok = (i: number): boolean =>
    i + last < lines.length && lines[i]!.endsWith(first) && lines[i + last]!.startsWith(final);
  const out: { start: number; end: number }[] = [];
  const middle = want.slice(1, last);
  if (middle.length === 0) {
    for (let i = 0; i + last < lines.length && out.length < MAX_HITS; i++)
      if (ok(i)) out.push({ start: i + 1, end: i + 1 + last });
    return out;
  }
  const ids = new Map<string, number>();
  const id = (l: string): number => {
    let v = ids.get(l);
    if (v === undefined) {
      v = ids.size;
      ids.set(l, v);
    }
    return v;
  };
  const pat = middle.map(id);
  const fail = failureTable(pat);
  let k = 0;
  for (let j = 1; j < lines.length && out.length < MAX_HITS; j++) {
    const c = ids.get(lines[j]!) ?? -1;
    while (k > 0 && c !== pat[k]) k = fail[k - 1]!;
    if (c === pat[k]) k++;
    if (k === pat.length) {
      // The middle lines end at j: the fragment starts one line before them.
      const i = j - pat.length;
      if (ok(i)) out.push({ start: i + 1, end: i + 1 + last });
      k = fail[k - 1]!;
    }
  }
  return out;
}

/** Largest search_code fragment accepted (a longer one is refused with a message, not searched). */
export const MAX_CODE_CHARS = 100 * 1024;

/** Removes leading newlines and trailing whitespace in one pass each. */
function trimFragment(s: string): string {
  let a = 0;
  while (s[a] === "\n") a++;
  let b = s.length;
  while (b > a && /\s/.test(s[b - 1]!)) b--;
  return s.slice(a, b);
}

interface Enclosing {
  className: string | null;
  method: string | null;
  /** The innermost function or method around the line. */
  callable: SymbolInfo | null;
}

/**
 * The innermost class and function around each of `lines` (as `enclosingAt` finds them), in one sweep:
 * symbols sorted by start, and for each kind a stack whose top, once the symbols ending before the line
 * are popped, is the containing symbol that starts last. A search with thousands of hits in a file of
 * thousands of definitions costs their sum, not their product.
 */
export function enclosingLines(symbols: readonly SymbolInfo[], lines: number[]): Map<number, Enclosing> {
  const sorted = symbols.map((s, i) => ({ s, i })).sort((a, b) => a.s.start - b.s.start || a.i - b.i);
  const classes: SymbolInfo[] = [];
  const callables: SymbolInfo[] = [];
  const out = new Map<number, Enclosing>();
  let next = 0;
  for (const line of [...new Set(lines)].sort((a, b) => a - b)) {
    while (next < sorted.length && sorted[next]!.s.start <= line) {
      const sym = sorted[next++]!.s;
      (sym.kind === "class" ? classes : callables).push(sym);
    }
    while (classes.length > 0 && classes[classes.length - 1]!.end < line) classes.pop();
    while (callables.length > 0 && callables[callables.length - 1]!.end < line) callables.pop();
    const cls = classes[classes.length - 1];
    const fn = callables[callables.length - 1];
    let className = cls?.qualName ?? null;
    if (fn && fn.kind === "method" && fn.className) className = fn.className;
    out.set(line, { className, method: fn?.name ?? null, callable: fn ?? null });
  }
  return out;
}

/** search_code / search_code_in_file: a literal search (regex metacharacters mean themselves). */
export async function searchCode(
  index: CodeIndex,
  rawCode: string,
  file: string | null,
  includeTests: boolean,
  focus: ReadonlySet<string> = new Set(),
): Promise<SearchResult> {
  if (rawCode.length > MAX_CODE_CHARS) {
    return fail(
      `The code to search is ${rawCode.length} characters long; search_code takes at most ${MAX_CODE_CHARS}. Search for a short, distinctive fragment (one line, or a name).`,
    );
  }
  const code = trimFragment(rawCode.replaceAll("\r\n", "\n"));
  const trimmed = code.trim();
  if (trimmed === "") return fail("search_code needs a non-empty piece of code.");
  // A single line is searched without its indentation; a block keeps its relative indentation.
  const needle = code.includes("\n") ? code.replace(/^[ \t]+/, "") : trimmed;
  let paths: string[];
  if (file) paths = [file];
  else {
    await index.loadAllTexts(includeTests);
    paths = index.paths(includeTests);
  }
  const hits: Hit[] = [];
  let loose = false;
  for (const p of paths) {
    const text = await index.readText(p);
    if (text === null) {
      if (file) return fail(`Could not read ${file}.`);
      continue;
    }
    if (!text.includes(needle)) continue;
    for (const h of exactHits(text, needle)) hits.push({ file: p, ...h });
    if (hits.length >= MAX_HITS) break;
  }
  if (hits.length === 0 && needle.includes("\n")) {
    loose = true;
    for (const p of paths) {
      const text = await index.readText(p);
      if (text !== null) for (const h of looseHits(text, needle)) hits.push({ file: p, ...h });
    }
  }
  const shortNeedle = trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
  if (hits.length === 0) {
    const where = file
      ? `in ${file}`
      : `in the repository${includeTests ? "" : " (test files are not searched)"}`;
    return fail(
      `Could not find the code \`${shortNeedle}\` ${where}. The search is literal: whitespace, quotes and case must match. ` +
        "Try a shorter fragment (one line, or a distinctive name), or search_class / search_method for a definition.",
    );
  }
  const enclosing = new Map<string, Map<number, Enclosing>>();
  const linesByFile = new Map<string, number[]>();
  for (const h of hits) {
    const list = linesByFile.get(h.file);
    if (list) list.push(h.start);
    else linesByFile.set(h.file, [h.start]);
  }
  for (const [f, lines] of linesByFile) {
    const rec = index.file(f);
    if (rec) enclosing.set(f, enclosingLines(rec.symbols, lines));
  }
  const coded: CodeHit[] = hits.map((h) => {
    const enc = enclosing.get(h.file)?.get(h.start);
    return {
      file: h.file,
      class: enc?.className ?? null,
      method: enc?.method ?? null,
      start: h.start,
      end: h.end,
      callable: enc?.callable ?? null,
    };
  });
  const groups = groupHits(coded, focus);
  // The results in the order shown (each group's hits together), in the contract's shape.
  const results: SearchMatch[] = groups.flatMap((g) =>
    g.hits.map((h) => ({ file: h.file, class: h.class, method: h.method, start: h.start, end: h.end })),
  );
  const capped = hits.length >= MAX_HITS ? ` (stopped after ${MAX_HITS})` : "";
  const how = loose ? " (matched with indentation ignored)" : "";
  const what = file
    ? `Found ${plural(hits.length, "hit")} of \`${shortNeedle}\` in ${file}${how}${capped}`
    : `Found ${plural(hits.length, "hit")} of \`${shortNeedle}\` in ${plural(new Set(hits.map((h) => h.file)).size, "file")}${how}${capped}`;
  const text = await renderCodeHits(
    what,
    groups,
    results.length,
    (f) => index.readLines(f),
    "Use search_code_in_file(code_str, file_name) or a longer fragment to narrow the search.",
    coded.some((h) => focus.has(h.file)),
  );
  return { ok: true, text, results };
}

function wholeNumber(v: string | number): number | null {
  const s = String(v).trim();
  if (!/^[+-]?\d+$/.test(s)) return null;
  return Number(s);
}

/** get_code_around_line: exactly lines line-window .. line+window (clamped to the file). */
export async function codeAroundLine(
  index: CodeIndex,
  file: string,
  lineArg: string | number,
  windowArg: string | number,
): Promise<SearchResult> {
  const line = wholeNumber(lineArg);
  if (line === null || line < 1) {
    return fail(`get_code_around_line: line_number must be a whole number from 1 up; got \`${lineArg}\`.`);
  }
  let window = String(windowArg).trim() === "" ? 10 : wholeNumber(windowArg);
  if (window === null || window < 0) {
    return fail(`get_code_around_line: window_size must be a whole number from 0 up; got \`${windowArg}\`.`);
  }
  const note = window > MAX_WINDOW ? ` (window_size capped at ${MAX_WINDOW})` : "";
  window = Math.min(window, MAX_WINDOW);
  const lines = await index.readLines(file);
  if (lines === null) return fail(`Could not read ${file}.`);
  if (line > lines.length) {
    return fail(
      `${file} has ${plural(lines.length, "line")}; line ${line} is out of range. Ask for a line from 1 to ${lines.length}.`,
    );
  }
  const start = Math.max(1, line - window);
  const end = Math.min(lines.length, line + window);
  const rec = index.file(file);
  const enc = rec ? enclosingAt(rec, line) : { className: null, method: null };
  const m: SearchMatch = { file, class: enc.className, method: enc.method, start, end };
  const text = renderMatches(
    `Lines ${start}-${end} of ${file} (around line ${line})${note}`,
    [{ ...m, code: numbered(lines, start, end) }],
    [m],
    "",
  );
  return { ok: true, text, results: [m] };
}
