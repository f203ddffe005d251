/**
 * Builds the replacement for one located edit: lines the model kept come from the file verbatim, lines
 * it changed or added are re-indented by each indentation guess, giving candidates for the syntax check.
 */
import { isPlaceholder } from "./cleanup.ts";
import { type DiffOp, diffSeq } from "./diff.ts";
import { columns, type IndentStyle, reindent } from "./indent.ts";
import type { Located } from "./locate.ts";
import type { FileText } from "./text.ts";

export interface Candidate {
  /** Short name of the indentation guess. */
  guess: string;
  lines: string[];
  /** Line endings of kept file lines (undefined for new lines). */
  eols: (string | undefined)[];
}

export type BuildResult =
  | { ok: true; candidates: Candidate[]; placeholdersKept: number }
  | { ok: false; kind: "placeholder" | "near-changed"; message: string };

const squash = (s: string) => s.trim().replace(/\s+/g, " ");

function mode(values: number[]): number | null {
  if (values.length === 0) return null;
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0]!;
  let bestN = 0;
  for (const v of values) {
    const c = counts.get(v)!;
    if (c > bestN) {
      best = v;
      bestN = c;
    }
  }
  return best;
}

type Op = "keep" | "delete";

interface Entry {
  /** Model-space text (the <original> line, or "" for a blank line the model left out). */
  text: string;
  fileIdx: number;
  /** Index into <original>, or -1 for a file line <original> left out (blank lines, elided code). */
  origIdx: number;
}

const GAP = "\u0000gap";

