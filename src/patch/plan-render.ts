/**
 * Writing a reading of <patched> into file lines, and how far its new lines stray from the file's
 * levels. A reading is a target column for each code line of the plan (build-edit.ts).
 */
import type { PlanLine } from "./build-edit.ts";
import { stringLines } from "./columns.ts";
import { columns, type IndentStyle, render } from "./indent.ts";
import type { TextSyntax } from "../languages/index.ts";
import { leadingWs } from "./text.ts";

/** One reading of <patched>'s indentation, as written into the file, with what it costs. */
export interface Reading {
  /** How <patched> was read, for messages: "relative to its first line", ... */
  name: string;
  /** The replacement lines and their endings (undefined: the file's line ending). */
  lines: string[];
  eols: (string | undefined)[];
  /** Lines the model left unchanged that this reading moves off their file column. */
  displaced: number;
  /** Lines repeating a file line (moved by the model or not) that this reading puts off their file column. */
  moved: number;
  /**
   * When <patched> may be written with another indentation width than the file's: how many of its new
   * lines this reading puts off the file's levels (a column that is not a whole number of the file's
   * levels, or a step in deeper than exactly one level). 0 when only one width is in play.
   */
  offLevel: number;
  /** 0 when read in the column base that explains <patched> best (as written, or rescaled), else 1. */
  base: number;
  /** 0 when the lines after the first are shifted as the frame of <patched> says, else 1. */
  fit: number;
  /** The order the reading was generated in (first is preferred on ties). */
  rank: number;
}

export function isCommentLine(text: string, syntax: TextSyntax): boolean {
  const t = text.trimStart();
  if (syntax.lineComments.some((c) => t.startsWith(c))) return true;
  // A block comment's first line, or one of its ` * ` lines (not `*ptr = 0;`).
  return syntax.blockComment !== null && (t.startsWith(syntax.blockComment[0]) || /^\*(\s|\/|$)/.test(t));
}

/** Does a line ending in `text` open a block (`{`, Python's `:`)? */
const opensBlock = (text: string, syntax: TextSyntax): boolean =>
  syntax.blockOpeners.some((o) => text.endsWith(o));

/** The plan and the file a reading is written against. */
export interface PlanView {
  fileLines: readonly string[];
  fileEols: readonly string[];
  plan: readonly PlanLine[];
  patched: readonly string[];
  style: IndentStyle;
  /** How the file's language writes comments, strings and blocks. */
  syntax: TextSyntax;
  /** The plan lines holding code (not blank, not a comment). */
  codeKs: readonly number[];
  /** The code plan line before each plan line. */
  prevCode: readonly (number | undefined)[];
  /** A file line's indentation in columns. */
  fcol: (f: number) => number;
}

/** The lines of each <patched> that start inside a multi-line string (columns.ts `stringLines`). */
const stringLinesOf = new WeakMap<readonly string[], ReadonlySet<number>>();

function inStrings(v: PlanView): ReadonlySet<number> {
  let set = stringLinesOf.get(v.patched);
  if (!set) {
    set = stringLines(v.patched, v.syntax);
    stringLinesOf.set(v.patched, set);
  }
  return set;
}

/**
 * New or moved lines of <patched> that a reading puts off the file's levels: at a column that is not a multiple
 * of the file's width, or, after a line that opens a block, deeper by anything but one level. A reading
 * in the answer's own width when that differs from the file's shows up here (a block body two spaces
 * in, in a four-space file), so the diff would reformat rather than only change the code.
 */
