/**
 * Finds where an edit's <original> sits in a file: exactly first, then with a constant indentation shift,
 * then ignoring per-line whitespace, then ignoring blank lines, and last a near match (a token off) that
 * must be unique and very close. Never takes the first of several matches.
 */

import { trimEndWs } from "./text.ts";

export type MatchTier = "exact" | "reindented" | "whitespace" | "blank-lines" | "near";

export interface NearDiff {
  /** Index into the original lines. */
  origIndex: number;
  /** Index into the file lines. */
  fileIndex: number;
}

export type Located =
  | {
      kind: "found";
      start: number;
      end: number;
      /** For each original line, the file line it matched (null for a blank line the file lacks). */
      map: (number | null)[];
      tier: MatchTier;
      near: NearDiff[];
    }
  | { kind: "ambiguous"; tier: MatchTier; starts: number[] }
  | { kind: "none"; closest: { start: number; end: number; matched: number; total: number } | null };

export function indentColumns(line: string, tab = 4): number {
  let c = 0;
  for (const ch of line) {
    if (ch === " ") c++;
    else if (ch === "\t") c += tab - (c % tab);
    else break;
  }
  return c;
}

const rtrim = trimEndWs;
const squash = (s: string) => s.trim().replace(/\s+/g, " ");

/** At most this many places are collected for one block: enough to say "ambiguous" and show some. */
const MAX_HITS = 50;
/** A line seen more often than this in the file does not vote for near-match windows. */
const RARE = 64;

/**
 * Every start where `origNorm` occurs in `fileNorm` (up to MAX_HITS), by Knuth-Morris-Pratt over the
 * lines: linear in the two lengths whatever the lines repeat. `extra` vets each occurrence.
 */
function contiguous(
  fileNorm: readonly string[],
  origNorm: readonly string[],
  extra?: (start: number) => (i: number) => boolean,
): number[] {
  const m = origNorm.length;
  const out: number[] = [];
  if (m === 0 || m > fileNorm.length) return out;
  // Lines as numbers, so that each comparison below costs the same however long the lines are.
  const ids = new Map<string, number>();
  const pat = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    let id = ids.get(origNorm[i]!);
    if (id === undefined) {
      id = ids.size;
      ids.set(origNorm[i]!, id);
    }
    pat[i] = id;
  }
  const txt = new Int32Array(fileNorm.length);
  for (let i = 0; i < fileNorm.length; i++) txt[i] = ids.get(fileNorm[i]!) ?? -1;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1]!;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  let vetted = 0;
  for (let i = 0, k = 0; i < txt.length; i++) {
    while (k > 0 && txt[i] !== pat[k]) k = fail[k - 1]!;
    if (txt[i] === pat[k]) k++;
    if (k === m) {
      const s = i - m + 1;
      k = fail[k - 1]!;
      if (extra) {
        // Each vetting costs the block's length: bounded, so a block of repeated lines stays linear.
        if (++vetted > MAX_HITS * 4) break;
        const ok = extra(s);
        let all = true;
        for (let j = 0; j < m && all; j++) all = ok(j);
        if (!all) continue;
      }
      out.push(s);
      if (out.length >= MAX_HITS) break;
    }
  }
  return out;
}

function identityMap(start: number, n: number): (number | null)[] {
  return Array.from({ length: n }, (_, i) => start + i);
}

export function tokens(s: string): string[] {
  return s.match(/\w+|[^\s\w]/g) ?? [];
}

export function tokenDistance(a: readonly string[], b: readonly string[]): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** Whether two lines are "one token off": a small token edit that leaves most of the line intact. */
export function veryClose(a: string, b: string): boolean {
  // Token distance is quadratic in the line: long lines are never "close", only equal.
  if (a.length > 400 || b.length > 400) return false;
  const ta = tokens(a);
  const tb = tokens(b);
  const d = tokenDistance(ta, tb);
  const longest = Math.max(ta.length, tb.length);
  return d <= 2 && longest >= 3 && d * 3 <= longest;
}

