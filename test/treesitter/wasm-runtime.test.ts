import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Tree } from "web-tree-sitter";
import { createParser, type LanguageId, type ParseOnce, parseSource } from "../../src/languages/index.ts";
import { parsePython } from "../../src/languages/python/parse.ts";
import { fastInputChunks, fastInputInstalled } from "../../src/treesitter/wasm-runtime.ts";
import { SOURCE_SAMPLES } from "../../bench/support/hostile-inputs.ts";
import { rng } from "../support/rng.ts";

/**
 * parseSource serves the parser its input from a UTF-16 copy of the text (wasm-runtime.ts) instead of
 * web-tree-sitter's own callback. The trees must be the very trees the stock callback gives: every
 * node's kind, span and position, for real code in every language and for the text shapes where a
 * copy can go wrong: chunk boundaries, surrogate pairs cut by a chunk end, lone surrogates, NULs, CRLF.
 */

/** Every node of the tree (named or not): kind, flags, span and position, in document order. */
function shape(tree: Tree): string[] {
  const out: string[] = [];
  const c = tree.walk();
  for (;;) {
    const s = c.startPosition;
    const e = c.endPosition;
    out.push(
      `${c.nodeType}${c.currentNode.isMissing ? "!" : ""} ${c.startIndex}-${c.endIndex} ${s.row}:${s.column}-${e.row}:${e.column}`,
    );
    if (c.gotoFirstChild()) continue;
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) {
        c.delete();
        return out;
      }
    }
  }
}

async function stockShape(lang: LanguageId, source: string): Promise<string[]> {
  const parser = await createParser(lang);
  // A function input: the stock callback copies what it returns. Python reads long comment runs with
  // included ranges (src/languages/python/parse.ts): the same reading, through the stock callback.
  const once: ParseOnce = (opts = {}) =>
    parser.parse(
      (i) => source.slice(i),
      null,
      opts.includedRanges ? { includedRanges: opts.includedRanges } : {},
    );
  const tree = lang === "python" ? parsePython(once, source) : once();
  assert.ok(tree);
  try {
    return shape(tree);
  } finally {
    tree.delete();
    parser.delete();
  }
}

async function fastShape(lang: LanguageId, source: string): Promise<string[]> {
  const tree = await parseSource(lang, source);
  try {
    return shape(tree);
  } finally {
    tree.delete();
  }
}

function filesUnder(dir: string, ext: string, limit: number): string[] {
  const out: string[] = [];
  const visit = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (out.length >= limit) return;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) {
        if (name !== "site-packages" && name !== "node_modules") visit(p);
      } else if (name.endsWith(ext) && st.size < 300_000) out.push(p);
    }
  };
  visit(dir);
  return out;
}

const STRANGE = ["é", "😀", "\uD800", "\uDFFF", "\0", "\r\n", "\r", "\t", "中文", "\u2028", "\uFEFF"];

/** `source` with odd characters pushed in, and padded so that some land on a chunk's last code units. */
function roughen(source: string, seed: number): string {
  const rand = rng(seed);
  let s = source;
  for (let k = 0; k < 12; k++) {
    const at = Math.floor(rand() * (s.length + 1));
    s = s.slice(0, at) + STRANGE[Math.floor(rand() * STRANGE.length)] + s.slice(at);
  }
  // A surrogate pair across the first chunk's end (code units 5118 and 5119).
  if (s.length > 5200) s = `${s.slice(0, 5118)}😀${s.slice(5118)}`;
  return s;
}

test("the bulk-copy input is what the installed web-tree-sitter calls", async () => {
  await parseSource("python", "x = 1\n");
  assert.equal(fastInputInstalled(), true, "web-tree-sitter no longer imports tree_sitter_parse_callback");
});

test("trees read through the bulk copy equal the stock callback's, in every language", async () => {
  const stdlib = execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], {
    encoding: "utf8",
  }).trim();
  const root = new URL("../../", import.meta.url).pathname;
  const corpus: [LanguageId, string][] = [];
  for (const f of filesUnder(stdlib, ".py", 40)) corpus.push(["python", readFileSync(f, "utf8")]);
  for (const f of filesUnder(join(root, "src"), ".ts", 25))
    corpus.push(["typescript", readFileSync(f, "utf8")]);
  for (const f of ["web-tree-sitter/web-tree-sitter.js", "zod/v4/classic/schemas.js"]) {
    corpus.push(["javascript", readFileSync(join(root, "node_modules", f), "utf8")]);
  }
  // The languages with only a short sample: as it is, and long enough to cross several chunks.
  const short = [
    ["java", SOURCE_SAMPLES.java],
    ["go", SOURCE_SAMPLES.go],
    ["tsx", SOURCE_SAMPLES.typescript],
  ] as const;
  for (const [lang, sample] of short) corpus.push([lang, sample], [lang, sample.repeat(40)]);
  const texts: [LanguageId, string][] = [];
  for (const [i, [lang, src]] of corpus.entries()) texts.push([lang, src], [lang, roughen(src, i + 1)]);
  // Texts that end on and around a chunk boundary.
  for (const n of [0, 1, 5118, 5119, 5120, 10238, 10239]) texts.push(["python", "a".repeat(n)]);
  texts.push(["python", `${"x = 1\n".repeat(853)}y😀`]); // a pair at code units 5118–5119
  // Over 4 MiB as UTF-16: a buffer of its own, not the kept one; the texts after it use the kept one.
  texts.push(["python", `x = 1\n#${"a😀".repeat(700_000)}\ny = 2\n`], ["python", "def f():\n    return 1\n"]);

  const before = fastInputChunks();
  let compared = 0;
  for (const [lang, source] of texts) {
    assert.deepEqual(
      await fastShape(lang, source),
      await stockShape(lang, source),
      `${lang}, ${source.length} units`,
    );
    compared++;
  }
  assert.ok(compared >= 150, `only ${compared} texts compared`);
  // Every text but the empty one asked for at least one chunk, through the bulk copy.
  assert.ok(fastInputChunks() - before >= compared - 1);
});

test("a parse with included ranges reads the same through the bulk copy", async () => {
  // Long comment runs are parsed with included ranges (src/languages/python/comment-runs.ts).
  const body = Array.from({ length: 400 }, (_, i) => `    # line ${i} with 😀 and \uD800\n`).join("");
  const source = `def f():\n${body}    return 1\n\n\nclass C:\n${body}    x = 2\n`;
  const fast = await fastShape("python", source);
  // A comment node over many lines: the runs were read with included ranges.
  const rows = (line: string): number[] => (/ (\d+):\d+-(\d+):\d+$/.exec(line) ?? []).slice(1).map(Number);
  assert.ok(fast.some((l) => l.startsWith("comment ") && rows(l)[1]! - rows(l)[0]! > 100));
  const parser = await createParser("python");
  const tree = parser.parse(source);
  assert.ok(tree);
  // Comments aside, the same tree as the plain parse.
  const plain = shape(tree).filter((l) => !l.startsWith("comment "));
  tree.delete();
  parser.delete();
  assert.deepEqual(
    fast.filter((l) => !l.startsWith("comment ")),
    plain,
  );
});
