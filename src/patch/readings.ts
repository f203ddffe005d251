/**
 * Readings of <patched>'s indentation. A model's <patched> is often indented in another frame than the
 * file: written from column 0, its first line unindented and the rest absolute, tabs for spaces, a
 * comment pushed to column 0. Each reading maps the columns <patched> was written at to file columns; the
 * caller keeps the readings the parser accepts and that leave unchanged lines in their blocks.
 *
 * The anchor of every reading is the file itself: the indentation of the matched original (for the
 * first line), and how far <patched>'s lines that repeat file lines sit from those lines ("the frame").
 */
import type { TextSyntax } from "../languages/index.ts";
import type { PlanLine } from "./build-edit.ts";
import { columns, type IndentStyle } from "./indent.ts";
import {
  countOffLevel,
  isCommentLine,
  type PlanView,
  type Reading,
  renderPlan,
  stepsOffLevel,
} from "./plan-render.ts";
import { leadingWs } from "./text.ts";
import { modes, openers, spaceUnit } from "./columns.ts";

export { isCommentLine, type Reading };

export interface ReadingSet {
  readings: Reading[];
  /**
   * <patched> as written, when the answer is written in the file's own indentation (or at one offset
   * from it): every line <original> copies sits at its file line's indentation (or at one offset from
   * it, two lines or more) and <patched> starts where <original> does. Then the answer's indentation
   * is its meaning (moved by that offset), and the other readings are only wanted when this one does
   * not parse. Null otherwise.
   */
  own: Reading | null;
  /**
   * Plan lines the edit did not change (their text and their depth relative to the lines around them
   * are the same in <original> and <patched>): these must keep their enclosing blocks.
   */
  unchanged: Set<number>;
}

/**
 * Every distinct reading of <patched>'s indentation for one planned replacement.
 * `fileLines`/`fileEols` are the file; `start..end` the matched region; `origBlock` the <original> lines.
 */