export function locate(fileLines: readonly string[], orig: readonly string[]): Located {
  const n = orig.length;
  // 1. exact (trailing whitespace aside)
  const fileR = fileLines.map(rtrim);
  const origR = orig.map(rtrim);
  const exact = contiguous(fileR, origR);
  if (exact.length === 1) return found(exact[0]!, n, "exact");
  if (exact.length > 1) return { kind: "ambiguous", tier: "exact", starts: exact };
  // 2. the same lines shifted by a constant indentation
  const fileS = fileLines.map(squash);
  const origS = orig.map(squash);
  const shifted = contiguous(fileS, origS, (s) => {
    let shift: number | null = null;
    return (i) => {
      if (origS[i] === "") return true;
      const d = indentColumns(fileLines[s + i]!) - indentColumns(orig[i]!);
      if (shift === null) shift = d;
      return d === shift;
    };
  });
  if (shifted.length === 1) return found(shifted[0]!, n, "reindented");
  if (shifted.length > 1) return { kind: "ambiguous", tier: "reindented", starts: shifted };
  // 3. per-line whitespace ignored
  const loose = contiguous(fileS, origS);
  if (loose.length === 1) return found(loose[0]!, n, "whitespace");
  if (loose.length > 1) return { kind: "ambiguous", tier: "whitespace", starts: loose };
  // 4. blank lines ignored
  const fileNb: number[] = [];
  for (let i = 0; i < fileS.length; i++) if (fileS[i] !== "") fileNb.push(i);
  const origNb: number[] = [];
  for (let i = 0; i < origS.length; i++) if (origS[i] !== "") origNb.push(i);
  if (origNb.length === 0) return { kind: "none", closest: null };
  const fileNbText = fileNb.map((i) => fileS[i]!);
  const origNbText = origNb.map((i) => origS[i]!);
  const nb = contiguous(fileNbText, origNbText);
  if (nb.length > 1) return { kind: "ambiguous", tier: "blank-lines", starts: nb.map((k) => fileNb[k]!) };
  if (nb.length === 1) {
    const k = nb[0]!;
    const map: (number | null)[] = orig.map(() => null);
    origNb.forEach((oi, j) => {
      map[oi] = fileNb[k + j]!;
    });
    pairBlankLines(map, origNb, fileNb, k);
    const start = fileNb[k]!;
    const end = fileNb[k + origNb.length - 1]! + 1;
    return { kind: "found", start, end, map, tier: "blank-lines", near: [] };
  }
  // 5. near match: same non-blank lines but for one (or, in long blocks, two) a token off. Windows are
  // found by votes of the lines that are rare in the file (a line seen more than RARE times does not
  // vote), then each candidate is checked line by line: the cost stays linear in the two sizes.
  const total = origNbText.length;
  const positions = new Map<string, number[]>();
  const wanted = new Set(origNbText);
  fileNbText.forEach((t, p) => {
    if (!wanted.has(t)) return;
    const arr = positions.get(t);
    if (!arr) positions.set(t, [p]);
    else if (arr.length <= RARE) arr.push(p);
  });
  const votes = new Map<number, number>();
  let rareTotal = 0;
  origNbText.forEach((t, k) => {
    const ps = positions.get(t);
    if (ps && ps.length > RARE) return;
    rareTotal++;
    for (const p of ps ?? []) {
      const s = p - k;
      if (s < 0 || s + total > fileNbText.length) continue;
      votes.set(s, (votes.get(s) ?? 0) + 1);
    }
  });
  /** How many lines of the window at `s` equal <original>'s, stopping once more than `misses` differ. */
  const equalLines = (s: number, misses: number): number => {
    let eq = 0;
    let bad = 0;
    for (let k = 0; k < total; k++) {
      if (origNbText[k] === fileNbText[s + k]) eq++;
      else if (++bad > misses) return -1;
    }
    return eq;
  };
  let bestStart = -1;
  let bestVotes = 0;
  for (const [s, v] of votes) {
    if (v > bestVotes || (v === bestVotes && s < bestStart)) {
      bestVotes = v;
      bestStart = s;
    }
  }
  const closest =
    bestStart < 0
      ? null
      : {
          start: fileNb[bestStart]!,
          end: fileNb[bestStart + total - 1]! + 1,
          matched: Math.max(bestVotes, equalLines(bestStart, total)),
          total,
        };
  const allowed = total >= 3 ? Math.max(1, Math.floor(total / 8)) : 0;
  // Candidates need votes from at least one rare line beyond the allowance, which bounds how many there are.
  if (allowed === 0 || bestStart < 0 || rareTotal < allowed + 2) return { kind: "none", closest };
  // Every window within one extra differing line of the allowance is a competitor.
  const contenders: [number, number][] = [];
  let checked = 0;
  for (const [s, v] of votes) {
    if (v < rareTotal - allowed - 1) continue;
    if (++checked > 1024) return { kind: "none", closest };
    const eq = equalLines(s, allowed + 1);
    if (eq >= total - allowed - 1) contenders.push([s, eq]);
  }
  const close = contenders.filter(([s, v]) => {
    if (v < total - allowed) return false;
    for (let k = 0; k < total; k++) {
      const a = origNbText[k]!;
      const b = fileNbText[s + k]!;
      if (a !== b && !veryClose(a, b)) return false;
    }
    return true;
  });
  if (close.length !== 1 || contenders.length !== 1) {
    if (close.length > 1) {
      return {
        kind: "ambiguous",
        tier: "near",
        starts: close.map(([s]) => fileNb[s]!).sort((a, b) => a - b),
      };
    }
    return { kind: "none", closest };
  }
  const s = close[0]![0];
  const map: (number | null)[] = orig.map(() => null);
  const near: NearDiff[] = [];
  origNb.forEach((oi, j) => {
    map[oi] = fileNb[s + j]!;
    if (origNbText[j] !== fileNbText[s + j]) near.push({ origIndex: oi, fileIndex: fileNb[s + j]! });
  });
  pairBlankLines(map, origNb, fileNb, s);
  return {
    kind: "found",
    start: fileNb[s]!,
    end: fileNb[s + total - 1]! + 1,
    map,
    tier: "near",
    near,
  };

  function found(start: number, len: number, tier: MatchTier): Located {
    return { kind: "found", start, end: start + len, map: identityMap(start, len), tier, near: [] };
  }
}

