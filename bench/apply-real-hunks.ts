/**
 * Real code changes as model answers: each hunk of the diff between two versions of a file becomes an
 * `<original>`/`<patched>` answer (its old lines with their context, its new lines with the same
 * context), written exactly as the file has it, or with every line shifted by the same number of
 * indentation levels. The expected outcome is the old file with that hunk's lines replaced by its new
 * lines: the new version's text in that region, computed by line surgery here, never by the engine.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Hunk {
  /** 0-based first line of the old file the hunk replaces. */
  start: number;
  /** Old lines replaced (context included). */
  old: string[];
  /** New lines put in their place (context included). */
  new: string[];
}

export interface RealFile {
  lang: string;
  /** Where the two versions come from, e.g. "npm semver 7.3.8 -> 7.6.3". */
  source: string;
  path: string;
  old: string;
  hunks: Hunk[];
}

/** The hunks of `git diff --no-index` between two texts, with `context` lines of context. */
export function diffHunks(oldText: string, newText: string, context = 3): Hunk[] {
  const dir = mkdtempSync(join(tmpdir(), "apply-real-"));
  try {
    writeFileSync(join(dir, "a"), oldText);
    writeFileSync(join(dir, "b"), newText);
    let out = "";
    try {
      out = execFileSync(
        "git",
        ["diff", "--no-index", "--no-color", "--no-ext-diff", `-U${context}`, join(dir, "a"), join(dir, "b")],
        { encoding: "utf8", maxBuffer: 64 << 20 },
      );
    } catch (err) {
      // git diff exits 1 when the files differ.
      out = (err as { stdout?: string }).stdout ?? "";
    }
    return parseHunks(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseHunks(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let cur: (Hunk & { noEol: boolean }) | null = null;
  const done = () => {
    if (cur && !cur.noEol) hunks.push({ start: cur.start, old: cur.old, new: cur.new });
    cur = null;
  };
  for (const line of diff.split("\n")) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (m) {
      done();
      const from = Number(m[1]);
      const len = m[2] === undefined ? 1 : Number(m[2]);
      cur = { start: len === 0 ? from : from - 1, old: [], new: [], noEol: false };
      continue;
    }
    if (!cur) continue;
    const c = cur as Hunk & { noEol: boolean };
    if (line.startsWith(" ")) {
      c.old.push(line.slice(1));
      c.new.push(line.slice(1));
    } else if (line.startsWith("-")) c.old.push(line.slice(1));
    else if (line.startsWith("+")) c.new.push(line.slice(1));
    // A change to the file's final newline is not a change an answer of lines can state.
    else if (line.startsWith("\\")) c.noEol = true;
  }
  done();
  return hunks;
}

function occurrences(lines: readonly string[], block: readonly string[]): number {
  let n = 0;
  for (let i = 0; i + block.length <= lines.length; i++) {
    let ok = true;
    for (let j = 0; j < block.length && ok; j++) ok = lines[i + j] === block[j];
    if (ok && ++n > 1) return n;
  }
  return n;
}

/**
 * The hunk with as much more context (up to `max` lines each side) as its old lines need to occur once
 * in the file, or null when they never do or hold no code. A model copies enough lines to say where.
 */
export function uniqueHunk(lines: readonly string[], h: Hunk, max = 8): Hunk | null {
  let { start } = h;
  let old = h.old;
  let nw = h.new;
  for (let extra = 0; extra <= max; extra++) {
    if (old.some((l) => l.trim() !== "") && occurrences(lines, old) === 1) return { start, old, new: nw };
    const before = start > 0 ? [lines[start - 1]!] : [];
    const afterAt = start + old.length;
    const after = afterAt < lines.length ? [lines[afterAt]!] : [];
    if (before.length === 0 && after.length === 0) return null;
    start -= before.length;
    old = [...before, ...old, ...after];
    nw = [...before, ...nw, ...after];
  }
  return null;
}

/** The file with one hunk applied: its old lines replaced by its new lines. */
export function applyHunk(text: string, h: Hunk): string {
  const lines = text.split("\n");
  lines.splice(h.start, h.old.length, ...h.new);
  return lines.join("\n");
}

/** One level of the file's indentation: a tab, or the most common step in of its space-indented lines. */
export function levelOf(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const tabs = lines.filter((l) => l.startsWith("\t")).length;
  const spaced = lines.filter((l) => l.startsWith(" "));
  if (tabs > spaced.length) return "\t";
  const steps = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    if (l.startsWith("\t") || l.trimStart().startsWith("*")) continue;
    const w = l.length - l.trimStart().length;
    if (w > prev && w - prev <= 8) steps.set(w - prev, (steps.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  let best = 4;
  let n = 0;
  for (const [w, c] of steps) if (c > n) [best, n] = [w, c];
  return " ".repeat(best);
}

/**
 * Every line of the block moved `levels` levels (negative: out), blank lines left empty; null when a
 * line has too little indentation to move out.
 */
export function shiftLines(block: readonly string[], levels: number, level: string): string[] | null {
  const out: string[] = [];
  for (const l of block) {
    if (l.trim() === "") out.push(l);
    else if (levels >= 0) out.push(level.repeat(levels) + l);
    else {
      const cut = level.repeat(-levels);
      if (!l.startsWith(cut)) return null;
      out.push(l.slice(cut.length));
    }
  }
  return out;
}

/** The answer for one hunk. */
export function answerFor(path: string, original: readonly string[], patched: readonly string[]): string {
  return `<file>${path}</file>\n<original>\n${original.join("\n")}\n</original>\n<patched>\n${patched.join("\n")}\n</patched>\n`;
}

/** The variants an answer is written in: exact, and every line shifted by ±1 and ±2 levels. */
export const SHIFTS = [0, 1, -1, 2, -2] as const;

export function variants(file: RealFile, h: Hunk): { shift: number; answer: string }[] {
  const level = levelOf(file.old);
  const out: { shift: number; answer: string }[] = [];
  for (const s of SHIFTS) {
    const o = shiftLines(h.old, s, level);
    const p = shiftLines(h.new, s, level);
    if (o && p) out.push({ shift: s, answer: answerFor(file.path, o, p) });
  }
  return out;
}