export function readPatched(args: {
  fileLines: readonly string[];
  fileEols: readonly string[];
  start: number;
  end: number;
  plan: readonly PlanLine[];
  patched: readonly string[];
  origBlock: readonly string[];
  /** The file line each <original> line matched (null for a line that matched none). */
  origMap?: readonly (number | null)[];
  style: IndentStyle;
  /** How the file's language writes comments, strings and blocks. */
  syntax: TextSyntax;
}): ReadingSet {
  const { fileLines, fileEols, start, end, plan, patched, style, syntax } = args;
  const unit = style.unit;
  const fcol = (f: number) => columns(fileLines[f]!, unit);
  const blank = (j: number) => patched[j]!.trim() === "";
  const comment = (j: number) => isCommentLine(patched[j]!, syntax);
  const code = (k: number) => plan[k]!.p >= 0 && !blank(plan[k]!.p) && !comment(plan[k]!.p);

  // Column bases: <patched> as written (tabs worth one file level), and, when <patched> is indented
  // with spaces of another width than the file's, scaled to the file's width.
  const bases: { name: string; col: (j: number) => number }[] = [
    { name: "", col: (j) => columns(patched[j]!, unit) },
  ];
  const pUnit = spaceUnit([args.origBlock, patched]);
  const fUnit = style.tabs ? null : style.unit;
  if (pUnit && fUnit && pUnit !== fUnit && style.known) {
    // A line inside brackets opened on an earlier line keeps its offset from that line: only levels
    // are rescaled, not the alignment of continuation lines.
    const opener = openers(patched, syntax);
    const scaled = new Map<number, number>();
    // The file line each line of <patched> repeats, where it repeats one.
    // (A changed line counts as the file line it replaces: its old offset tells alignment from a level.)
    const fileOf = new Map<number, number>();
    for (const pl of plan) {
      if (pl.kind === "aligned" && pl.p >= 0) fileOf.set(pl.p, pl.f);
      else if (pl.kind === "new" && (pl.replaces ?? -1) >= 0) fileOf.set(pl.p, pl.replaces!);
    }
    const col = (j: number): number => {
      const known = scaled.get(j);
      if (known !== undefined) return known;
      // Aligned with the character after the bracket: the offset from the opening line is alignment.
      // A hanging indent (a level in from the opening line) is a level like any other.
      const o = opener[j];
      const own = columns(patched[j]!, unit);
      const ws = leadingWs(patched[o?.line ?? 0]!);
      // A line repeating a file line, under a line repeating one too: the file tells alignment from a
      // level (a four-space level that happens to end under the character after `if (` is a level).
      const fj = fileOf.get(j);
      const fo = o ? fileOf.get(o.line) : undefined;
      // (A bracket that ends its line opens a hanging indent, whatever column it falls on.)
      const aligned =
        o !== null &&
        o !== undefined &&
        o.after < patched[o.line]!.trimEnd().length &&
        own === columns(ws, unit) + o.after - ws.length &&
        (fj === undefined ||
          fo === undefined ||
          fcol(fj) - fcol(fo) === own - columns(patched[o.line]!, unit));
      const c = aligned
        ? col(o.line) + own - columns(patched[o.line]!, unit)
        : Math.round((own * fUnit) / pUnit);
      scaled.set(j, c);
      return c;
    };
    bases.push({ name: ` (levels of ${pUnit} spaces read as ${fUnit})`, col });
  }

  const codeKs = plan.map((_, k) => k).filter(code);
  const firstK = codeKs[0];
  // The anchor: where the first line of the matched original sits in the file.
  let anchor = 0;
  if (firstK !== undefined && plan[firstK]!.kind === "aligned") anchor = fcol(plan[firstK]!.f);
  else if (firstK !== undefined && (plan[firstK]!.replaces ?? -1) >= 0)
    anchor = fcol(plan[firstK]!.replaces!);
  else {
    for (let f = start; f < end; f++) {
      const t = fileLines[f]!;
      if (t.trim() !== "" && !isCommentLine(t, syntax)) {
        anchor = fcol(f);
        break;
      }
    }
  }
  const aligned = codeKs.filter((k) => plan[k]!.kind === "aligned");
  // The code line before and after each plan line.
  const nextCode: (number | undefined)[] = new Array(plan.length + 1).fill(undefined);
  const prevCode: (number | undefined)[] = new Array(plan.length).fill(undefined);
  for (let k = plan.length - 1, nx: number | undefined; k >= 0; k--) {
    nextCode[k] = nx;
    if (code(k)) nx = k;
  }
  for (let k = 0, pv: number | undefined; k < plan.length; k++) {
    prevCode[k] = pv;
    if (code(k)) pv = k;
  }
  const view: PlanView = { fileLines, fileEols, plan, patched, style, syntax, codeKs, prevCode, fcol };
  /**
   * A comment that repeats a file comment moves with the code around it; a new one written left of the
   * code after it (a comment pushed to column 0) takes that code's indentation.
   */
  const firstAny = plan.findIndex((pl) => pl.p >= 0 && !blank(pl.p));
  const placeComments = (
    tg: Map<number, number>,
    c: (k: number) => number,
    rest: number,
    firstAtPlace: boolean,
  ): void => {
    for (let k = 0; k < plan.length; k++) {
      const pl = plan[k]!;
      if (pl.p < 0 || blank(pl.p) || !comment(pl.p)) continue;
      // A comment opening <patched> (the " * ..." line of a block comment, say) in a reading that puts
      // the first line at its place: it keeps the file's column.
      if (k === firstAny && firstAtPlace && pl.kind === "aligned") {
        tg.set(k, fcol(pl.f));
        continue;
      }
      const next = nextCode[k];
      const prev = prevCode[k];
      // A comment speaks about the code after it: written left of that code, it is placed with it.
      const near = next ?? prev;
      if (near !== undefined && c(k) < c(near)) {
        // One the edit keeps moves as the unchanged lines around it do; a new one goes with its code.
        if (pl.kind === "aligned") {
          const ref = [next, prev].find((x) => x !== undefined && unchanged.has(x));
          tg.set(k, fcol(pl.f) + (ref === undefined ? 0 : tg.get(ref)! - fcol(plan[ref]!.f)));
        } else tg.set(k, tg.get(near)!);
      } else tg.set(k, Math.max(0, c(k) + rest));
    }
  };

  const readings: Reading[] = [];
  const seen = new Set<string>();
  const unchanged = new Set<number>();
  let rank = 0;
  // Every line that repeats a file line votes for the frame <patched> was written in, comments too.
  const voters = plan.map((_, k) => k).filter((k) => plan[k]!.kind === "aligned" && !blank(plan[k]!.p));
  // Without a repeated line besides the first, the changed lines vote instead, each against the line
  // it replaces: a changed line usually keeps the indentation of the line it replaces.
  const replacers = codeKs.filter(
    (k) => k !== firstK && plan[k]!.kind === "new" && (plan[k]!.replaces ?? -1) >= 0,
  );
  const frameOf = (base: (typeof bases)[number]) => {
    const d = (k: number) => base.col(plan[k]!.p) - fcol(plan[k]!.f);
    let frame = modes(voters.map(d));
    if (voters.every((k) => k === firstK) && replacers.length > 0) {
      const dr = (k: number) => base.col(plan[k]!.p) - fcol(plan[k]!.replaces!);
      frame = modes([...voters.map(d), ...replacers.map(dr)]);
    }
    // On a tie, lines sitting exactly where the file has them say <patched> is in the file's frame.
    if (frame.length > 1 && frame.includes(0)) frame = [0];
    // Only the first line repeats a file line, and it sits at column 0 where the file indents it: a
    // first line copied without its indentation when no other line of <patched> is left of the anchor.
    if (
      firstK !== undefined &&
      voters.length === 1 &&
      voters[0] === firstK &&
      base.col(plan[firstK]!.p) === 0 &&
      anchor > 0 &&
      codeKs.every((k) => k === firstK || base.col(plan[k]!.p) >= anchor)
    )
      frame = [0];
    const support = voters.filter((k) => frame.includes(d(k))).length;
    return { d, frame, support };
  };
  // The lines the edit did not change are those of the column base that explains most lines.
  const frames = bases.map(frameOf);
  // Most lines explained; then lines sitting exactly at their file columns; then as written.
  let preferred = 0;
  frames.forEach((f, i) => {
    const p = frames[preferred]!;
    if (f.support > p.support || (f.support === p.support && f.frame.includes(0) && !p.frame.includes(0)))
      preferred = i;
  });
  // Lines that sit exactly at the file's columns once rescaled, where as written they are all shifted,
  // say <patched> was written with another width; the lines the model moved (into a new block, say) are
  // then those off in the rescaled base, not the ones it left in place.
  if (preferred === 0 && frames.length > 1 && fUnit) {
    const scaled = frames[1]!;
    const own = frames[0]!;
    if (scaled.frame.includes(0) && !own.frame.includes(0)) preferred = 1;
  }
  // <original> itself says which width it was written in: its lines sit at one offset from the file
  // lines they matched once rescaled, where as written they do not (a changed line whose <original>
  // sits a level deeper than its file line, in an edit whose other lines are at the top level).
  if (preferred === 0 && frames.length > 1 && fUnit && pUnit && args.origMap) {
    const pairs: [string, number][] = [];
    args.origMap.forEach((f, i) => {
      const text = args.origBlock[i];
      if (
        f !== null &&
        f !== undefined &&
        text !== undefined &&
        text.trim() !== "" &&
        !isCommentLine(text, syntax)
      )
        pairs.push([text, f]);
    });
    const oneOffset = (col: (text: string) => number) =>
      new Set(pairs.map(([text, f]) => col(text) - fcol(f))).size === 1;
    const written = (text: string) => columns(text, unit);
    const rescaled = (text: string) => Math.round((columns(text, unit) * fUnit) / pUnit);
    // Only an <original> written consistently in the answer's width says so: indentation noise (a line
    // one column off) is not a width.
    const inWidth = pUnit >= 2 && pairs.every(([text]) => columns(text, unit) % pUnit === 0);
    if (inWidth && pairs.length > 1 && oneOffset(rescaled) && !oneOffset(written)) preferred = 1;
  }
  const best = frames[preferred]!;
  for (const k of aligned) if (best.frame.includes(best.d(k))) unchanged.add(k);
  if (firstK !== undefined && plan[firstK]!.kind === "aligned") unchanged.add(firstK);
  for (const [bi, base] of bases.entries()) {
    const c = (k: number) => base.col(plan[k]!.p);
    const { frame } = frames[bi]!;
    const shifts: { name: string; first: number | null; rest: number }[] = [];
    if (firstK !== undefined) {
      const firstShift = anchor - c(firstK);
      shifts.push({ name: "relative to its first line", first: null, rest: firstShift });
      for (const m of frame) {
        shifts.push({ name: "relative to the lines it repeats", first: null, rest: -m });
        shifts.push({
          name: "first line at its place, the rest relative to the lines it repeats",
          first: anchor,
          rest: -m,
        });
      }
      shifts.push({ name: "first line at its place, the rest as written", first: anchor, rest: 0 });
    }
    shifts.push({ name: "as written", first: null, rest: 0 });
    for (const s of shifts) {
      const target = new Map<number, number>();
      let bad = false;
      for (const k of codeKs) {
        let t = k === firstK && s.first !== null ? s.first : c(k) + s.rest;
        // A line at column 0 in the answer and in the file (the end of a string's text, say) is at
        // column 0 in any frame: moved left of it, it stays.
        if (t < 0 && c(k) === 0 && plan[k]!.kind === "aligned" && fcol(plan[k]!.f) === 0) t = 0;
        if (t < 0) bad = true;
        target.set(k, t);
      }
      if (bad) continue;
      placeComments(target, c, s.rest, s.first !== null);
      const built = renderPlan(view, target);
      if (!built) continue;
      const key = built.lines.join("\n");
      if (seen.has(key)) continue;
      seen.add(key);
      let displaced = 0;
      for (const k of unchanged) if (target.get(k) !== fcol(plan[k]!.f)) displaced++;
      // A first line of its own (the changed first line) belongs where the line it replaces was.
      if (firstK !== undefined && !unchanged.has(firstK) && target.get(firstK) !== anchor) displaced++;
      let moved = 0;
      for (const k of voters) if (target.get(k) !== fcol(plan[k]!.f)) moved++;
      const offLevel = bases.length > 1 && fUnit ? countOffLevel(view, target, fUnit) : 0;
      const fit = frame.some((m) => -m === s.rest) ? 0 : 1;
      readings.push({
        name: s.name + base.name,
        ...built,
        displaced,
        moved,
        offLevel,
        base: bi === preferred ? 0 : 1,
        fit,
        rank: rank++,
      });
    }
  }
  return { readings, unchanged, own: ownReading() };

  /**
   * <patched> as written, when the answer shows it is written in the file's indentation: every line of
   * <original> that matched a file line has that line's leading whitespace (or sits at one offset from
   * it: <patched> is then moved by that offset), and <patched>'s first code line starts at the column of
   * <original>'s. A new comment written left of the code after it (pushed
   * to column 0) still goes with that code; every other line keeps the column it was written at, and a
   * new line whose indentation is already in the file's style keeps it character for character.
   */
  function ownReading(): Reading | null {
    const none = null;
    const map = args.origMap;
    if (!map) return none;
    // The one offset every line <original> copies sits at from its file line (0: the file's own
    // indentation). Read from one line only, an offset says nothing about the lines after it.
    let shift: number | null = null;
    let copied = 0;
    let sameWs = true;
    for (let i = 0; i < args.origBlock.length; i++) {
      const f = map[i];
      const t = args.origBlock[i]!;
      if (f === null || f === undefined || t.trim() === "") continue;
      const d = fcol(f) - columns(t, unit);
      if (shift !== null && d !== shift) return none;
      shift = d;
      copied++;
      if (leadingWs(t) !== leadingWs(fileLines[f]!)) sameWs = false;
    }
    const by = shift ?? 0;
    if (!sameWs && copied < 2) return none;
    // <patched> starts where <original> does, at its first line and at its first line of code.
    const col = (l: string | undefined) => (l === undefined ? null : columns(l, unit));
    const nonBlank = (ls: readonly string[]) => ls.find((l) => l.trim() !== "");
    const firstCode = (ls: readonly string[]) => ls.find((l) => l.trim() !== "" && !isCommentLine(l, syntax));
    const pCode = firstCode(patched);
    const oCode = firstCode(args.origBlock);
    if (col(nonBlank(patched)) !== col(nonBlank(args.origBlock))) return none;
    if (pCode !== undefined && oCode !== undefined && col(pCode) !== col(oCode)) return none;
    const written = (k: number) => columns(patched[plan[k]!.p]!, unit);
    // <patched> placed at the offset <original> was found at.
    const c = (k: number) => written(k) + by;
    const target = new Map<number, number>();
    for (const k of codeKs) {
      if (c(k) < 0) return none;
      target.set(k, c(k));
    }
    for (let k = 0; k < plan.length; k++) {
      const pl = plan[k]!;
      if (pl.p < 0 || blank(pl.p) || !comment(pl.p)) continue;
      // A comment pushed to column 0 among indented code: one the file has goes back to its column, a
      // new one goes with the code after it (or before it, at the end).
      const near = nextCode[k] ?? prevCode[k];
      let t = Math.max(0, c(k));
      const replaced = pl.kind === "new" ? (pl.replaces ?? -1) : -1;
      if (written(k) === 0 && pl.kind === "aligned") t = fcol(pl.f);
      else if (written(k) === 0 && near !== undefined && (replaced < 0 || fcol(replaced) > 0)) t = c(near);
      target.set(k, t);
    }
    // New lines written in another indentation width than the file's (a two-space body in a four-space
    // file): the answer's indentation differs from the file's after all, and the readings decide.
    if (bases.length > 1 && fUnit && stepsOffLevel(view, target, fUnit)) return none;
    const built = renderPlan(view, target, true);
    if (!built) return none;
    let displaced = 0;
    for (const k of unchanged) if (target.get(k) !== fcol(plan[k]!.f)) displaced++;
    let moved = 0;
    for (const k of voters) if (target.get(k) !== fcol(plan[k]!.f)) moved++;
    return {
      name:
        by === 0
          ? "as written"
          : `as written, shifted ${Math.abs(by)} columns ${by > 0 ? "right" : "left"} as <original> is`,
      ...built,
      displaced,
      moved,
      offLevel: 0,
      base: 0,
      fit: 0,
      rank: -1,
    };
  }
}
