import type { Range } from "web-tree-sitter";

/**
 * tree-sitter-python's external scanner, at the end of each line, reads ahead over every comment line
 * that follows to learn the next code line's indentation, and it is called again at the end of each of
 * those comment lines. A run of n comment lines therefore costs O(n²) characters read: 800 lines of
 * 50 characters took 0.4 s to parse here, 4,000 lines (200 kB) 9 s, and 16,000 lines (800 kB) would
 * take minutes. Files with long runs are common (licence headers, tables of values, code commented
 * out), and a repository can craft them.
 *
 * The parser is given included ranges that hide most of each long run: its comment lines become
 * groups, and everything from just after a group's first `#` to the last character of its last line is
 * hidden. A comment token runs on across a hidden stretch to the end of its line, so a group reads as
 * one comment spanning the lines of all of its comments, and the scanner steps over it in one move.
 * Every other node keeps its kind and its position, because a group never hides a line end where the
 * scanner decides something (`groupRun`): inside a run it only ever ends blocks (DEDENT), and it does
 * so at a line end when the innermost block is indented deeper than both the next code line and the
 * comment line that follows. The block stack is followed here as Python's tokenizer keeps it, over
 * statement starts outside brackets; in brackets nothing is decided. Nothing reads the text of comment
 * nodes (the index skips them; the syntax check's shapes count them, and both texts it compares are
 * read the same way).
 *
 * A line is taken when it starts, outside any string, with `#` after spaces and tabs, and holds no NUL
 * (which ends a comment for the parser). Strings and brackets are followed here as Python writes them;
 * where this reading and the parser's differ (a construct read otherwise, or a file with a syntax
 * error), `parsePython` (parse.ts) finds out from the tree it gets. The block stack is followed
 * only while every statement dedents to a block that is open (else the plain rule of `groupRun`). A
 * group whose first line is a comment holds only comments: a comment line leaves the lexer where it
 * was, outside any string. `test/languages/python-comment-runs.test.ts` holds the grouped tree against
 * the plain parser's on real modules with runs of every shape pushed in.
 */

/**
 * Comment lines a run needs before its groups are hidden. A shorter run costs a plain parse at most
 * half its length in reads of each of its characters (16 here): linear, and most files have no run
 * this long, so most files are not looked at further (`mayHoldLongRun`).
 */
const MIN_RUN = 32;
/** A group shorter than this many characters (from its `#` to its end) is left as it is. */
const MIN_HIDDEN = 32;

export interface CommentGroup {
  /** Offset of the group's first `#`. */
  start: number;
  /** Offset of the group's last character, which stays: the comment node reaches at least here. */
  last: number;
}

export interface CommentRunRanges {
  /**
   * About how many characters a plain parse's scanner reads over the text's comment runs, counting
   * each character once per line end it is read after: a plain parse costs about this much more than
   * one with the ranges (see the file comment).
   */
  plainScanCost: number;
  /** The parser's included ranges: everything but the hidden stretches. */
  ranges: Range[];
  /** The groups whose middles are hidden. */
  groups: CommentGroup[];
}

interface Group {
  start: number;
  indent: number;
  startRow: number;
  startLineStart: number;
  /** The last comment line taken so far: its row, its start, and its end (before the line end). */
  endRow: number;
  endLineStart: number;
  end: number;
}

