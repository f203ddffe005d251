/**
 * Plans the replacement for one located edit: which file lines stay, which <patched> lines repeat a file
 * line and which are new. Text only: the indentation of the <patched> lines is chosen afterwards
 * (readings.ts), by trying each plausible reading of it.
 */
import { isPlaceholder as isGap } from "./cleanup.ts";
import { type DiffOp, diffSeq } from "./diff.ts";
import type { Located } from "./locate.ts";
import type { FileText } from "./text.ts";

/**
 * One line of the replacement: a file line kept as it is, a <patched> line that repeats a file line
 * (indentation aside: which indentation it gets is the readings' decision), or a line of <patched> alone.
 */
export interface PlanLine {
  kind: "file" | "aligned" | "new";
  /** File line (for "file" and "aligned"), else -1. */
  f: number;
  /** <patched> line (for "aligned" and "new"), else -1. */
  p: number;
  /** For a "new" line that takes the place of a changed file line: that line; else -1 or absent. */
  replaces?: number;
}

export type BuildResult =
  | { ok: true; plan: PlanLine[]; patched: string[]; placeholdersKept: number }
  | { ok: false; kind: "placeholder" | "near-changed"; message: string };

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
  /** Which lines of <patched> stand for code left out (placeholders). */
  isPlaceholder: (line: string) => boolean = isGap,
): BuildResult {
  const phantom = phantomBlanks(orig, patchedIn, loc.map);
  const patched = patchedIn.filter((_, j) => !phantom.has(j));
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
  // Lines pair by their text without indentation: how a line is indented is decided separately.
  const ops = diffSeq(
    entries.map((e) => (e.text === GAP ? GAP : e.text.trim())),
    patched.map((l) => l.trim()),
  );
  const alignedTo = new Map<number, number>();
  for (const op of ops) if (op.kind === "equal") alignedTo.set(op.a, op.b);
  const oOp: Op[] = entries.map(() => "keep");
  const insertsBefore = new Map<number, number[]>();
  const replaces = new Map<number, number>();
  let placeholdersKept = 0;
  // A placeholder that stands where <original> has no line keeps nothing; when the answer also drops
  // original lines without replacing them, the placeholder may have meant those lines (the diff paired
  // a repeated line such as "}" with the wrong occurrence), so the edit is not applied.
  let strayPlaceholder: string | null = null;
  let deletedOnly: string | null = null;
  // Lines the edit drops and lines it adds, by text: a line in both was moved, or paired wrongly.
  const droppedText = new Map<string, string>();
  const addedText = new Set<string>();
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
      // Only a placeholder where the original had lines: "keep these lines". Which lines, though, is
      // only clear when the line next to it occurs once in <original>: after a "}" that <original> has
      // three times, the placeholder could stand for the lines after any of them.
      for (const b of ph) {
        const near = [
          patched.slice(0, b).findLast((l) => l.trim() !== ""),
          patched.slice(b + 1).find((l) => l.trim() !== ""),
        ];
        for (const l of near) {
          if (l === undefined || isPlaceholder(l)) continue;
          const times = orig.filter((o) => o.trim() === l.trim()).length;
          if (times > 1) {
            return {
              ok: false,
              kind: "placeholder",
              message: `the placeholder line "${patched[b]!.trim()}" in <patched> is next to "${l.trim()}", which <original> has ${times} times, so it is unclear which original lines the placeholder keeps. Write out the code in full instead of the placeholder.`,
            };
          }
        }
      }
      placeholdersKept += ph.length;
      continue;
    }
    if (ph.length > 0 && dels.length === 0) strayPlaceholder ??= patched[ph[0]!]!.trim();
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
    // New lines go where the first line they replace was. Between blank lines <original> left out and
    // nothing replaced, they go before those blank lines, unless they belong to the code after them: a
    // comment, or a line indented like the next line and less than the previous one.
    let at = dels.find((a) => oOp[a] === "delete") ?? dels[0] ?? oPos;
    if (real.length > 0 && dels.length > 0 && dels.every((a) => oOp[a] !== "delete")) {
      const first = patched[real[0]!]!;
      const prevP = patched.slice(0, real[0]!).findLast((l) => l.trim() !== "");
      const nextP = patched.slice(real.at(-1)! + 1).find((l) => l.trim() !== "");
      const w = (l: string) => l.length - l.trimStart().length;
      const comment = /^\s*(#|\/\/)/.test(first);
      // A closing bracket ends the code before it.
      const closes = /^\s*[}\])]/.test(first);
      // A line opening a block whose body follows belongs with that body.
      const opens = nextP !== undefined && /[:{]\s*$/.test(first) && w(nextP) > w(first) && real.length === 1;
      const withNext =
        !closes &&
        nextP !== undefined &&
        (opens || (w(first) === w(nextP) && (comment || (prevP !== undefined && w(first) < w(prevP)))));
      if (withNext) at = dels.at(-1)! + 1;
    }
    const list = insertsBefore.get(at) ?? [];
    for (const b of real) list.push(b);
    insertsBefore.set(at, list);
    // The lines of a hunk replace its deleted lines in order: a changed line keeps its identity.
    const gone = dels.filter((a) => oOp[a] === "delete" && entries[a]!.origIdx >= 0);
    for (const a of gone) droppedText.set(entries[a]!.text.trim(), orig[entries[a]!.origIdx]!);
    for (const b of real) addedText.add(patched[b]!.trim());
    if (real.length === 0 && ph.length === 0 && gone.length > 0)
      deletedOnly ??= orig[entries[gone[0]!]!.origIdx]!;
    // Each changed line takes the place of the removed line it resembles: with a statement added above
    // a rewritten block header, the new header replaces the old one, not the added statement.
    const goneText = gone.map((a) => orig[entries[a]!.origIdx]!);
    for (const [i, j] of pairInOrder(
      real.map((b) => patched[b]!),
      goneText,
    ))
      replaces.set(real[i]!, entries[gone[j]!]!.fileIdx);
    if (dels.length > 0) oPos = dels.at(-1)! + 1;
  }
  // A placeholder that keeps nothing, in an edit that drops a line only to add it again elsewhere: the
  // diff may have paired a repeated line (a "}") with the wrong occurrence, and the placeholder meant
  // the lines it now drops.
  if (strayPlaceholder !== null && deletedOnly === null) {
    const moved = [...droppedText].find(([t]) => t !== "" && addedText.has(t));
    if (moved) {
      return {
        ok: false,
        kind: "placeholder",
        message: `the placeholder line "${strayPlaceholder}" in <patched> keeps no line of <original>, while the edit drops "${moved[1].trim()}" from its place only to write it again elsewhere, so it is unclear which original lines the placeholder keeps. Write out the code in full instead of the placeholder.`,
      };
    }
  }
  if (strayPlaceholder !== null && deletedOnly !== null) {
    return {
      ok: false,
      kind: "placeholder",
      message: `the placeholder line "${strayPlaceholder}" in <patched> keeps no line of <original>, while the edit drops "${deletedOnly.trim()}" and the lines with it without replacing them, so it is unclear which original lines the placeholder keeps. Write out the code in full instead of the placeholder.`,
    };
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

  const plan: PlanLine[] = [];
  const emitInserts = (at: number) => {
    for (const j of insertsBefore.get(at) ?? [])
      plan.push({ kind: "new", f: -1, p: j, replaces: replaces.get(j) ?? -1 });
  };
  for (let a = 0; a < n; a++) {
    emitInserts(a);
    if (oOp[a] !== "keep") continue;
    const e = entries[a]!;
    const j = alignedTo.get(a);
    if (j !== undefined && e.origIdx >= 0) plan.push({ kind: "aligned", f: e.fileIdx, p: j });
    else plan.push({ kind: "file", f: e.fileIdx, p: -1 });
  }
  emitInserts(n);
  return { ok: true, plan, patched, placeholdersKept };
}

