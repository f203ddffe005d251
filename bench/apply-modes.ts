/**
 * The failure modes of the apply benchmark: each turns a real file and a known change into a model
 * answer and its known correct outcome (the changed text, or a refusal).
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
  makeChange,
  occurrences,
  pickWindow,
  problems,
  type Rand,
  type Sample,
  unitOf,
} from "./apply-corpus.ts";
import type { Source } from "./apply-sources.ts";

type Draft = Omit<Sample, "id" | "mode" | "lang">;
export type Mode = (r: Rand, src: Source, pool: Source[]) => Promise<Draft | null>;

export const pathOf = (src: Source) => `pkg/${src.lang}/${src.name}`;
const decoys = (): Record<string, string> => ({
  "README.md": "# sample project\n",
  "pkg/notes/CHANGES.txt": "1.0: first release\n",
});

interface Prepared {
  lines: string[];
  path: string;
  change: Change;
  orig: string[];
  patched: string[];
}

export async function prepare(
  r: Rand,
  src: Source,
  opts: {
    size?: [number, number];
    needBlank?: boolean;
    avoidFirst?: boolean;
    kinds?: Change["kind"][];
    targetMax?: number;
  } = {},
): Promise<Prepared | null> {
  const lines = src.text.split("\n");
  const [lo, hi] = opts.size ?? [3, 8];
  const w = pickWindow(r, lines, int(r, lo, hi), opts.needBlank);
  if (!w) return null;
  const change = await makeChange(r, src.lang, lines, w, {
    ...(opts.avoidFirst ? { avoidFirst: true } : {}),
    ...(opts.kinds ? { kinds: opts.kinds } : {}),
    ...(opts.targetMax !== undefined ? { targetMax: opts.targetMax } : {}),
  });
  if (!change) return null;
  return { lines, path: pathOf(src), change, orig: lines.slice(w.start, w.end), patched: change.after };
}

function applied(p: Prepared, answer: string, extra: Partial<Draft> = {}): Draft {
  return {
    shouldApply: true,
    files: { ...decoys(), [p.path]: p.lines.join("\n") },
    answer,
    expected: { [p.path]: applyChanges(p.lines, [p.change]).join("\n") },
    ...extra,
  };
}

export function refused(files: Record<string, string>, answer: string, extra: Partial<Draft> = {}): Draft {
  return { shouldApply: false, files: { ...decoys(), ...files }, answer, expected: {}, ...extra };
}

export const placeholderFor = (lang: LanguageId) =>
  lang === "python" ? "# ... existing code ..." : "// ... rest of the code unchanged ...";

/** Changes one token of a line (a misremembered or hallucinated detail). */
export function misremember(r: Rand, line: string): string | null {
  const ids = [...line.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{2,}\b/g)];
  if (ids.length === 0) return null;
  const m = choice(r, ids);
  return `${line.slice(0, m.index)}${m[0]}Old${line.slice(m.index + m[0].length)}`;
}

const toTabs = (lines: string[], unit: number) =>
  lines.map((l) => {
    const ws = lead(l);
    if (ws.includes("\t")) return l;
    return "\t".repeat(Math.floor(ws.length / unit)) + " ".repeat(ws.length % unit) + l.slice(ws.length);
  });
const toSpaces = (lines: string[]) => lines.map((l) => l.replace(/^\t+/, (t) => "    ".repeat(t.length)));

