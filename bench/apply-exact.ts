/**
 * Exact answers at the places where indentation is hardest to read: an <original> copied byte for byte
 * from a real file (a region drawn around a multi-line condition, a continuation line, a decorator or
 * annotation, a run of blank lines, the end of a block, or an `else`/`except`/`finally`/`catch`
 * boundary, besides regions drawn anywhere) and a <patched> with one valid edit written at the file's
 * own indentation. The model cannot improve such an answer, so the only right outcome is the intended
 * file. The expected file is made here by line surgery, never by the engine.
 */
import type { LanguageId } from "../src/languages/index.ts";
import {
  type Change,
  choice,
  editText,
  int,
  lead,
  makeChange,
  occurrences,
  problems,
  type Rand,
  unitOf,
} from "./apply-corpus.ts";

/** Where a region is drawn. */
export const PLACES = [
  "anywhere",
  "multi-line condition",
  "continuation line",
  "decorator",
  "blank-line run",
  "starts deeper than it ends",
  "block boundary",
] as const;
export type Place = (typeof PLACES)[number];

export interface ExactCase {
  place: Place;
  kind: string;
  /** The region replaced: [start, end) of the file's lines. */
  start: number;
  end: number;
  answer: string;
  expected: string;
}

/** Opening brackets minus closing ones on a line, strings and comments roughly skipped. */
function depthChange(line: string, lang: LanguageId): number {
  let d = 0;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if ((lang === "python" && ch === "#") || (ch === "/" && line[i + 1] === "/")) break;
    else if ("([{".includes(ch)) d++;
    else if (")]}".includes(ch)) d--;
  }
  return d;
}

const KEYWORDS = new Set(
  "and as assert async await break case catch class const continue def default del elif else except extends false final finally for from func function global go if import in instanceof interface is lambda let new nil none nonlocal not null or package pass private protected public raise range return self static struct super switch this throw throws true try type typeof var void while with yield".split(
    " ",
  ),
);

const BOUNDARY = /^\s*(\}\s*)?(else|elif|except|finally|catch|case|default)\b/;

/** Lines of the file where a region of `place` can be anchored. */
function anchors(lines: readonly string[], lang: LanguageId, place: Place): number[] {
  const out: number[] = [];
  const ind = (l: string) => lead(l).replaceAll("\t", "    ").length;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === "") {
      if (place === "blank-line run" && i > 0 && lines[i - 1]!.trim() !== "") {
        const inside = lead(lines[i - 1]!) !== "" || (lines[i + 1] ?? "").trim() === "";
        if (inside) out.push(i);
      }
      continue;
    }
    const t = l.trim();
    switch (place) {
      case "anywhere":
        out.push(i);
        break;
      case "multi-line condition":
        if (/^(\}\s*)?(if|elif|while|else if|for|switch|return|assert)\b/.test(t) && depthChange(l, lang) > 0)
          out.push(i);
        break;
      case "continuation line":
        if (depthChange(l, lang) > 0 || /(\\|&&|\|\||\+|,)$/.test(t)) out.push(i + 1);
        break;
      case "decorator":
        if (/^@\w/.test(t)) out.push(i);
        break;
      case "starts deeper than it ends": {
        const next = lines.slice(i + 1).findIndex((x) => x.trim() !== "");
        if (next >= 0 && ind(lines[i + 1 + next]!) < ind(l)) out.push(i);
        break;
      }
      case "block boundary":
        if (BOUNDARY.test(l)) out.push(i);
        break;
    }
  }
  return out;
}

/**
 * A region around `at`, first and last lines not blank, that occurs once in the file; null if none.
 * `from` says the region starts at `at` (a region that starts deeper than it ends) and goes on past the
 * lines after it.
 */
function regionAround(
  r: Rand,
  lines: readonly string[],
  at: number,
  from = false,
): { start: number; end: number } | null {
  for (let tries = 0; tries < 8; tries++) {
    let start = from ? at : Math.max(0, at - int(r, 0, 3));
    let end = Math.min(lines.length, at + int(r, from ? 2 : 1, 6));
    while (start < at && lines[start]!.trim() === "") start++;
    while (end < lines.length && lines[end - 1]!.trim() === "") end++;
    if (end - start < 2 || lines[start]!.trim() === "" || lines[end - 1]!.trim() === "") continue;
    // Lines with CR or trailing whitespace, or that hold the answer format's own tags, are left out.
    if (lines.slice(start, end).some((l) => /\r|[ \t]$|<\/?(file|original|patched)\b/.test(l))) return null;
    if (occurrences(lines as string[], { start, end }) !== 1) continue;
    return { start, end };
  }
  return null;
}

