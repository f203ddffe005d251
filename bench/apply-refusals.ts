/**
 * The should-refuse modes of the apply benchmark: answers whose right outcome is a refusal with a
 * reason (ambiguity, unsafe paths, broken syntax, unclear placeholders, ...).
 */
import type { LanguageId } from "../src/languages/index.ts";
import { choice, editText, lead, pickWindow, problems } from "./apply-corpus.ts";
import { type Mode, misremember, pathOf, placeholderFor, prepare, refused } from "./apply-modes.ts";

const TEST_PATH: Record<LanguageId, (base: string) => string> = {
  python: (b) => `tests/test_${b}.py`,
  javascript: (b) => `src/${b}.test.js`,
  typescript: (b) => `src/${b}.spec.ts`,
  tsx: (b) => `src/${b}.test.tsx`,
  java: (b) => `src/test/java/${b}Test.java`,
  go: (b) => `pkg/${b}_test.go`,
  rust: (b) => `tests/${b}.rs`,
  cpp: (b) => `tests/${b}_test.cpp`,
};

export const REFUSE_MODES: Record<string, Mode> = {
  async "ambiguous original"(r, src) {
    const lines = src.text.split("\n");
    const seen = new Map<string, number[]>();
    lines.forEach((l, i) => {
      if (l.trim().length < 8 || !/[A-Za-z]/.test(l)) return;
      const arr = seen.get(l.trimEnd());
      if (arr) arr.push(i);
      else seen.set(l.trimEnd(), [i]);
    });
    const dups = [...seen.values()].filter((v) => v.length >= 2);
    if (dups.length === 0) return null;
    const at = choice(r, dups)[0]!;
    const o = [lines[at]!];
    const q = [`${lines[at]!} ${src.lang === "python" ? "# checked" : "/* checked */"}`];
    return refused({ [pathOf(src)]: src.text }, editText(pathOf(src), o, q));
  },
  async "test file"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const path = TEST_PATH[src.lang](src.name.replace(/\.[^.]+$/, ""));
    return refused({ [path]: src.text }, editText(path, p.orig, p.patched));
  },
  async "CI configuration"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const path = `.github/scripts/${src.name}`;
    return refused({ [path]: src.text }, editText(path, p.orig, p.patched));
  },
  async "path outside the repository"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const name = choice(r, [`../${src.name}`, `/etc/${src.name}`, `pkg/../../${src.name}`]);
    return refused({ [p.path]: src.text }, editText(name, p.orig, p.patched));
  },
  async "protected by configuration"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const path = `vendor/lib/${src.name}`;
    return refused({ [path]: src.text }, editText(path, p.orig, p.patched), { protect: ["vendor/"] });
  },
  async "answer cut off"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const full = editText(p.path, p.orig, p.patched);
    const cut =
      full.indexOf("<patched>") + 10 + Math.floor((full.length - full.indexOf("<patched>") - 22) * r());
    return refused({ [p.path]: src.text }, full.slice(0, cut));
  },
  async "patch changes nothing"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    return refused({ [p.path]: src.text }, editText(p.path, p.orig, p.orig));
  },
  async "empty original"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    return refused({ [p.path]: src.text }, editText(p.path, [], p.patched));
  },
  async "syntax error"(r, src) {
    const p = await prepare(r, src, { kinds: ["token"] });
    if (!p) return null;
    const t = p.change.target;
    const line = p.patched[t]!;
    const broken = /\)\s*[;:{]?\s*$/.test(line)
      ? line.replace(/\)(\s*[;:{]?\s*)$/, "$1")
      : line.trimEnd().endsWith(":") || line.trimEnd().endsWith("{")
        ? `${line.trimEnd().slice(0, -1)} (`
        : `${line} (`;
    const q = p.patched.map((l, i) => (i === t ? broken : l));
    const full = [
      ...p.lines.slice(0, p.change.window.start),
      ...q,
      ...p.lines.slice(p.change.window.end),
    ].join("\n");
    if ((await problems(src.lang, full)) === 0) return null;
    return refused({ [p.path]: src.text }, editText(p.path, p.orig, q));
  },
  async "misremembered line that is changed"(r, src) {
    const p = await prepare(r, src, { size: [5, 9], kinds: ["token"] });
    if (!p) return null;
    const t = p.change.target;
    const wrong = misremember(r, p.orig[t]!);
    if (!wrong || wrong === p.patched[t]) return null;
    const o = p.orig.map((l, i) => (i === t ? wrong : l));
    const q = p.patched.map((l, i) =>
      i === t ? `${wrong.trimEnd()}${src.lang === "python" ? "  # fixed" : " // fixed"}` : l,
    );
    return refused({ [p.path]: src.text }, editText(p.path, o, q));
  },
  async "original not in the file"(r, src) {
    const p = await prepare(r, src, { size: [4, 8] });
    if (!p) return null;
    const idx = p.orig.map((_, i) => i).filter((i) => p.orig[i]!.trim().length > 5);
    if (idx.length < 3) return null;
    const bad = new Set(idx.slice(0, 3));
    const o: string[] = [];
    for (let i = 0; i < p.orig.length; i++) {
      const l = p.orig[i]!;
      o.push(bad.has(i) ? (misremember(r, l) ?? `${l} extra`) : l);
    }
    return refused({ [p.path]: src.text }, editText(p.path, o, p.patched));
  },
  async "placeholder among changed lines"(r, src) {
    const p = await prepare(r, src, { size: [5, 9], kinds: ["token"], targetMax: 2 });
    if (!p) return null;
    const t = p.change.target;
    if (p.orig.length - t < 3) return null;
    const q = [...p.patched.slice(0, t + 1), `${lead(p.orig[t]!)}${placeholderFor(src.lang)}`];
    return refused({ [p.path]: src.text }, editText(p.path, p.orig, q));
  },
  async "placeholder in original dropped from patched"(r, src) {
    const p = await prepare(r, src, { size: [7, 10], kinds: ["token"], targetMax: 1 });
    if (!p || p.orig.length < 7) return null;
    const ph = `${lead(p.orig[3]!)}${placeholderFor(src.lang)}`;
    const o = [...p.orig.slice(0, 3), ph, ...p.orig.slice(5)];
    const q = [...p.patched.slice(0, 3), ...p.patched.slice(5)];
    return refused({ [p.path]: src.text }, editText(p.path, o, q));
  },
  async "multi-edit answer with one bad edit"(r, src) {
    const p = await prepare(r, src);
    if (!p) return null;
    const lines = p.lines;
    const w = pickWindow(r, lines, 4);
    if (!w || (w.start < p.change.window.end && p.change.window.start < w.end)) return null;
    const o = lines.slice(w.start, w.end).map((l) => (l.trim() ? `${l.trimEnd()}Gone` : l));
    const answer = `${editText(p.path, p.orig, p.patched)}\n${editText(
      p.path,
      o,
      o.map((l) => l.replace("Gone", "")),
    )}`;
    return refused({ [p.path]: src.text }, answer);
  },
};
