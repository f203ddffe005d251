/**
 * Linear-time helpers for reading what sandboxed code printed. Every function here looks at each
 * character a bounded number of times: no regular expression that can backtrack over untrusted text.
 */

/** Most characters of test output a parser reads (stdout and stderr together). */
export const MAX_TEST_OUTPUT_CHARS = 8 * 1024 * 1024;
/** Longest test id kept; longer ids (deep nesting, huge names) are cut and end with `…`. */
export const MAX_TEST_ID_CHARS = 1000;
/** Longest line a parser reads; the rest of a longer line is ignored. */
export const MAX_LINE_CHARS = 16 * 1024;

export interface CappedText {
  text: string;
  /** Set when the input was longer than the cap: what was left out. */
  note: string | null;
}

const size = (n: number): string =>
  n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} kB`;

/** Most lines of test output a parser reads (per-line work dominates on output of tiny lines). */
export const MAX_TEST_OUTPUT_LINES = 400_000;

/** Index just after the `n`-th newline from the start of `text`, or -1 when it has fewer. */
function afterNewlines(text: string, n: number): number {
  let at = -1;
  for (let k = 0; k < n; k++) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return -1;
  }
  return at + 1;
}

/** Index of the `n`-th newline from the end of `text`, or -1 when it has fewer. */
function beforeNewlines(text: string, n: number): number {
  let at = text.length;
  for (let k = 0; k < n; k++) {
    at = text.lastIndexOf("\n", at - 1);
    if (at === -1) return -1;
  }
  return at;
}

/**
 * Keeps the first and last halves of a text longer than `max` characters or `maxLines` lines (test
 * runners print results as they go and a summary at the end), with a line saying what was left out.
 */
export function capHeadTail(
  text: string,
  max: number,
  what: string,
  maxLines = Number.POSITIVE_INFINITY,
): CappedText {
  let out = text;
  const notes: string[] = [];
  if (out.length > max) {
    const half = Math.floor(max / 2);
    notes.push(`${what} was ${size(out.length)}; ${size(out.length - 2 * half)} in the middle were not read`);
    out = `${out.slice(0, half)}\n${out.slice(out.length - half)}`;
  }
  if (Number.isFinite(maxLines)) {
    const half = Math.floor(maxLines / 2);
    const headEnd = afterNewlines(out, half);
    const tailStart = headEnd < 0 ? -1 : beforeNewlines(out, half);
    if (headEnd >= 0 && tailStart > headEnd) {
      let dropped = 1;
      for (let i = out.indexOf("\n", headEnd); i !== -1 && i < tailStart; i = out.indexOf("\n", i + 1))
        dropped++;
      notes.push(`${what} had more than ${maxLines} lines; ${dropped} in the middle were not read`);
      out = out.slice(0, headEnd) + out.slice(tailStart + 1);
    }
  }
  if (notes.length === 0) return { text, note: null };
  return { text: out, note: notes.join("; ") };
}

/** Keeps the first `max` characters of a longer text, with a note saying what was cut. */
export function capHead(text: string, max: number, what: string): CappedText {
  if (text.length <= max) return { text, note: null };
  return {
    text: text.slice(0, max),
    note: `${what} was ${size(text.length)}; only the first ${size(max)} were read`,
  };
}

/** Calls `fn` with every line of `text` (without its `\n`), each cut to MAX_LINE_CHARS. */
export function forEachLine(text: string, fn: (line: string) => boolean | undefined): void {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, Math.min(end, start + MAX_LINE_CHARS));
    if (fn(line) === false) return;
    start = end + 1;
  }
}

/**
 * Calls `fn` once with every line (cut to MAX_LINE_CHARS) that contains `marker`, in order; lines
 * without it are skipped by the native substring search, never sliced.
 */
export function forEachLineWith(text: string, marker: string, fn: (line: string) => void): void {
  let at = text.indexOf(marker);
  while (at !== -1) {
    const start = text.lastIndexOf("\n", at) + 1;
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    fn(text.slice(start, Math.min(end, start + MAX_LINE_CHARS)));
    at = text.indexOf(marker, end + 1);
  }
}

const WS = new Set([
  " ",
  "\t",
  "\n",
  "\r",
  "\v",
  "\f",
  "\u00a0",
  "\ufeff",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
]);
export const isSpace = (c: string | undefined): boolean =>
  c !== undefined &&
  (c === " " ||
    (c < "\x7f"
      ? c <= "\r" && c >= "\t"
      : WS.has(c) || (c >= "\u2000" && c <= "\u200a") || c === "\u3000" || c === "\u1680"));

const SPACE = /\s/g;
const NON_SPACE = /\S/g;

/** Index of the first whitespace character at or after `from`, or the text's length (native scan). */
export function nextSpace(s: string, from = 0): number {
  if (from >= s.length) return s.length;
  if (isSpace(s[from])) return from;
  SPACE.lastIndex = from;
  return SPACE.exec(s)?.index ?? s.length;
}

/** Index of the first non-whitespace character at or after `from`, or the text's length (native scan). */
export function skipSpaces(s: string, from = 0): number {
  if (from >= s.length) return s.length;
  if (!isSpace(s[from])) return from;
  NON_SPACE.lastIndex = from;
  return NON_SPACE.exec(s)?.index ?? s.length;
}

/** Start of the run of whitespace that ends just before `end` (== end when there is none). */
export function spaceRunStart(s: string, end: number): number {
  let i = end;
  while (i > 0 && isSpace(s[i - 1])) i--;
  return i;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
export const isWordChar = (c: string | undefined): boolean =>
  c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || isDigit(c) || c === "_");

/** Index just before a run of digits that ends at `end` (== end when there is none). */
function digitsBack(s: string, end: number): number {
  let i = end;
  while (i > 0 && isDigit(s[i - 1])) i--;
  return i;
}

/**
 * Start of a trailing duration such as ` 12ms`, ` (0.5 ms)`, ` 3s` (whitespace before it required),
 * or -1 when `s` does not end with one. `paren` selects the parenthesised form.
 */
export function trailingDuration(s: string, paren: boolean): number {
  let i = s.length;
  if (paren) {
    if (s[i - 1] !== ")") return -1;
    i--;
  }
  if (s[i - 1] !== "s") return -1;
  i--;
  if (s[i - 1] === "m") i--;
  i = spaceRunStart(s, i);
  let d = digitsBack(s, i);
  if (d === i) return -1;
  if (s[d - 1] === ".") {
    const whole = digitsBack(s, d - 1);
    if (whole < d - 1) d = whole;
    else return -1;
  }
  if (paren) {
    if (s[d - 1] !== "(") return -1;
    d--;
  }
  const ws = spaceRunStart(s, d);
  return ws < d ? ws : -1;
}

/** Removes a trailing run of whitespace (no regular expression). */
export const trimEndLinear = (s: string): string => {
  const end = spaceRunStart(s, s.length);
  return end === s.length ? s : s.slice(0, end);
};

/** Cuts an id to MAX_TEST_ID_CHARS. */
export const capId = (id: string): string =>
  id.length <= MAX_TEST_ID_CHARS ? id : `${id.slice(0, MAX_TEST_ID_CHARS - 1)}…`;

/** ANSI colour and cursor sequences (`ESC [ digits ; … letter`), removed in one pass. */
export function stripAnsi(s: string): string {
  if (!s.includes("\x1b")) return s;
  let out = "";
  let from = 0;
  let i = s.indexOf("\x1b");
  while (i !== -1) {
    if (s[i + 1] === "[") {
      let j = i + 2;
      while (j < s.length && ((s[j]! >= "0" && s[j]! <= "9") || s[j] === ";")) j++;
      const c = s[j];
      if (c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"))) {
        out += s.slice(from, i);
        from = j + 1;
        i = s.indexOf("\x1b", from);
        continue;
      }
    }
    i = s.indexOf("\x1b", i + 1);
  }
  return out + s.slice(from);
}

/** The status word (PASSED, FAILED, …) at `at`, ending at a word boundary; null when none. */
export function statusAt(line: string, at: number, words: readonly string[]): string | null {
  for (const w of words) {
    if (line.startsWith(w, at) && !isWordChar(line[at + w.length])) return w;
  }
  return null;
}