/** Edits made here besides those of the corpus: a line deleted, an `if` condition split over lines. */
function ownEdits(
  r: Rand,
  lang: LanguageId,
  body: readonly string[],
  unit: { tabs: boolean; unit: number },
): { kind: string; after: string[] }[] {
  const out: { kind: string; after: string[] }[] = [];
  const step = unit.tabs ? "\t" : " ".repeat(unit.unit);
  // A multi-line condition: `if x:` becomes `if (\n    x\n) or end == 0:`.
  const conds = body
    .map((_l, i) => i)
    .filter((i) =>
      lang === "python"
        ? /^\s*(if|elif|while) .*:$/.test(body[i]!) && depthChange(body[i]!, lang) === 0
        : /^\s*(\}\s*else\s+)?if \(.*\) \{$/.test(body[i]!) && depthChange(body[i]!, lang) === 1,
    );
  if (conds.length > 0) {
    const i = choice(r, conds);
    const l = body[i]!;
    const ws = lead(l);
    let split: string[];
    if (lang === "python") {
      const m = /^(\s*)(if|elif|while) (.*):$/.exec(l)!;
      split = [`${ws}${m[2]} (`, `${ws}${step}${m[3]}`, `${ws}) or end == 0:`];
    } else {
      const m = /^(\s*(?:\}\s*else\s+)?if) \((.*)\) \{$/.exec(l)!;
      split = [`${m[1]} (`, `${ws}${step}(${m[2]}) ||`, `${ws}${step}end === 0`, `${ws}) {`];
    }
    out.push({ kind: "multi-line condition", after: [...body.slice(0, i), ...split, ...body.slice(i + 1)] });
  }
  // A name changed on the region's first or last line (the lines whose indentation is read first).
  for (const [kind, i] of [
    ["first line changed", 0],
    ["last line changed", body.length - 1],
  ] as const) {
    const names = [...body[i]!.matchAll(/\b[a-z_][A-Za-z0-9_]{2,}\b/g)].filter((m) => !KEYWORDS.has(m[0]));
    if (names.length === 0) continue;
    const m = choice(r, names);
    const l = body[i]!;
    const changed = `${l.slice(0, m.index)}${m[0]}2${l.slice(m.index! + m[0].length)}`;
    out.push({ kind, after: body.map((x, k) => (k === i ? changed : x)) });
  }
  // A line deleted (a statement that ends on its line).
  const dels = body
    .map((_l, i) => i)
    .filter(
      (i) => body[i]!.trim() !== "" && depthChange(body[i]!, lang) === 0 && !/[:{]$/.test(body[i]!.trim()),
    );
  if (dels.length > 0 && body.length > 2) {
    const i = choice(r, dels);
    out.push({ kind: "delete", after: [...body.slice(0, i), ...body.slice(i + 1)] });
  }
  return out;
}

/**
 * Up to `count` exact answers against `lines` (the file at `path`), regions drawn at each place in turn.
 * Every case's expected file parses as well as the original does.
 */
export async function exactCases(
  r: Rand,
  lang: LanguageId,
  path: string,
  lines: string[],
  count: number,
): Promise<ExactCase[]> {
  const out: ExactCase[] = [];
  const base = await problems(lang, lines.join("\n"));
  const places = PLACES.map((p) => [p, anchors(lines, lang, p)] as const).filter(([, a]) => a.length > 0);
  for (let attempt = 0; out.length < count && attempt < count * 6 && places.length > 0; attempt++) {
    const [place, at] = places[attempt % places.length]!;
    const w = regionAround(r, lines, choice(r, at), place === "starts deeper than it ends");
    if (!w) continue;
    const body = lines.slice(w.start, w.end);
    let kind: string;
    let after: string[];
    const own = ownEdits(r, lang, body, unitOf(lines));
    if (own.length > 0 && r() < 0.5) {
      ({ kind, after } = choice(r, own));
      const full = [...lines.slice(0, w.start), ...after, ...lines.slice(w.end)].join("\n");
      if ((await problems(lang, full)) > base) continue;
    } else {
      const c: Change | null = await makeChange(r, lang, lines, w);
      if (!c) continue;
      kind = c.kind;
      after = c.after;
    }
    if (after.join("\n") === body.join("\n")) continue;
    // A tag's blank edge lines are layout: no answer can ask for a blank first or last line.
    if (after.length === 0 || after[0]!.trim() === "" || after.at(-1)!.trim() === "") continue;
    out.push({
      place,
      kind,
      start: w.start,
      end: w.end,
      answer: editText(path, body, after),
      expected: [...lines.slice(0, w.start), ...after, ...lines.slice(w.end)].join("\n"),
    });
  }
  return out;
}

/**
 * Two of `cases` (against one file, their regions apart) as one answer with two edits: the intended file
 * has both changes. Up to `count` such answers.
 */
export function twoEditCases(
  lines: readonly string[],
  cases: readonly ExactCase[],
  count: number,
): ExactCase[] {
  const out: ExactCase[] = [];
  const afterOf = (c: ExactCase) => {
    const exp = c.expected.split("\n");
    return exp.slice(c.start, exp.length - (lines.length - c.end));
  };
  for (let i = 0; i + 1 < cases.length && out.length < count; i += 2) {
    const [a, b] = [cases[i]!, cases[i + 1]!].sort((x, y) => x.start - y.start) as [ExactCase, ExactCase];
    if (a.end + 1 > b.start) continue;
    const expected = [
      ...lines.slice(0, a.start),
      ...afterOf(a),
      ...lines.slice(a.end, b.start),
      ...afterOf(b),
      ...lines.slice(b.end),
    ].join("\n");
    out.push({
      place: a.place === "anywhere" ? b.place : a.place,
      kind: `two edits (${a.kind}; ${b.kind})`,
      start: a.start,
      end: b.end,
      answer: a.answer + b.answer,
      expected,
    });
  }
  return out;
}