export const APPLY_MODES: Record<string, Mode> = {
  async exact(r, src) {
    const p = await prepare(r, src);
    return p && applied(p, editText(p.path, p.orig, p.patched));
  },
  async "fences, headers and prose"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const lang = src.lang;
    const answer = `I found the problem. The fix:\n\n# modification 1\n\`\`\`${lang}\n${editText(`./${p.path}`, p.orig, p.patched)}\`\`\`\n\nThis keeps the behaviour for other inputs.`;
    return applied(p, answer);
  },
  async "dedented block"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const n = Math.min(...p.orig.filter((l) => l.trim() !== "").map((l) => lead(l).length));
    return applied(p, editText(p.path, dedent(p.orig, n), dedent(p.patched, n)));
  },
  async "first line unindented"(r, src) {
    const p = await prepare(r, src, { avoidFirst: true });
    if (!p || lead(p.orig[0]!) === "") return null;
    const o = [p.orig[0]!.trimStart(), ...p.orig.slice(1)];
    const q = [p.patched[0]!.trimStart(), ...p.patched.slice(1)];
    return applied(p, editText(p.path, o, q));
  },
  async "original dedented, patched absolute"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    return applied(p, editText(p.path, dedent(p.orig), p.patched));
  },
  async "tabs and spaces swapped"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const style = unitOf(p.lines);
    const conv = style.tabs ? toSpaces : (ls: string[]) => toTabs(ls, style.unit);
    return applied(p, editText(p.path, conv(p.orig), conv(p.patched)));
  },
  async "line-number prefixes"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const fmt = choice(r, [
      (n: number) => `${n} `,
      (n: number) => `${n}:`,
      (n: number) => `${String(n).padStart(6)}\t`,
    ]);
    const first = p.change.window.start + 1;
    const o = p.orig.map((l, i) => fmt(first + i) + l);
    const numberPatched = r() < 0.5;
    const q = numberPatched ? p.patched.map((l, i) => fmt(first + i) + l) : p.patched;
    return applied(p, editText(p.path, o, q));
  },
  async "CRLF file"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const d = applied(p, editText(p.path, p.orig, p.patched));
    d.files[p.path] = d.files[p.path]!.replaceAll("\n", "\r\n");
    d.expected[p.path] = d.expected[p.path]!.replaceAll("\n", "\r\n");
    return d;
  },
  async "trailing whitespace, CRLF answer"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const o = p.orig.map((l, i) => (i % 2 === 0 && l.trim() !== "" ? `${l}   ` : l));
    return applied(p, editText(p.path, o, p.patched).replaceAll("\n", "\r\n"));
  },
  async "blank line left out"(r, src) {
    const p = await prepare(r, src, { size: [5, 10], needBlank: true });
    if (!p) return null;
    const drop = (ls: string[]) => ls.filter((l) => l.trim() !== "");
    return applied(p, editText(p.path, drop(p.orig), drop(p.patched)));
  },
  async "blank line added"(r, src) {
    const p = await prepare(r, src, { size: [4, 8], kinds: ["token"] });
    if (!p) return null;
    const at = int(r, 1, p.orig.length - 1);
    if (p.orig[at - 1]!.trim() === "" || p.orig[at]!.trim() === "") return null;
    const add = (ls: string[]) => [...ls.slice(0, at), "", ...ls.slice(at)];
    return applied(p, editText(p.path, add(p.orig), add(p.patched)));
  },
  async "indentation noise in original"(r, src) {
    const p = await prepare(r, src, { size: [4, 8] });
    if (!p) return null;
    const noisy = p.orig.map((l, i) => {
      if (i === 0 || l.trim() === "" || r() < 0.5) return l;
      return r() < 0.5 && l.startsWith(" ") ? l.slice(1) : ` ${l}`;
    });
    return applied(p, editText(p.path, noisy, p.patched));
  },
  async "file named by basename, suffix or absolute path"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const name = choice(r, [src.name, `${src.lang}/${src.name}`, `/repo/${p.path}`]);
    return applied(p, editText(name, p.orig, p.patched));
  },
  async "misremembered context line"(r, src) {
    const p = await prepare(r, src, { size: [6, 10], kinds: ["token"] });
    if (!p) return null;
    const t = p.change.target;
    const ctx = p.orig
      .map((_l, i) => i)
      .filter((i) => i !== t && Math.abs(i - t) > 0 && (p.orig[i]!.match(/\w+|[^\s\w]/g) ?? []).length >= 6);
    if (ctx.length === 0) return null;
    const c = choice(r, ctx);
    const wrong = misremember(r, p.orig[c]!);
    if (!wrong) return null;
    const o = p.orig.map((l, i) => (i === c ? wrong : l));
    const q = p.patched.map((l, i) => (i === c ? wrong : l));
    return applied(p, editText(p.path, o, q));
  },
  async "placeholder for unchanged lines"(r, src) {
    const p = await prepare(r, src, { size: [6, 10], kinds: ["token"], targetMax: 2 });
    if (!p) return null;
    const t = p.change.target;
    const keep = p.patched.slice(0, t + 2);
    const rest = p.orig.slice(t + 2);
    if (rest.length < 2 || keep.at(-1)!.trim() === "") return null;
    const ph = `${lead(rest.find((l) => l.trim() !== "") ?? "")}${placeholderFor(src.lang)}`;
    return applied(p, editText(p.path, p.orig, [...keep, ph]));
  },
  async "placeholder eliding part of the original"(r, src) {
    const p = await prepare(r, src, { size: [8, 12], kinds: ["token"] });
    if (!p) return null;
    const t = p.change.target;
    const n = p.orig.length;
    const g0 = t < n / 2 ? int(r, t + 2, n - 4) : int(r, 1, Math.max(1, t - 3));
    const g1 = g0 + int(r, 2, 3);
    if (
      g0 < 1 ||
      g1 > n - 1 ||
      (t >= g0 && t < g1) ||
      p.orig[g0 - 1]!.trim() === "" ||
      p.orig[g1]!.trim() === ""
    ) {
      return null;
    }
    // The elided form must still name one place: the two runs, in order, with a gap, occur once.
    const sq = p.lines.map((l) => l.trim().replace(/\s+/g, " "));
    const at = (seg: string[]) => {
      const want = seg.map((l) => l.trim().replace(/\s+/g, " "));
      const out: number[] = [];
      for (let i = 0; i + want.length <= sq.length; i++)
        if (want.every((w, k) => sq[i + k] === w)) out.push(i);
      return out;
    };
    const head = p.orig.slice(0, g0);
    const tail = p.orig.slice(g1);
    let placements = 0;
    for (const i of at(head))
      for (const j of at(tail)) if (j >= i + head.length && j - i - head.length <= 400) placements++;
    if (placements !== 1) return null;
    const ph = `${lead(p.orig[g0]!)}${placeholderFor(src.lang)}`;
    const elide = (ls: string[]) => [...ls.slice(0, g0), ph, ...ls.slice(g1)];
    return applied(p, editText(p.path, elide(p.orig), elide(p.patched)));
  },
  async "two edits in one file"(r, src) {
    const lines = src.text.split("\n");
    const half = Math.floor(lines.length / 2);
    const w1 = pickWindow(r, lines.slice(0, half - 5), int(r, 3, 6));
    const w2raw = pickWindow(r, lines.slice(half), int(r, 3, 6));
    if (!w1 || !w2raw) return null;
    const w2 = { start: w2raw.start + half, end: w2raw.end + half };
    // Each window must be unique in the whole file, not only in its half.
    if (occurrences(lines, w1) !== 1 || occurrences(lines, w2) !== 1) return null;
    const c1 = await makeChange(r, src.lang, lines, w1);
    const c2 = await makeChange(r, src.lang, lines, w2);
    if (!c1 || !c2) return null;
    const path = pathOf(src);
    const expected = applyChanges(lines, [c1, c2]).join("\n");
    // Both changes together must still parse.
    if ((await problems(src.lang, expected)) > 0) return null;
    const first = r() < 0.5 ? [c1, c2] : [c2, c1];
    const answer = first
      .map(
        (c, i) =>
          `# modification ${i + 1}\n${editText(path, lines.slice(c.window.start, c.window.end), c.after)}`,
      )
      .join("\n");
    return {
      shouldApply: true,
      files: { ...decoys(), [path]: lines.join("\n") },
      answer,
      expected: { [path]: expected },
    };
  },
  async "two edits sharing a context line"(r, src) {
    const lines = src.text.split("\n");
    const w = pickWindow(r, lines, 9);
    if (!w) return null;
    const w1 = { start: w.start, end: w.start + 5 };
    const w2 = { start: w.start + 4, end: w.end };
    if (occurrences(lines, w1) !== 1 || occurrences(lines, w2) !== 1) return null;
    const c1 = await makeChange(r, src.lang, lines, w1, { kinds: ["token"], targetMax: 3 });
    const c2 = await makeChange(r, src.lang, lines, w2, { kinds: ["token"], avoidFirst: true });
    if (!c1 || !c2) return null;
    const expectedLines = lines.slice();
    expectedLines[w1.start + c1.target] = c1.after[c1.target]!;
    expectedLines[w2.start + c2.target] = c2.after[c2.target]!;
    const expected = expectedLines.join("\n");
    if ((await problems(src.lang, expected)) > 0) return null;
    const path = pathOf(src);
    const answer = [c1, c2]
      .map((c) => editText(path, lines.slice(c.window.start, c.window.end), c.after))
      .join("\n");
    return {
      shouldApply: true,
      files: { ...decoys(), [path]: lines.join("\n") },
      answer,
      expected: { [path]: expected },
    };
  },
  async "edits in two files"(r, src, pool) {
    const others = pool.filter((s) => s.lang === src.lang && s.name !== src.name);
    if (others.length === 0) return null;
    const other = choice(r, others);
    const p1 = await prepare(r, src);
    const p2 = await prepare(r, other);
    if (!p1 || !p2) return null;
    p2.path = `lib/${other.name}`;
    return {
      shouldApply: true,
      files: { ...decoys(), [p1.path]: p1.lines.join("\n"), [p2.path]: p2.lines.join("\n") },
      answer: `${editText(p1.path, p1.orig, p1.patched)}\nAlso:\n${editText(p2.path, p2.orig, p2.patched)}`,
      expected: {
        [p1.path]: applyChanges(p1.lines, [p1.change]).join("\n"),
        [p2.path]: applyChanges(p2.lines, [p2.change]).join("\n"),
      },
    };
  },
  async "file without final newline"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const d = applied(p, editText(p.path, p.orig, p.patched));
    d.files[p.path] = d.files[p.path]!.replace(/\n+$/, "");
    d.expected[p.path] = d.expected[p.path]!.replace(/\n+$/, "");
    return d;
  },
};