export function countOffLevel(v: PlanView, target: Map<number, number>, width: number): number {
  const { plan, patched, syntax, codeKs, prevCode, fcol } = v;
  let n = 0;
  for (const k of codeKs) {
    const t = target.get(k)!;
    // A line repeating a file line and left at its file column keeps the file's own layout.
    if (plan[k]!.kind === "aligned" && t === fcol(plan[k]!.f)) continue;
    const prev = prevCode[k];
    const prevText = prev === undefined ? "" : patched[plan[prev]!.p]!.trimEnd();
    // A continuation line (after an open bracket, a comma, an operator) may be aligned anywhere.
    if (/[([,\\+\-*/%=&|?.]$/.test(prevText)) continue;
    const before = prev === undefined ? null : target.get(prev)!;
    const opens = opensBlock(prevText, syntax);
    if (t % width !== 0 || (opens && before !== null && t > before && t - before !== width)) n++;
  }
  return n;
}

/**
 * Whether a new or moved line of <patched> steps in from the code line before it by other than whole
 * levels of the file (a two-space body under a new `if` in a four-space file). Continuation lines are
 * free to align anywhere.
 */
export function stepsOffLevel(v: PlanView, target: Map<number, number>, width: number): boolean {
  const { plan, patched, syntax, codeKs, prevCode, fcol } = v;
  for (const k of codeKs) {
    const t = target.get(k)!;
    // A line left at its file column, or a changed line at the column of the line it replaces,
    // keeps the file's own layout, whatever its step.
    if (plan[k]!.kind === "aligned" && t === fcol(plan[k]!.f)) continue;
    const replaced = plan[k]!.replaces ?? -1;
    if (plan[k]!.kind === "new" && replaced >= 0 && t === fcol(replaced)) continue;
    const prev = prevCode[k];
    if (prev === undefined) continue;
    const prevText = patched[plan[prev]!.p]!.trimEnd();
    if (/[([,\\+\-*/%=&|?.]$/.test(prevText)) continue;
    const before = target.get(prev)!;
    const opens = opensBlock(prevText, syntax);
    if (t > before && (opens ? t - before !== width : (t - before) % width !== 0)) return true;
  }
  return false;
}

export function renderPlan(
  v: PlanView,
  target: Map<number, number>,
  asWritten = false,
): { lines: string[]; eols: (string | undefined)[] } | null {
  const { plan, patched, fileLines, fileEols, style, fcol } = v;
  const unit = style.unit;
  // Lines inside a multi-line string keep their text: the file's where the answer repeats it.
  const inString = inStrings(v);
  const blank = (j: number) => patched[j]!.trim() === "";
  // Indentation in the file's own characters (tabs then alignment spaces, or spaces only).
  const inStyle = (ws: string) =>
    style.tabs ? /^\t* *$/.test(ws) && ws.length - ws.replace(/ +$/, "").length < unit : /^ *$/.test(ws);
  const lines: string[] = [];
  const eols: (string | undefined)[] = [];
  for (let k = 0; k < plan.length; k++) {
    const pl = plan[k]!;
    if (pl.kind === "file" || (pl.kind === "aligned" && blank(pl.p))) {
      lines.push(fileLines[pl.f]!);
      eols.push(fileEols[pl.f]);
      continue;
    }
    const text = patched[pl.p]!;
    if (text.trim() === "") {
      lines.push("");
      eols.push(undefined);
      continue;
    }
    if (inString.has(pl.p)) {
      // The string's own text: the file's line where the answer repeats it, else the answer's.
      lines.push(pl.kind === "aligned" && fileLines[pl.f]!.trim() === text.trim() ? fileLines[pl.f]! : text);
      eols.push(pl.kind === "aligned" ? fileEols[pl.f] : undefined);
      continue;
    }
    const t = target.get(k)!;
    const ws = leadingWs(text);
    const written = asWritten && t === columns(text, unit) && inStyle(ws);
    if (pl.kind === "aligned") {
      const own = fileLines[pl.f]!;
      if (t === fcol(pl.f)) lines.push(own);
      else lines.push((written ? ws : render(t, style)) + own.slice(leadingWs(own).length));
      eols.push(fileEols[pl.f]);
      continue;
    }
    const body = text.slice(ws.length);
    // A file without indented lines has no style to follow: an unshifted line keeps its own.
    if (written || (!style.known && t === columns(text, unit))) lines.push(text);
    else lines.push(render(t, style) + body);
    eols.push(undefined);
  }
  return { lines, eols };
}
