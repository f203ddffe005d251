/**
 * Column helpers for reading <patched>'s indentation: the indentation width a block of text steps by,
 * which bracket each line sits inside (strings, comments and regular expression literals skipped), and
 * the most frequent values of a list.
 */
import type { TextSyntax } from "../languages/index.ts";
import { leadingWs } from "./text.ts";

/**
 * The most frequent step of indentation (in or out) between consecutive lines of space-indented text,
 * each block on its own (the last line of one and the first of the next are not neighbours); null
 * without any step to learn from.
 */
export function spaceUnit(blocks: readonly (readonly string[])[]): number | null {
  const counts = new Map<number, number>();
  for (const lines of blocks) {
    let prev: number | null = null;
    for (const l of lines) {
      // Blank lines and the " * " lines of block comments say nothing about the indentation width.
      if (l.trim() === "" || l.trimStart().startsWith("*")) continue;
      const lead = leadingWs(l);
      if (lead.includes("\t")) return null;
      const w = lead.length;
      const step = prev === null ? 0 : Math.abs(w - prev);
      if (step > 0 && step <= 8) counts.set(step, (counts.get(step) ?? 0) + 1);
      prev = w;
    }
  }
  let best: number | null = null;
  let n = 0;
  for (const [w, c] of counts) if (c > n || (c === n && best !== null && w < best)) [best, n] = [w, c];
  return best;
}

/**
 * For each line, the earlier line that opened the innermost bracket still open where it starts, and
 * the character offset just after that bracket; null outside brackets. Strings, raw strings and comments
 * are skipped as the language writes them (`syntax`); a line inside a multi-line string or comment gets
 * null, and so does a preprocessor line (C++). Braces count only where the language says they continue
 * a line (Python's dicts): elsewhere they open blocks, whose lines are indented by levels.
 */
export function openers(
  lines: readonly string[],
  syntax: TextSyntax,
): ({ line: number; after: number } | null)[] {
  return readLines(lines, syntax).openers;
}

/**
 * The lines that start inside a string opened on an earlier line (a Rust or C++ raw string): their
 * leading whitespace is the string's text, not indentation, and they keep it under every reading. None
 * in a language whose indentation is its meaning: Python's readings weigh such lines themselves
 * (docstrings).
 */
export function stringLines(lines: readonly string[], syntax: TextSyntax): ReadonlySet<number> {
  return syntax.indentation ? new Set<number>() : readLines(lines, syntax).inString;
}

type Opener = { line: number; after: number };

/** One pass over `lines`: the bracket each line starts in, and the lines that start inside a string. */
function readLines(
  lines: readonly string[],
  syntax: TextSyntax,
): { openers: (Opener | null)[]; inString: Set<number> } {
  const out: (Opener | null)[] = [];
  const inString = new Set<number>();
  const stack: Opener[] = [];
  // The text that closes a string or comment still open at the end of a line, and which it is.
  let open: string | null = null;
  let openString = false;
  lines.forEach((line, j) => {
    out.push(open === null && stack.length > 0 ? stack.at(-1)! : null);
    if (open !== null && openString) inString.add(j);
    if (open === null && syntax.preprocessor && line.trimStart().startsWith("#")) return;
    let quote: string | null = null;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (open !== null) {
        if (line.startsWith(open, i)) {
          i += open.length - 1;
          open = null;
        }
        continue;
      }
      if (quote !== null) {
        if (ch === "\\") i++;
        else if (ch === quote) quote = null;
        continue;
      }
      if (syntax.regexLiterals && ch === "/" && regexStarts(line, i)) {
        // A regular expression literal: its brackets (escaped or in a class) are not brackets.
        const close = regexEnd(line, i);
        if (close > i) {
          i = close;
          continue;
        }
      }
      if (ch === "\\") {
        // An escaped character outside a string (a line continuation, say) opens nothing.
        i++;
        continue;
      }
      const raw = rawStringAt(line, i, syntax.rawStrings);
      if (raw) {
        const close = line.indexOf(raw.close, raw.bodyStart);
        if (close < 0) {
          open = raw.close;
          openString = true;
          break;
        }
        i = close + raw.close.length - 1;
        continue;
      }
      const long = syntax.longStrings.find((d) => line.startsWith(d, i));
      const block = syntax.blockComment;
      if (long) {
        open = long;
        openString = true;
        i += long.length - 1;
      } else if (block && line.startsWith(block[0], i)) {
        open = block[1];
        openString = false;
        i += block[0].length - 1;
      } else if (syntax.lineComments.some((c) => line.startsWith(c, i))) break;
      else if (ch === "'" && syntax.quoteNames && quoteNameEnd(line, i) > i) i = quoteNameEnd(line, i) - 1;
      else if (syntax.quotes.includes(ch)) quote = ch;
      else if (ch === "(" || ch === "[" || (syntax.braceContinues && ch === "{"))
        stack.push({ line: j, after: i + 1 });
      else if (ch === ")" || ch === "]" || (syntax.braceContinues && ch === "}")) stack.pop();
    }
  });
  return { openers: out, inString };
}

