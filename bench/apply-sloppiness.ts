/**
 * Sloppiness generated from answers: a correct answer (an <original> copied from a real file and a
 * <patched> with a known change) is rewritten the way models get answers wrong, one kind at a time.
 * Every rewrite keeps the intent recoverable, so the right outcome is the intended file exactly; a
 * refusal is acceptable, any other file is a wrong application.
 */
import type { LanguageId } from "../src/languages/index.ts";
import {
  applyChanges,
  type Change,
  choice,
  dedent,
  editText,
  int,
  lead,
  type Rand,
  unitOf,
} from "./apply-corpus.ts";

/** One known change to one real file. */
export interface Intent {
  lang: LanguageId;
  path: string;
  /** The file's lines. */
  lines: string[];
  change: Change;
  orig: string[];
  patched: string[];
}

export interface Rendered {
  answer: string;
  /** Replaces the repository's file (a CRLF file, a file without final newline), else the file as is. */
  file?: string;
  expected?: string;
}

export type Sloppiness = (r: Rand, it: Intent) => Rendered | null;

export const expectedOf = (it: Intent): string => applyChanges(it.lines, [it.change]).join("\n");

const commentMark = (lang: LanguageId) => (lang === "python" ? "#" : "//");
const isComment = (lang: LanguageId, l: string) => l.trim().startsWith(commentMark(lang));
const minLead = (ls: readonly string[]) => {
  const widths = ls.filter((l) => l.trim() !== "").map((l) => lead(l).length);
  return widths.length === 0 ? 0 : Math.min(...widths);
};
const hasTabs = (ls: readonly string[]) => ls.some((l) => lead(l).includes("\t"));

function toTabs(lines: readonly string[], unit: number): string[] {
  return lines.map((l) => {
    const ws = lead(l);
    if (ws.includes("\t")) return l;
    return "\t".repeat(Math.floor(ws.length / unit)) + " ".repeat(ws.length % unit) + l.slice(ws.length);
  });
}
const toSpaces = (lines: readonly string[]) =>
  lines.map((l) => l.replace(/^\t+/, (t) => "    ".repeat(t.length)));

/** Lines equal at the start and at the end of <original> and <patched> (the change sits between). */
function common(it: Intent): { head: number; tail: number } {
  const o = it.orig;
  const p = it.patched;
  let head = 0;
  while (head < o.length && head < p.length && o[head] === p[head]) head++;
  let tail = 0;
  while (
    tail < o.length - head &&
    tail < p.length - head &&
    o[o.length - 1 - tail] === p[p.length - 1 - tail]
  )
    tail++;
  return { head, tail };
}

const plain = (it: Intent, o: string[], q: string[], name = it.path): Rendered => ({
  answer: editText(name, o, q),
});