/** The words and punctuation of a line. */
const words = (l: string) => l.trim().match(/[\w$]+|[^\s\w$]/g) ?? [];

/** How alike two lines read: shared words over all words, and whether both open a block. */
function likeness(a: string, b: string): number {
  const wa = words(a);
  const wb = new Map<string, number>();
  for (const w of words(b)) wb.set(w, (wb.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wa) {
    const n = wb.get(w) ?? 0;
    if (n > 0) {
      shared++;
      wb.set(w, n - 1);
    }
  }
  const total = wa.length + words(b).length;
  const opens = (l: string) => /[:{]\s*$/.test(l.replace(/\s*(#|\/\/).*$/, ""));
  return (total === 0 ? 0 : (2 * shared) / total) + (opens(a) === opens(b) ? 0.5 : 0);
}

/**
 * Pairs the new lines of a hunk with the removed lines they replace, in order: as many pairs as the
 * shorter list has lines, chosen so that the pairs read most alike (the earliest pairs on a tie).
 */
function pairInOrder(added: readonly string[], removed: readonly string[]): [number, number][] {
  const n = added.length;
  const m = removed.length;
  if (n === 0 || m === 0) return [];
  // Large hunks: in order from the start, as the lines come.
  if (n * m > 40_000) return Array.from({ length: Math.min(n, m) }, (_, i) => [i, i] as [number, number]);
  // best[i][j]: the best score pairing added[i..] with removed[j..]; a pair is worth far more than any
  // likeness, so the number of pairs comes first.
  const best = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const pair = 10 + likeness(added[i]!, removed[j]!) + best[i + 1]![j + 1]!;
      best[i]![j] = Math.max(pair, best[i + 1]![j]!, best[i]![j + 1]!);
    }
  }
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const pair = 10 + likeness(added[i]!, removed[j]!) + best[i + 1]![j + 1]!;
    if (pair >= best[i]![j]! - 1e-9) out.push([i++, j++]);
    else if (best[i + 1]![j]! >= best[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}

/**
 * Blank lines of <patched> that only repeat blank lines <original> has and the file lacks. Each run of
 * blank lines in <patched> is paired (by the diff) with the runs of <original> it repeats; of its lines,
 * those beyond the file's blank lines in those runs are dropped, up to the number the file lacks. A
 * blank line the answer keeps where the file has one stays: an <original> with one blank line more than
 * the file, and a <patched> with the one blank line the file has, keeps that line.
 */
function phantomBlanks(
  orig: readonly string[],
  patched: readonly string[],
  map: readonly (number | null)[],
): Set<number> {
  const runOf = (lines: readonly string[]) => {
    const ids: number[] = [];
    let id = -1;
    lines.forEach((l, i) => {
      if (l.trim() !== "") ids.push(-1);
      else {
        if (i === 0 || lines[i - 1]!.trim() !== "") id++;
        ids.push(id);
      }
    });
    return ids;
  };
  const oRun = runOf(orig);
  const pRun = runOf(patched);
  // For each run of <patched>: the runs of <original> it repeats.
  const pairs = new Map<number, Set<number>>();
  for (const op of diffSeq(orig, patched)) {
    if (op.kind !== "equal" || oRun[op.a]! < 0) continue;
    const set = pairs.get(pRun[op.b]!) ?? new Set<number>();
    set.add(oRun[op.a]!);
    pairs.set(pRun[op.b]!, set);
  }
  const out = new Set<number>();
  for (const [run, origRuns] of pairs) {
    let real = 0;
    let lacking = 0;
    oRun.forEach((r, i) => {
      if (r >= 0 && origRuns.has(r)) {
        if (map[i] === null || map[i] === undefined) lacking++;
        else real++;
      }
    });
    const lines = pRun.map((r, j) => (r === run ? j : -1)).filter((j) => j >= 0);
    const drop = Math.min(lacking, Math.max(0, lines.length - real));
    for (const j of lines.slice(lines.length - drop)) out.add(j);
  }
  return out;
}