/** The characters a raw string may start with (its prefix's first). */
const RAW_STARTS = { rust: "rb", cpp: "RuUL" } as const;

/**
 * A raw string that starts at `i`, if one does: Rust's `r"…"`, `r#"…"#`, `br##"…"##`; C++'s `R"(…)"`,
 * `R"delim(…)delim"`, `u8R"(…)"`. Its body's start and the text that closes it (nothing inside is
 * escaped).
 */
function rawStringAt(
  line: string,
  i: number,
  kind: TextSyntax["rawStrings"],
): { bodyStart: number; close: string } | null {
  if (kind === "none" || !RAW_STARTS[kind].includes(line[i]!) || (i > 0 && /[\w$]/.test(line[i - 1]!)))
    return null;
  if (kind === "rust") {
    const m = /^b?r(#*)"/.exec(line.slice(i, i + 260));
    return m ? { bodyStart: i + m[0].length, close: `"${m[1]}` } : null;
  }
  const m = /^(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(/.exec(line.slice(i, i + 40));
  return m ? { bodyStart: i + m[0].length, close: `)${m[1]}"` } : null;
}

/**
 * Where a `'` at `i` that starts a name (a Rust lifetime `'a`, a label `'outer`) ends, or -1 when it
 * starts a character literal (`'a'`, `'\\n'`).
 */
function quoteNameEnd(line: string, i: number): number {
  if (line[i + 1] === "\\" || line[i + 2] === "'") return -1;
  const m = /^'[A-Za-z_]\w*/.exec(line.slice(i, i + 80));
  return m ? i + m[0].length : -1;
}

/**
 * Whether the "/" at `i` starts a regular expression literal rather than a division: it follows nothing,
 * an operator or an opening bracket, or a keyword after which an expression starts (`return /x/`).
 */
function regexStarts(line: string, i: number): boolean {
  if (line[i + 1] === "/" || line[i + 1] === "*") return false;
  const before = line.slice(0, i).trimEnd();
  if (before === "") return true;
  if (/[(,=:[!&|?{};+\-*%<>~^]$/.test(before)) return true;
  return /(^|[^\w$.])(return|typeof|case|void|in|of|delete|throw|new|yield|await|else|do)$/.test(before);
}

/** The index of the "/" closing the regular expression literal opened at `i`, or -1 when the line has none. */
function regexEnd(line: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < line.length; j++) {
    const ch = line[j]!;
    if (ch === "\\") j++;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if (ch === "/") return j;
  }
  return -1;
}

export function modes(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let max = 0;
  for (const c of counts.values()) max = Math.max(max, c);
  return [...counts].filter(([, c]) => c === max).map(([v]) => v);
}