/** Code up to the next character that matters here (always matches, maybe nothing). */
const PLAIN_CODE = /[^#'"\\\n()[\]{}]*/y;
const SINGLE_STOP: Record<string, RegExp> = { "'": /['\\\n]/g, '"': /["\\\n]/g };
const TRIPLE_STOP: Record<string, RegExp> = { "'": /'''|\\/g, '"': /"""|\\/g };

/** How deep in brackets the code is (never below 0: a stray closer is an error the tree will show). */
interface Brackets {
  depth: number;
}

/**
 * The first line start after `from` (a point in code, outside any string) where the code is outside
 * any string again, or `source.length`. Comments and strings on the way are skipped: a string that
 * spans lines (triple quotes, or a backslash before a line end) takes the lines it spans, and so does
 * a backslash at the end of a line of code. Brackets outside strings and comments move `brackets`.
 */
function nextCodeLine(source: string, from: number, brackets: Brackets): number {
  const n = source.length;
  let p = from;
  for (;;) {
    // Past plain code at native speed, without a match object.
    PLAIN_CODE.lastIndex = p;
    PLAIN_CODE.test(source);
    const at = PLAIN_CODE.lastIndex;
    if (at >= n) return n;
    const c = source.charCodeAt(at);
    if (c === 10) return at + 1;
    if (c === 35) {
      const nl = source.indexOf("\n", at);
      return nl < 0 ? n : nl + 1;
    }
    if (c === 92) {
      p = at + 2;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) {
      brackets.depth++;
      p = at + 1;
      continue;
    }
    if (c === 41 || c === 93 || c === 125) {
      if (brackets.depth > 0) brackets.depth--;
      p = at + 1;
      continue;
    }
    const q = source[at] as "'" | '"';
    const triple = source.charCodeAt(at + 1) === c && source.charCodeAt(at + 2) === c;
    const re = triple ? TRIPLE_STOP[q]! : SINGLE_STOP[q]!;
    let k = at + (triple ? 3 : 1);
    for (;;) {
      re.lastIndex = k;
      const e = re.exec(source);
      if (!e) return n;
      const ec = source.charCodeAt(e.index);
      if (ec === 92) k = e.index + 2;
      else if (ec === 10)
        return e.index + 1; // a string left open ends at the line end
      else {
        k = e.index + (triple ? 3 : 1);
        break;
      }
    }
    p = k;
  }
}

/** The scanner's indentation: a space counts 1, a tab 8. */
function indentOf(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += source.charCodeAt(i) === 9 ? 8 : 1;
  return n;
}

/** Line ends in `source` from `from` up to `to`. */
function linesBetween(source: string, from: number, to: number): number {
  let rows = 0;
  for (let k = source.indexOf("\n", from); k >= 0 && k < to; k = source.indexOf("\n", k + 1)) rows++;
  return rows;
}

interface Found {
  groups: Group[];
  /** About how many characters a plain parse's scanner reads over comment runs (`plainScanCost`). */
  cost: number;
}

/** The long runs' groups worth hiding, in order, and what the runs cost a plain parse. */
function findGroups(source: string): Found {
  const groups: Group[] = [];
  let lines: Group[] = [];
  let runStart = -1;
  let runEnd = -1;
  let runInBrackets = false;
  let cost = 0;
  const brackets: Brackets = { depth: 0 };
  // The scanner's stack of block indentations as of the last line that starts a statement (outside
  // brackets); null once a statement's indentation is unknown (a form feed or a carriage return in it)
  // or matches no open block (a syntax error): then only the plain rule below applies.
  let blocks: number[] | null = [0];
  /** Ends the run before a code line indented `next` (-1: unknown), or before the end of the text. */
  const endRun = (next: number): void => {
    if (lines.length >= MIN_RUN) {
      for (const g of groupRun(lines, runInBrackets, blocks, next))
        if (g.end - g.start >= MIN_HIDDEN) groups.push(g);
    }
    // At each of its line ends the scanner reads on to the run's end: half the run, on average.
    if (lines.length > 1) cost += (lines.length * (runEnd - runStart)) / 2;
    lines = [];
    runStart = -1;
  };
  const n = source.length;
  let lineStart = 0;
  let row = 0;
  // The first NUL at or after the current line's first non-blank (each NUL is found once).
  let nul = source.indexOf("\0");
  while (lineStart < n) {
    let i = lineStart;
    let c = i < n ? source.charCodeAt(i) : 0;
    while (c === 32 || c === 9) c = ++i < n ? source.charCodeAt(i) : 0;
    const nl = c === 35 /* # */ ? source.indexOf("\n", i) : -1;
    const lineEnd = c !== 35 ? -1 : nl < 0 ? n : nl;
    // A NUL ends a comment for the parser: such a line is left to it, like code.
    if (nul >= 0 && nul < i) nul = source.indexOf("\0", i);
    if (c === 35 && (nul < 0 || nul >= lineEnd)) {
      if (lines.length === 0) {
        runInBrackets = brackets.depth > 0;
        runStart = lineStart;
      }
      runEnd = lineEnd;
      const indent = indentOf(source, lineStart, i);
      lines.push({
        start: i,
        indent,
        startRow: row,
        startLineStart: lineStart,
        endRow: row,
        endLineStart: lineStart,
        end: lineEnd,
      });
      lineStart = lineEnd + 1;
      row++;
    } else if (i >= n || c === 10) {
      // A blank line: the scanner reads over it without a decision, so a run goes on across it.
      lineStart = i + 1;
      row++;
    } else {
      // Code (or a line whose indentation holds a form feed or a carriage return, at which the
      // scanner resets its count): it ends the run, and a string in it may take the lines after it.
      const indent = c === 12 || c === 13 || c === 11 ? -1 : indentOf(source, lineStart, i);
      endRun(indent);
      if (brackets.depth === 0) blocks = statementAt(blocks, indent);
      const next = nextCodeLine(source, i, brackets);
      row += linesBetween(source, i, next);
      lineStart = next;
    }
  }
  // At the end of the text the scanner counts the indentation as 0.
  endRun(0);
  return { groups, cost };
}

/** The block stack, changed in place, once a statement indented `indent` starts (Python's own rule), or null. */
function statementAt(blocks: number[] | null, indent: number): number[] | null {
  if (!blocks || indent < 0) return null;
  if (indent > blocks[blocks.length - 1]!) {
    blocks.push(indent);
    return blocks;
  }
  while (blocks.length > 1 && blocks[blocks.length - 1]! > indent) blocks.pop();
  return blocks[blocks.length - 1] === indent ? blocks : null;
}

/**
 * A run's comment lines in groups whose inner line ends the scanner decides nothing at. At a line end
 * before a comment line indented `c`, with the next code line indented `next`, the scanner ends blocks
 * (one DEDENT each) while the innermost block is indented deeper than both; it opens none (INDENT is
 * only made at the line end before the run, for `next`). So a line where blocks end starts a new
 * group, and every other line joins the group before it. In brackets the scanner ends no block, and
 * the run is one group. Without a known block stack (or the next line's indentation), the plain rule:
 * a line joins the group before it when it is indented at least as far as the group's first line
 * (the innermost block is then indented no deeper than that line, or it would have ended before it).
 */
function groupRun(lines: Group[], inBrackets: boolean, blocks: number[] | null, next: number): Group[] {
  const out: Group[] = [];
  const join = (g: Group): void => {
    const open = out.at(-1)!;
    open.endRow = g.endRow;
    open.endLineStart = g.endLineStart;
    open.end = g.end;
  };
  if (inBrackets) {
    out.push({ ...lines[0]! });
    for (const g of lines.slice(1)) join(g);
    return out;
  }
  if (blocks && next >= 0) {
    // (A block the line end before the run opens, for a deeper next line, is never ended in it.)
    const stack = [...blocks];
    for (const [k, g] of lines.entries()) {
      let ended = false;
      while (stack.length > 1 && stack.at(-1)! > next && stack.at(-1)! > g.indent) {
        stack.pop();
        ended = true;
      }
      if (k === 0 || ended) out.push({ ...g });
      else join(g);
    }
    return out;
  }
  for (const g of lines) {
    const open = out.at(-1);
    if (open && g.indent >= open.indent) join(g);
    else out.push({ ...g });
  }
  return out;
}

/**
 * Whether `source` has `MIN_RUN` lines that start with `#` after spaces and tabs, with only blank lines
 * between them: the quick answer for most files. It goes from `#` to `#` with the native `indexOf`,
 * so its cost is the number of `#` in the text, not its length (strings are not followed: a run only
 * in a string still says yes, and `findGroups` then finds no group).
 */
function mayHoldLongRun(source: string): boolean {
  let count = 0;
  // The line end of the last comment line, and whether only blank lines came after it.
  let lastEnd = -1;
  for (let p = source.indexOf("#"); p >= 0; ) {
    let i = p - 1;
    while (i >= 0 && isBlank(source.charCodeAt(i))) i--;
    if (i >= 0 && source.charCodeAt(i) !== 10) {
      p = source.indexOf("#", p + 1); // a `#` after code on its line
      continue;
    }
    // A comment line: it goes on the run when only spaces, tabs and line ends lie before it.
    let k = lastEnd + 1;
    if (lastEnd >= 0) while (k < p && (isBlank(source.charCodeAt(k)) || source.charCodeAt(k) === 10)) k++;
    count = lastEnd >= 0 && k === p ? count + 1 : 1;
    if (count >= MIN_RUN) return true;
    lastEnd = source.indexOf("\n", p);
    if (lastEnd < 0) return false;
    p = source.indexOf("#", lastEnd);
  }
  return false;
}

const isBlank = (c: number): boolean => c === 32 || c === 9;

/**
 * The ranges for `source`, or null when no group is worth hiding (the parser then reads the whole
 * text, as before). Linear in the length of the text.
 */
export function commentRunRanges(source: string): CommentRunRanges | null {
  if (!mayHoldLongRun(source)) return null;
  const kept: CommentGroup[] = [];
  const ranges: Range[] = [];
  let start = 0;
  let startPosition = { row: 0, column: 0 };
  const found = findGroups(source);
  for (const g of found.groups) {
    // The last character stays, whole: two code units when it ends a surrogate pair.
    let last = g.end - 1;
    const c = source.charCodeAt(last);
    if (c >= 0xdc00 && c <= 0xdfff && last - 1 > g.start) {
      const hi = source.charCodeAt(last - 1);
      if (hi >= 0xd800 && hi <= 0xdbff) last--;
    }
    if (last <= g.start + 1) continue;
    kept.push({ start: g.start, last });
    ranges.push({
      startIndex: start,
      endIndex: g.start + 1,
      startPosition,
      endPosition: { row: g.startRow, column: g.start + 1 - g.startLineStart },
    });
    start = last;
    startPosition = { row: g.endRow, column: last - g.endLineStart };
  }
  if (kept.length === 0) return null;
  ranges.push({
    startIndex: start,
    endIndex: 0xffffffff,
    startPosition,
    endPosition: { row: 0xffffffff, column: 0xffffffff },
  });
  return { ranges, groups: kept, plainScanCost: found.cost };
}
