/**
 * Deterministic corpus of model answers for the apply benchmark. Each sample takes a window of a real
 * source file, makes a known change to it (the intent), and renders the answer the way models get it
 * wrong (indentation, line numbers, placeholders, a misremembered token, ...). The expected file is the
 * change applied to the original text by plain line surgery here, never by the engine.
 */
import { treeSitterChecker } from "../src/patch/syntax.ts";
import type { LanguageId } from "../src/languages/index.ts";
export { rng } from "../test/support/rng.ts";

export interface Sample {
  id: number;
  mode: string;
  lang: LanguageId;
  /** True when the intent is unambiguous and the answer should apply. */
  shouldApply: boolean;
  files: Record<string, string>;
  answer: string;
  /** Path → the exact text after a correct application (shouldApply only). */
  expected: Record<string, string>;
  protect?: string[];
}

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const choice = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const lead = (l: string) => /^[ \t]*/.exec(l)![0];
const squash = (s: string) => s.trim().replace(/\s+/g, " ");

const EXT: Record<LanguageId, string> = {
  python: ".py",
  javascript: ".js",
  typescript: ".ts",
  tsx: ".tsx",
  java: ".java",
  go: ".go",
  rust: ".rs",
  cpp: ".cpp",
};

/** Syntax problems, with Python's indentation rules that tree-sitter alone lets through. */
async function problems(lang: LanguageId, text: string): Promise<number> {
  return (await treeSitterChecker.analyse(`x${EXT[lang]}`, text)).problems.length;
}

interface Window {
  start: number;
  end: number;
}

/** How often the squashed non-blank lines of [start, end) occur in the file. */
function occurrences(lines: string[], w: Window): number {
  const want = lines
    .slice(w.start, w.end)
    .map(squash)
    .filter((s) => s !== "");
  if (want.length === 0) return 99;
  const nb = lines.map(squash).filter((s) => s !== "");
  let count = 0;
  for (let i = 0; i + want.length <= nb.length; i++) {
    let ok = true;
    for (let j = 0; j < want.length && ok; j++) ok = nb[i + j] === want[j];
    if (ok) count++;
  }
  return count;
}