/** The longest gap (in file lines) a placeholder inside <original> may stand for. */
export const MAX_GAP = 400;

export type GapLocated = Located | { kind: "placeholder"; message: string };

/**
 * Locates an <original> that elides code with placeholder lines: each run of real lines is found in
 * turn, the next within MAX_GAP lines after the previous one; the placeholder lines map to nothing and the
 * file lines between the runs are left as they are.
 */
export function locateWithGaps(
  fileLines: readonly string[],
  orig: readonly string[],
  isGap: (l: string) => boolean,
): GapLocated {
  if (!orig.some(isGap)) return locate(fileLines, orig);
  const segments: { from: number; lines: string[] }[] = [];
  let cur: { from: number; lines: string[] } | null = null;
  orig.forEach((l, i) => {
    if (isGap(l)) {
      cur = null;
      return;
    }
    if (!cur) {
      cur = { from: i, lines: [] };
      segments.push(cur);
    }
    cur.lines.push(l);
  });
  const real = segments.filter((s) => s.lines.some((l) => l.trim() !== ""));
  if (real.length === 0) {
    return {
      kind: "placeholder",
      message: "<original> holds only placeholder lines. Copy the original code into it.",
    };
  }
  const order: MatchTier[] = ["exact", "reindented", "whitespace", "blank-lines", "near"];
  type Hit = { start: number; end: number; map: (number | null)[]; tier: MatchTier; near: NearDiff[] };
  // Every place a run of lines matches within [from, to): one when unique, each candidate when ambiguous.
  const hits = (seg: string[], from: number, to: number): Hit[] | Located => {
    const r = locate(fileLines.slice(from, to), seg);
    const shift = (h: Extract<Located, { kind: "found" }>, by: number): Hit => ({
      start: h.start + by,
      end: h.end + by,
      map: h.map.map((m) => (m === null ? null : m + by)),
      tier: h.tier,
      near: h.near.map((d) => ({ origIndex: d.origIndex, fileIndex: d.fileIndex + by })),
    });
    if (r.kind === "found") return [shift(r, from)];
    if (r.kind === "none") {
      return r.closest
        ? {
            kind: "none",
            closest: { ...r.closest, start: r.closest.start + from, end: r.closest.end + from },
          }
        : r;
    }
    const out: Hit[] = [];
    for (const s0 of r.starts.slice(0, 50)) {
      const at = from + s0;
      const one = locate(fileLines.slice(at, Math.min(to, at + seg.length * 3)), seg);
      if (one.kind === "found" && one.start === 0) out.push(shift(one, at));
    }
    return out.length > 0 ? out : { ...r, starts: r.starts.map((x) => x + from) };
  };
  const chains: Hit[][] = [];
  let firstFailure: Located | null = null;
  // Each run is located at most a bounded number of times in all, so a hostile <original> with many
  // placeholders and repeated runs cannot make the search blow up.
  let budget = 64;
  let exhausted = false;
  const extend = (i: number, chain: Hit[]): void => {
    if (chains.length > 1 || exhausted) return;
    if (--budget < 0) {
      exhausted = true;
      return;
    }
    if (i === real.length) {
      chains.push(chain);
      return;
    }
    const prev = chain.at(-1);
    const from = prev ? prev.end : 0;
    const to = prev ? Math.min(fileLines.length, prev.end + MAX_GAP) : fileLines.length;
    const found = hits(trimBlankEdges(real[i]!.lines), from, to);
    if (!Array.isArray(found)) {
      firstFailure ??= found;
      return;
    }
    for (const h of found) extend(i + 1, [...chain, h]);
  };
  if (real.length > 16) {
    return {
      kind: "placeholder",
      message: `<original> leaves code out in ${real.length - 1} places. Copy the original lines completely, or as a few runs of lines.`,
    };
  }
  extend(0, []);
  if (exhausted && chains.length < 2) {
    return {
      kind: "placeholder",
      message:
        "<original> leaves code out between runs of lines that occur in many places, so where it belongs cannot be told. Copy the original lines completely.",
    };
  }
  if (chains.length === 0) return firstFailure ?? { kind: "none", closest: null };
  if (chains.length > 1) {
    return { kind: "ambiguous", tier: "exact", starts: [chains[0]![0]!.start, chains[1]![0]!.start] };
  }
  const chain = chains[0]!;
  const map: (number | null)[] = orig.map(() => null);
  const near: NearDiff[] = [];
  let tier: MatchTier = "exact";
  chain.forEach((h, i) => {
    const seg = real[i]!;
    const lead = seg.lines.findIndex((l) => l.trim() !== "");
    h.map.forEach((m, k) => {
      map[seg.from + lead + k] = m;
    });
    for (const d of h.near) near.push({ origIndex: seg.from + lead + d.origIndex, fileIndex: d.fileIndex });
    if (order.indexOf(h.tier) > order.indexOf(tier)) tier = h.tier;
  });
  return { kind: "found", start: chain[0]!.start, end: chain.at(-1)!.end, map, tier, near };
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === "") a++;
  while (b > a && lines[b - 1]!.trim() === "") b--;
  return lines.slice(a, b);
}

/** Blank lines between two matched lines pair with the file's blank lines there, as far as they go. */
function pairBlankLines(
  map: (number | null)[],
  origNb: readonly number[],
  fileNb: readonly number[],
  k: number,
): void {
  for (let j = 0; j + 1 < origNb.length; j++) {
    const fileGap = fileNb[k + j + 1]! - fileNb[k + j]! - 1;
    const origGap = origNb[j + 1]! - origNb[j]! - 1;
    for (let g = 0; g < Math.min(fileGap, origGap); g++) map[origNb[j]! + 1 + g] = fileNb[k + j]! + 1 + g;
  }
}
