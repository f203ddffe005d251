/**
 * Column helpers for reading <patched>'s indentation: the indentation width a block of text steps by,
 * which bracket each line sits inside (strings, comments and regular expression literals skipped), and
 * the most frequent values of a list.
 */
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
 * the character offset just after that bracket; null outside brackets (strings on one line and
 * comments are skipped; a line inside a multi-line string gets null). Braces count only in Python:
 * elsewhere they open blocks, whose lines are indented by levels.
 */
export function openers(
  lines: readonly string[],
  python: boolean,
): ({ line: number; after: number } | null)[] {
  const out: ({ line: number; after: number } | null)[] = [];
  const stack: { line: number; after: number }[] = [];
  let triple: string | null = null;
  lines.forEach((line, j) => {
    out.push(triple === null && stack.length > 0 ? stack.at(-1)! : null);
    let quote: string | null = null;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (triple !== null) {
        if (line.startsWith(triple, i)) {
          i += 2;
          triple = null;
        }
        continue;
      }
      if (quote !== null) {
        if (ch === "\\") i++;
        else if (ch === quote) quote = null;
        continue;
      }
      if (!python && ch === "/" && regexStarts(line, i)) {
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
      if (python && (line.startsWith('"""', i) || line.startsWith("'''", i))) {
        triple = line.slice(i, i + 3);
        i += 2;
      } else if (ch === '"' || ch === "'" || ch === "`") quote = ch;
      else if ((python && ch === "#") || (ch === "/" && line[i + 1] === "/")) break;
      else if (ch === "(" || ch === "[" || (python && ch === "{")) stack.push({ line: j, after: i + 1 });
      else if (ch === ")" || ch === "]" || (python && ch === "}")) stack.pop();
    }
  });
  return out;
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