const isCode = (l: string) => {
  const t = l.trim();
  return t.length >= 6 && !/^(#|\/\/|\/?\*|"""|''')/.test(t) && !/^[})\]]/.test(t) && !t.endsWith("\\");
};

function pickWindow(r: Rand, lines: string[], size: number, needBlank = false): Window | null {
  for (let tries = 0; tries < 60; tries++) {
    const start = int(r, 0, Math.max(0, lines.length - size - 1));
    const w = { start, end: start + size };
    const body = lines.slice(w.start, w.end);
    if (body.length < size || body[0]!.trim() === "" || body.at(-1)!.trim() === "") continue;
    if (body.filter(isCode).length < Math.ceil(size / 2)) continue;
    if (needBlank && !body.some((l) => l.trim() === "")) continue;
    if (body.some((l) => l.includes("\t") && l.includes("    ") && lead(l).includes(" "))) continue;
    if (occurrences(lines, w) !== 1) continue;
    return w;
  }
  return null;
}

const IDENT = /\b[A-Za-z_][A-Za-z0-9_]{2,}\b/g;
const KEYWORDS = new Set(
  "def class return import from self this const let var function async await for while if else elif try except finally with pass raise new public private protected static final void int boolean String func package type struct interface range nil null None True False true false throw throws catch extends implements yield lambda assert break continue switch case default export".split(
    " ",
  ),
);

/** A one-line change that keeps the line's shape: an operator, a number or an identifier. */
function tokenChange(r: Rand, line: string): string | null {
  const options: (() => string | null)[] = [
    () => (/ == /.test(line) ? line.replace(" == ", " != ") : null),
    () => (/ != /.test(line) ? line.replace(" != ", " == ") : null),
    () => (/ < /.test(line) ? line.replace(" < ", " <= ") : null),
    () => (/ > /.test(line) ? line.replace(" > ", " >= ") : null),
    () => {
      const m = /\b(\d+)\b/.exec(line);
      return m
        ? line.slice(0, m.index) + String(Number(m[1]) + 1) + line.slice(m.index + m[1]!.length)
        : null;
    },
    () => {
      const ids = [...line.matchAll(IDENT)].filter((m) => !KEYWORDS.has(m[0]));
      if (ids.length === 0) return null;
      const m = choice(r, ids);
      return `${line.slice(0, m.index)}${m[0]}Fixed${line.slice(m.index + m[0].length)}`;
    },
  ];
  const start = int(r, 0, options.length - 1);
  for (let i = 0; i < options.length; i++) {
    const out = options[(start + i) % options.length]!();
    if (out !== null && out !== line) return out;
  }
  return null;
}

function unitOf(lines: string[]): { tabs: boolean; unit: number } {
  const tabs = lines.filter((l) => l.startsWith("\t")).length;
  const spaces = lines.filter((l) => l.startsWith(" ") && l.trim() !== "").length;
  if (tabs > spaces) return { tabs: true, unit: 4 };
  const counts = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    if (l.trim() === "" || l.startsWith("\t") || l.trimStart().startsWith("*")) continue;
    const w = lead(l).length;
    if (w > prev && w - prev <= 8) counts.set(w - prev, (counts.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  let best = 4;
  let n = 0;
  for (const [w, c] of counts) if (c > n) [best, n] = [w, c];
  return { tabs: false, unit: best };
}

function newStatement(lang: LanguageId, r: Rand, line: string): string {
  const ids = [...line.matchAll(IDENT)].map((m) => m[0]).filter((x) => !KEYWORDS.has(x));
  const id = ids.length > 0 ? choice(r, ids) : "value";
  switch (lang) {
    case "python":
      return `assert ${id} is not None`;
    case "java":
      return `java.util.Objects.requireNonNull(${id});`;
    case "go":
      return `_ = ${id}`;
    default:
      return `void ${id};`;
  }
}

/** A block opening statement with one statement inside, in the language's syntax. */
function newBlock(lang: LanguageId, r: Rand, line: string, indent: string, unitStr: string): string[] {
  const ids = [...line.matchAll(IDENT)].map((m) => m[0]).filter((x) => !KEYWORDS.has(x));
  const id = ids.length > 0 ? choice(r, ids) : "value";
  switch (lang) {
    case "python":
      return [`${indent}if ${id} is None:`, `${indent}${unitStr}raise ValueError("${id} is required")`];
    case "go":
      return [`${indent}if ${id} == nil {`, `${indent}${unitStr}panic("${id} is required")`, `${indent}}`];
    case "java":
      return [
        `${indent}if (${id} == null) {`,
        `${indent}${unitStr}throw new IllegalStateException("${id}");`,
        `${indent}}`,
      ];
    default:
      return [
        `${indent}if (${id} == null) {`,
        `${indent}${unitStr}throw new Error("${id} is required");`,
        `${indent}}`,
      ];
  }
}

export interface Change {
  window: Window;
  /** The window's lines after the change. */
  after: string[];
  /** Index (within the window) of the changed line, or of the line new lines follow. */
  target: number;
  kind: "token" | "insert" | "block" | "wrap" | "comment" | "blank" | "dedent";
}

export const ALL_KINDS: readonly Change["kind"][] = [
  "token",
  "token",
  "insert",
  "block",
  "wrap",
  "comment",
  "blank",
  "dedent",
];

/** Makes a change inside `w` that keeps the file parsing; null when none was found. */
export async function makeChange(
  r: Rand,
  lang: LanguageId,
  lines: string[],
  w: Window,
  opts: { avoidFirst?: boolean; targetMax?: number; kinds?: Change["kind"][] } = {},
): Promise<Change | null> {
  const body = lines.slice(w.start, w.end);
  const style = unitOf(lines);
  const unitStr = style.tabs ? "\t" : " ".repeat(style.unit);
  const base = await problems(lang, lines.join("\n"));
  const targets = body
    .map((_l, i) => i)
    .filter((i) => isCode(body[i]!) && (!opts.avoidFirst || i > 0) && i <= (opts.targetMax ?? body.length));
  for (let tries = 0; tries < 8 && targets.length > 0; tries++) {
    const t = choice(r, targets);
    const line = body[t]!;
    const kind = choice(r, opts.kinds ?? ALL_KINDS);
    let after: string[] | null = null;
    if (kind === "comment") {
      // A comment line above the line, at its indentation.
      const mark = lang === "python" ? "#" : "//";
      after = [
        ...body.slice(0, t),
        `${lead(line)}${mark} checked: ${line.trim().slice(0, 20).trim()}`,
        ...body.slice(t),
      ];
    } else if (kind === "blank") {
      // Blank lines only: one added after the line, or (when the window has one) one taken away. Not
      // after the window's last line: a tag's blank edge lines are layout, so no answer can ask for that.
      const blank = body.findIndex((l, i) => i > 0 && l.trim() === "");
      const remove = blank > 0 && r() < 0.5;
      if (!remove && t === body.length - 1) continue;
      after = remove
        ? [...body.slice(0, blank), ...body.slice(blank + 1)]
        : [...body.slice(0, t + 1), "", ...body.slice(t + 1)];
    } else if (kind === "dedent") {
      // Python: the last line of a block moves out of it (a `return` leaving a loop, say).
      if (lang !== "python") continue;
      const next = body.slice(t + 1).find((l) => l.trim() !== "");
      const prev = body
        .slice(0, t)
        .reverse()
        .find((l) => l.trim() !== "");
      if (!next || !prev || lead(next).length >= lead(line).length || lead(prev) !== lead(line)) continue;
      if (/[:\\,(]\s*$/.test(line)) continue;
      after = [...body.slice(0, t), `${lead(next)}${line.trimStart()}`, ...body.slice(t + 1)];
    } else if (kind === "wrap") {
      // The line moves into a new conditional block: its own indentation changes.
      const next = body[t + 1];
      const simple = /[;)\w"']\s*$/.test(line) && !/[:{(,[\\]\s*$/.test(line);
      if (!simple || (next !== undefined && next.trim() !== "" && lead(next).length > lead(line).length))
        continue;
      const ind = lead(line);
      const inner = `${ind}${unitStr}${line.trimStart()}`;
      const wrapped =
        lang === "python"
          ? [`${ind}if True:`, inner]
          : [`${ind}if ${lang === "go" ? "true" : "(true)"} {`, inner, `${ind}}`];
      after = [...body.slice(0, t), ...wrapped, ...body.slice(t + 1)];
    } else if (kind === "token") {
      const changed = tokenChange(r, line);
      if (changed) after = [...body.slice(0, t), changed, ...body.slice(t + 1)];
    } else {
      const opens = /[:{]\s*$/.test(line.trim());
      const next = body.slice(t + 1).find((l) => l.trim() !== "");
      const indent = opens ? lead(next ?? line + unitStr) : lead(line);
      if (opens && (!next || lead(next).length <= lead(line).length)) continue;
      const added =
        kind === "insert"
          ? [`${indent}${newStatement(lang, r, line)}`]
          : newBlock(lang, r, line, indent, unitStr);
      after = [...body.slice(0, t + 1), ...added, ...body.slice(t + 1)];
    }
    if (!after) continue;
    const full = [...lines.slice(0, w.start), ...after, ...lines.slice(w.end)].join("\n");
    if ((await problems(lang, full)) > base) continue;
    return { window: w, after, target: t, kind };
  }
  return null;
}

export function applyChanges(lines: string[], changes: Change[]): string[] {
  const sorted = [...changes].sort((a, b) => b.window.start - a.window.start);
  let out = lines.slice();
  for (const c of sorted) out = [...out.slice(0, c.window.start), ...c.after, ...out.slice(c.window.end)];
  return out;
}

export function editText(file: string, orig: string[], patched: string[], fileAttrs = ""): string {
  return `<file${fileAttrs}>${file}</file>\n<original>\n${orig.join("\n")}\n</original>\n<patched>\n${patched.join("\n")}\n</patched>\n`;
}

export function dedent(lines: string[], by?: number): string[] {
  const n = by ?? Math.min(...lines.filter((l) => l.trim() !== "").map((l) => lead(l).length));
  return lines.map((l) => (l.trim() === "" ? "" : l.slice(Math.min(n, lead(l).length))));
}

export { choice, int, lead, occurrences, pickWindow, problems, squash, unitOf, EXT };
export type { Rand, Window };