export function buildEdit(
  ft: FileText,
  loc: Extract<Located, { kind: "found" }>,
  orig: readonly string[],
  patchedIn: readonly string[],
  style: IndentStyle,
): BuildResult {
  // <original> blank lines the file lacks, repeated in <patched>, are dropped from <patched> too.
  const phantom = new Set<number>();
  for (const op of diffSeq(orig, patchedIn)) {
    if (op.kind === "equal" && loc.map[op.a] === null && orig[op.a]!.trim() === "") phantom.add(op.b);
  }
  const patched = toOriginalFrame(
    ft,
    loc,
    orig,
    patchedIn.filter((_, j) => !phantom.has(j)),
    style,
  );
  // The region as the model would have written it: every file line, in the model's text where known.
  const origOf = new Map<number, number>();
  loc.map.forEach((f, i) => {
    if (f !== null) origOf.set(f, i);
  });
  const entries: Entry[] = [];
  for (let f = loc.start; f < loc.end; f++) {
    const i = origOf.get(f);
    if (i !== undefined) entries.push({ text: orig[i]!, fileIdx: f, origIdx: i });
    else entries.push({ text: ft.lines[f]!.trim() === "" ? "" : GAP, fileIdx: f, origIdx: -1 });
  }
  const n = entries.length;
  const ops = diffSeq(
    entries.map((e) => e.text),
    patched,
  );
  const oOp: Op[] = entries.map(() => "keep");
  const insertsBefore = new Map<number, number[]>();
  let placeholdersKept = 0;
  let k = 0;
  let oPos = 0;
  while (k < ops.length) {
    const op = ops[k]!;
    if (op.kind === "equal") {
      oPos = op.a + 1;
      k++;
      continue;
    }
    const hunk: DiffOp[] = [];
    while (k < ops.length && ops[k]!.kind !== "equal") hunk.push(ops[k++]!);
    const dels = hunk.filter((h) => h.kind === "delete").map((h) => (h as { a: number }).a);
    const ins = hunk.filter((h) => h.kind === "insert").map((h) => (h as { b: number }).b);
    const ph = ins.filter((b) => isPlaceholder(patched[b]!));
    const real = ins.filter((b) => !isPlaceholder(patched[b]!));
    // A placeholder next to code <original> also left out (its own placeholder): the code stays.
    if (ph.length > 0 && dels.some((a) => entries[a]!.text === GAP)) placeholdersKept += ph.length;
    else if (ph.length > 0 && dels.some((a) => entries[a]!.origIdx >= 0)) {
      if (real.length > 0) {
        return {
          ok: false,
          kind: "placeholder",
          message: `the placeholder line "${patched[ph[0]!]!.trim()}" in <patched> stands among changed lines, so it is unclear which original lines it keeps. Write out the code in full instead of the placeholder.`,
        };
      }
      // Only a placeholder where the original had lines: "keep these lines".
      placeholdersKept += ph.length;
      continue;
    }
    const delSet = new Set(dels);
    // A file line <original> left out is deleted only inside a block of deleted lines: the nearest
    // lines <original> does have, on both sides, are deleted too.
    const realDeleted = (a: number, step: number): boolean => {
      for (let x = a + step; x >= 0 && x < n; x += step) {
        if (entries[x]!.text === GAP) return false;
        if (entries[x]!.origIdx >= 0) return delSet.has(x);
        if (!delSet.has(x)) return false;
      }
      return false;
    };
    for (const a of dels) {
      const e = entries[a]!;
      if (e.text === GAP) continue;
      if (e.origIdx < 0 && !(realDeleted(a, -1) && realDeleted(a, 1))) continue;
      oOp[a] = "delete";
    }
    // New lines go where the first line they replace was, after any blank lines <original> left out.
    const at = dels.find((a) => oOp[a] === "delete") ?? dels[0] ?? oPos;
    const list = insertsBefore.get(at) ?? [];
    list.push(...real);
    insertsBefore.set(at, list);
    if (dels.length > 0) oPos = dels.at(-1)! + 1;
  }
  for (const nd of loc.near) {
    const a = entries.findIndex((e) => e.origIdx === nd.origIndex);
    if (a >= 0 && oOp[a] === "delete") {
      return {
        ok: false,
        kind: "near-changed",
        message: `line ${nd.origIndex + 1} of <original>, "${orig[nd.origIndex]!.trim()}", is not in the file; it reads "${ft.lines[nd.fileIndex]!.trim()}" (line ${nd.fileIndex + 1}). Copy that line exactly into <original> and write the change against it.`,
      };
    }
  }

  // Indentation anchors: <patched> lines equal (whitespace aside) to an original line found in the file.
  const unit = style.unit;
  const col = (s: string) => columns(s, unit);
  const sOps = diffSeq(
    entries.map((e) => squash(e.text)),
    patched.map(squash),
  );
  // Lines <patched> repeats exactly are the strongest anchors; lines equal but for whitespace come next
  // (<patched> written at a different base indentation than <original>).
  const exactAnchor = new Map<number, number>();
  for (const op of ops) {
    if (op.kind !== "equal") continue;
    const e = entries[op.a]!;
    if (e.origIdx < 0 || e.text.trim() === "") continue;
    exactAnchor.set(op.b, col(ft.lines[e.fileIdx]!) - col(patched[op.b]!));
  }
  const looseAnchor = new Map<number, number>();
  for (const op of sOps) {
    if (op.kind !== "equal") continue;
    const e = entries[op.a]!;
    if (e.origIdx < 0 || squash(e.text) === "") continue;
    looseAnchor.set(op.b, col(ft.lines[e.fileIdx]!) - col(patched[op.b]!));
  }
  // The first line is often copied with a different indentation than the rest (seed guess 2): when other
  // lines anchor the block, the first one does not vote.
  const firstPi = patched.findIndex((l) => l.trim() !== "");
  const otherMapped = entries.some(
    (e) => e.origIdx > orig.findIndex((l) => l.trim() !== "") && e.text.trim() !== "",
  );
  for (const m of [exactAnchor, looseAnchor]) if (otherMapped && m.has(firstPi)) m.delete(firstPi);
  // How far the model's frame is from the file's, over the lines of <original> other than the first
  // (which is often copied with a different indentation, seed guess 2).
  const firstOi = orig.findIndex((l) => l.trim() !== "");
  const origDeltas: number[] = [];
  let firstOrigDelta: number | null = null;
  for (const e of entries) {
    if (e.origIdx < 0 || e.text.trim() === "") continue;
    const d = col(ft.lines[e.fileIdx]!) - col(e.text);
    if (e.origIdx === firstOi) firstOrigDelta = d;
    else origDeltas.push(d);
  }
  if (origDeltas.length === 0 && firstOrigDelta !== null) origDeltas.push(firstOrigDelta);
  const firstDelta = firstPi >= 0 ? col(ft.lines[loc.start] ?? "") - col(patched[firstPi]!) : 0;
  const exactMode = mode([...exactAnchor.values()]);
  const looseMode = mode([...looseAnchor.values()]);
  const origMode = mode(origDeltas);
  // The vote over <patched> lines that match file lines: exact repeats count double, so a line the
  // model re-indented on purpose (moved into a new block) does not outvote the unchanged ones.
  const weighted: number[] = [];
  for (const [j, d] of looseAnchor) weighted.push(d, ...(exactAnchor.get(j) === d ? [d] : []));
  const anchorMode = mode(weighted);
  const nearest = (anchors: Map<number, number>, fallback: number) => {
    const sorted = [...anchors.keys()].sort((a, b) => a - b);
    return (j: number): number => {
      let best: number | undefined;
      for (const a of sorted) {
        if (a < j) best = a;
        else break;
      }
      if (best === undefined) best = sorted.find((a) => a > j);
      return best === undefined ? fallback : anchors.get(best)!;
    };
  };
  const guesses: { guess: string; delta: (j: number) => number }[] = [];
  // Lines <patched> repeats exactly say best how the model's frame sits in the file; then <original>'s
  // lines when they agree; lines equal but for whitespace only after that (a line the model moved into
  // a new block says nothing about the frame).
  const origAgree = origMode !== null && origDeltas.every((d) => d === origMode);
  if (exactMode !== null) guesses.push({ guess: "relative to the unchanged lines", delta: () => exactMode });
  if (origAgree) guesses.push({ guess: "relative to <original>", delta: () => origMode });
  if (anchorMode !== null) guesses.push({ guess: "relative to the matched lines", delta: () => anchorMode });
  if (origMode !== null) guesses.push({ guess: "relative to <original>", delta: () => origMode });
  if (exactMode !== null) {
    guesses.push({ guess: "relative to the nearest unchanged line", delta: nearest(exactAnchor, exactMode) });
  }
  if (looseMode !== null) {
    guesses.push({ guess: "relative to the nearest matched line", delta: nearest(looseAnchor, looseMode) });
  }
  guesses.push({ guess: "as written from line 2", delta: () => 0 });
  guesses.push({ guess: "relative to the first line", delta: () => firstDelta });
  // The first line of <patched>, copied with the same odd indentation as the first of <original>, takes
  // that line's own correction.
  const firstArtifact =
    origMode !== null &&
    firstOrigDelta !== null &&
    firstOrigDelta !== origMode &&
    firstPi >= 0 &&
    col(patched[firstPi]!) === col(orig[firstOi]!);
  const deltaOf = (g: { delta: (j: number) => number }, j: number) =>
    firstArtifact && j === firstPi && firstOrigDelta !== null ? firstOrigDelta : g.delta(j);

  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  for (const g of guesses) {
    const lines: string[] = [];
    const eols: (string | undefined)[] = [];
    const emitInserts = (at: number) => {
      for (const j of insertsBefore.get(at) ?? []) {
        lines.push(reindent(patched[j]!, deltaOf(g, j), style));
        eols.push(undefined);
      }
    };
    for (let a = 0; a < n; a++) {
      emitInserts(a);
      if (oOp[a] === "keep") {
        const f = entries[a]!.fileIdx;
        lines.push(ft.lines[f]!);
        eols.push(ft.eols[f]);
      }
    }
    emitInserts(n);
    const key = lines.join("\n");
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push({ guess: g.guess, lines, eols });
  }
  return { ok: true, candidates, placeholdersKept };
}