export const SLOPPINESS: Record<string, Sloppiness> = {
  exact: (_r, it) => plain(it, it.orig, it.patched),
  "fences, headers and prose": (_r, it) => ({
    answer: `The bug is in the loop. Fix:\n\n# modification 1\n\`\`\`${it.lang}\n${editText(it.path, it.orig, it.patched)}\`\`\`\n\nThis keeps the other cases working.`,
  }),
  "block dedented": (_r, it) => {
    const n = minLead([...it.orig, ...it.patched]);
    if (n === 0) return null;
    return plain(it, dedent(it.orig, n), dedent(it.patched, n));
  },
  "patched from column 0": (_r, it) => {
    if (minLead(it.patched) === 0) return null;
    return plain(it, it.orig, dedent(it.patched));
  },
  "first line unindented, rest absolute": (_r, it) => {
    if (lead(it.orig[0]!) === "" || lead(it.patched[0]!) === "") return null;
    return plain(
      it,
      [it.orig[0]!.trimStart(), ...it.orig.slice(1)],
      [it.patched[0]!.trimStart(), ...it.patched.slice(1)],
    );
  },
  "first line of patched unindented": (_r, it) => {
    if (lead(it.patched[0]!) === "") return null;
    return plain(it, it.orig, [it.patched[0]!.trimStart(), ...it.patched.slice(1)]);
  },
  "original dedented, patched absolute": (_r, it) => {
    if (minLead(it.orig) === 0) return null;
    return plain(it, dedent(it.orig), it.patched);
  },
  "comment of patched at column 0": (r, it) => {
    const at = it.patched
      .map((_l, i) => i)
      .filter((i) => i > 0 && isComment(it.lang, it.patched[i]!) && lead(it.patched[i]!) !== "");
    if (at.length === 0) return null;
    const i = choice(r, at);
    return plain(
      it,
      it.orig,
      it.patched.map((l, k) => (k === i ? l.trimStart() : l)),
    );
  },
  "tabs and spaces swapped": (_r, it) => {
    const style = unitOf(it.lines);
    const conv = style.tabs ? toSpaces : (ls: readonly string[]) => toTabs(ls, style.unit);
    const o = conv(it.orig);
    const q = conv(it.patched);
    if (o.join("\n") === it.orig.join("\n") && q.join("\n") === it.patched.join("\n")) return null;
    return plain(it, o, q);
  },
  "patched in tabs, file in spaces (or the reverse)": (_r, it) => {
    const style = unitOf(it.lines);
    const q = style.tabs ? toSpaces(it.patched) : toTabs(it.patched, style.unit);
    if (q.join("\n") === it.patched.join("\n")) return null;
    return plain(it, it.orig, q);
  },
  "another indentation width": (_r, it) => {
    const style = unitOf(it.lines);
    if (style.tabs || hasTabs([...it.orig, ...it.patched]) || (style.unit !== 2 && style.unit !== 4))
      return null;
    const to = style.unit === 4 ? 2 : 4;
    const scale = (ls: readonly string[]) =>
      ls.map((l) => {
        const w = lead(l).length;
        if (l.trim() === "" || w % style.unit !== 0) return l;
        return " ".repeat((w / style.unit) * to) + l.trimStart();
      });
    // Only blocks whose every line sits on a level, one level at most deeper than the line before it
    // (in the file too), and that hold no continuation lines, can be rescaled without guessing.
    const before = it.lines.slice(0, it.change.window.start).findLast((l) => l.trim() !== "");
    for (const block of [it.orig, it.patched]) {
      let prev: number | null = before === undefined ? null : lead(before).length;
      for (const l of block) {
        if (l.trim() === "") continue;
        const w = lead(l).length;
        if (w % style.unit !== 0 || (prev !== null && w > prev + style.unit)) return null;
        if (/^\s*(\?|:|\.|&&|\|\||\+|-|\*|\/\/|#)/.test(l) && !/^\s*(#|\/\/)/.test(l)) return null;
        if (before !== undefined && /[(,[+\-*/&|?:=\\]\s*$/.test(before) && block === it.orig) return null;
        prev = w;
      }
    }
    return plain(it, scale(it.orig), scale(it.patched));
  },
  "line-number prefixes": (r, it) => {
    const fmt = choice(r, [
      (n: number) => `${n} `,
      (n: number) => `${n}:`,
      (n: number) => `${String(n).padStart(6)}\t`,
    ]);
    const first = it.change.window.start + 1;
    const o = it.orig.map((l, i) => fmt(first + i) + l);
    const q = r() < 0.5 ? it.patched.map((l, i) => fmt(first + i) + l) : it.patched;
    return plain(it, o, q);
  },
  "trailing whitespace, CRLF answer": (_r, it) => ({
    answer: editText(
      it.path,
      it.orig.map((l, i) => (i % 2 === 0 && l.trim() !== "" ? `${l}   ` : l)),
      it.patched,
    ).replaceAll("\n", "\r\n"),
  }),
  "blank lines left out": (_r, it) => {
    if (it.change.kind === "blank" || !it.orig.some((l) => l.trim() === "")) return null;
    const drop = (ls: readonly string[]) => ls.filter((l) => l.trim() !== "");
    return plain(it, drop(it.orig), drop(it.patched));
  },
  "blank line added in both": (r, it) => {
    if (it.change.kind === "blank") return null;
    const { head } = common(it);
    if (head < 2) return null;
    const at = int(r, 1, head - 1);
    if (it.orig[at - 1]!.trim() === "" || it.orig[at]!.trim() === "") return null;
    const add = (ls: readonly string[]) => [...ls.slice(0, at), "", ...ls.slice(at)];
    return plain(it, add(it.orig), add(it.patched));
  },
  "indentation noise in original": (r, it) => {
    const noisy = it.orig.map((l, i) => {
      if (i === 0 || l.trim() === "" || r() < 0.5) return l;
      return r() < 0.5 && l.startsWith(" ") ? l.slice(1) : ` ${l}`;
    });
    return plain(it, noisy, it.patched);
  },
  "file named another way": (r, it) => {
    const base = it.path.split("/").pop()!;
    const name = choice(r, [
      base,
      it.path.split("/").slice(-2).join("/"),
      `/repo/${it.path}`,
      `./${it.path}`,
      `repo/${it.path}`,
      `project/${it.path}`,
      `${it.path}:${it.change.window.start + 1}`,
      `${it.path} (lines ${it.change.window.start + 1}-${it.change.window.end})`,
    ]);
    return plain(it, it.orig, it.patched, name);
  },
  "misremembered context line": (r, it) => {
    const { head, tail } = common(it);
    const ctx = it.orig
      .map((_l, i) => i)
      .filter(
        (i) =>
          (i < head - 1 || i > it.orig.length - tail) &&
          (it.orig[i]!.match(/\w+|[^\s\w]/g) ?? []).length >= 6,
      );
    if (ctx.length === 0) return null;
    const c = choice(r, ctx);
    const ids = [...it.orig[c]!.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{2,}\b/g)];
    if (ids.length === 0) return null;
    const m = choice(r, ids);
    const wrong = `${it.orig[c]!.slice(0, m.index)}${m[0]}Old${it.orig[c]!.slice(m.index + m[0].length)}`;
    const pi = c < head ? c : it.patched.length - (it.orig.length - c);
    return plain(
      it,
      it.orig.map((l, i) => (i === c ? wrong : l)),
      it.patched.map((l, i) => (i === pi ? wrong : l)),
    );
  },
  "placeholder for unchanged trailing lines": (_r, it) => {
    const { tail } = common(it);
    if (tail < 3) return null;
    const keep = it.patched.slice(0, it.patched.length - tail + 1);
    if (keep.at(-1)!.trim() === "") return null;
    const rest = it.patched.slice(it.patched.length - tail + 1);
    const ph = `${lead(rest.find((l) => l.trim() !== "") ?? "")}${commentMark(it.lang)} ... rest of the code unchanged ...`;
    return plain(it, it.orig, [...keep, ph]);
  },
  "CRLF file": (_r, it) => ({
    answer: editText(it.path, it.orig, it.patched),
    file: it.lines.join("\r\n"),
    expected: expectedOf(it).replaceAll("\n", "\r\n"),
  }),
  "file without final newline": (_r, it) => ({
    answer: editText(it.path, it.orig, it.patched),
    file: it.lines.join("\n").replace(/\n+$/, ""),
    expected: expectedOf(it).replace(/\n+$/, ""),
  }),
  "dedented, numbered, fenced": (_r, it) => {
    const n = minLead([...it.orig, ...it.patched]);
    if (n === 0) return null;
    const first = it.change.window.start + 1;
    const o = dedent(it.orig, n).map((l, i) => `${first + i}: ${l}`);
    return {
      answer: `\`\`\`\n${editText(it.path, o, dedent(it.patched, n))}\`\`\`\n`,
    };
  },
  "patched from column 0, first line of original unindented": (_r, it) => {
    if (minLead(it.patched) === 0 || lead(it.orig[0]!) === "") return null;
    return plain(it, [it.orig[0]!.trimStart(), ...it.orig.slice(1)], dedent(it.patched));
  },
};

/** Kinds whose every answer should be refused (the intent cannot be applied as asked). */
export const SLOPPY_REFUSALS: Record<string, Sloppiness> = {
  "already applied": (_r, it) => {
    if (it.change.kind === "blank") return null;
    return { answer: editText(it.path, it.orig, it.patched), file: expectedOf(it), expected: expectedOf(it) };
  },
};