/**
 * When <original> is written at another base indentation than <patched>, and <patched> sits at the
 * file's own indentation (original dedented, patched copied absolutely), <patched> is shifted into
 * <original>'s frame first; otherwise a closing bracket at one depth would pair with one at another.
 */
function toOriginalFrame(
  ft: FileText,
  loc: Extract<Located, { kind: "found" }>,
  orig: readonly string[],
  patched: string[],
  style: IndentStyle,
): string[] {
  const col = (s: string) => columns(s, style.unit);
  const pairs: { o: number; p: number }[] = [];
  for (const op of diffSeq(orig.map(squash), patched.map(squash))) {
    if (op.kind === "equal" && orig[op.a]!.trim() !== "" && loc.map[op.a] !== null)
      pairs.push({ o: op.a, p: op.b });
  }
  if (pairs.length === 0) return patched;
  const shifts = pairs.map(({ o, p }) => col(patched[p]!) - col(orig[o]!));
  const d = mode(shifts);
  if (d === null || d === 0) return patched;
  const agreeing = pairs.filter(
    ({ o, p }, i) => shifts[i] === d && col(patched[p]!) === col(ft.lines[loc.map[o]!]!),
  );
  // At least half the pairs must sit exactly where the file has them: lines the model moved into a new
  // block on purpose are the rest.
  if (agreeing.length * 2 < pairs.length) return patched;
  // A shift that would push a line left of column 0 is not a frame difference.
  if (patched.some((l) => l.trim() !== "" && col(l) - d < 0)) return patched;
  return patched.map((l) => {
    if (l.trim() === "") return l;
    const own: IndentStyle = { tabs: l.startsWith("\t"), unit: style.unit, known: true };
    return reindent(l, -d, own);
  });
}
