import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Node, Parser, Tree } from "web-tree-sitter";
import { buildIndex } from "../../src/index/index.ts";
import { computePatch, createMemoryRepo } from "../../src/patch/index.ts";
import { createParser, ParseTimeLimitError, parseSource } from "../../src/languages/index.ts";
import { commentRunRanges } from "../../src/languages/python/comment-runs.ts";
import { edit } from "../patch/helpers.ts";
import { rng } from "../support/rng.ts";

/**
 * Long runs of comment lines are read by the parser as one comment each (python-comment-runs.ts): the
 * tree auto-fix gets must be the plain parser's tree, comments aside, for every text that parses
 * without error. The corpus is real modules of Python's own library with runs of comment lines pushed
 * in at random line boundaries (inside strings, brackets and continued lines too), in the shapes
 * sloppy and hostile files have: indentation deeper, shallower, in tabs, lines with quotes, backslashes,
 * triple quotes, NULs, surrogate pairs, carriage returns.
 */

let plainParser: Parser | null = null;
async function plainTree(source: string): Promise<Tree> {
  plainParser ??= await createParser("python");
  const tree = plainParser.parse(source);
  assert.ok(tree);
  return tree;
}

/** Every node but comments: kind, span and position, in document order. */
function shape(tree: Tree): string[] {
  const out: string[] = [];
  const visit = (n: Node): void => {
    if (n.type === "comment") return;
    const s = n.startPosition;
    const e = n.endPosition;
    out.push(
      `${n.type}${n.isMissing ? "!" : ""} ${n.startIndex}-${n.endIndex} ${s.row}:${s.column}-${e.row}:${e.column}`,
    );
    for (const c of n.children) if (c) visit(c);
  };
  visit(tree.rootNode);
  return out;
}

/** A comment node over more than one line: the parser read a group. */
function hasGroupedComment(tree: Tree): boolean {
  const visit = (n: Node): boolean =>
    (n.type === "comment" && n.endPosition.row > n.startPosition.row) ||
    n.children.some((c) => c !== null && visit(c));
  return visit(tree.rootNode);
}

const BODIES = [
  "plain words of a comment",
  'a "quoted" word',
  "an 'apostrophe",
  'triple """ quotes',
  "triple ''' quotes",
  "ends in a backslash \\",
  "x = {'a': [1, 2, (3,",
  "def fake(self): pass",
  "class Fake:",
  "naïve café ünïcode",
  "emoji 😀 at the end 😀",
  "",
  "#",
  "-".repeat(70),
  "tab\tinside",
  "trailing spaces   ",
];

function commentRun(r: () => number, nextIndent: string, crlf: boolean): string {
  const lines: string[] = [];
  // Mostly runs long enough to be grouped (32 lines), some just short of it.
  const n = r() < 0.2 ? 20 + Math.floor(r() * 12) : 32 + Math.floor(r() * 40);
  let indent = r() < 0.5 ? nextIndent : " ".repeat(Math.floor(r() * 12));
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.1) indent = indent.slice(0, Math.max(0, indent.length - 1 - Math.floor(r() * 4)));
    else if (roll < 0.2) indent += r() < 0.2 ? "\t" : "  ";
    else if (roll < 0.25) indent = "";
    if (r() < 0.06) {
      lines.push("");
      continue;
    }
    const body = BODIES[Math.floor(r() * BODIES.length)]!;
    lines.push(`${indent}#${r() < 0.5 ? " " : ""}${body}`);
  }
  // Now and then a NUL, which ends a comment for the parser (the text then has a syntax error).
  if (r() < 0.05) lines[Math.floor(r() * lines.length)] += " NUL \0 inside";
  return lines.map((l) => l + (crlf ? "\r\n" : "\n")).join("");
}

/** `source` with comment runs pushed in at random line boundaries. */
function withRuns(source: string, r: () => number): string {
  const crlf = r() < 0.1;
  const lines = source.split("\n");
  const out: string[] = [];
  const runs = 1 + Math.floor(r() * 4);
  const at = new Set(Array.from({ length: runs }, () => Math.floor(r() * lines.length)));
  for (let i = 0; i < lines.length; i++) {
    if (at.has(i)) {
      const next = lines[i] ?? "";
      const run = commentRun(r, /^[ \t]*/.exec(next)?.[0] ?? "", crlf);
      out.push(run.slice(0, -(crlf ? 2 : 1)));
    }
    out.push(crlf ? `${lines[i]}\r` : lines[i]!);
  }
  return out.join("\n");
}

function stdlibFiles(limit: number): string[] {
  const dir = execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], {
    encoding: "utf8",
  }).trim();
  assert.ok(existsSync(dir), "python3 and its standard library are needed for this test");
  const all: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && e.name !== "site-packages") walk(join(d, e.name));
      else if (e.isFile() && e.name.endsWith(".py") && statSync(join(d, e.name)).size < 40_000)
        all.push(join(d, e.name));
    }
  };
  walk(dir);
  // Spread over the whole library, not its first folder.
  const step = Math.max(1, Math.floor(all.length / limit));
  return all.filter((_f, i) => i % step === 0).slice(0, limit);
}

test("python: with comment runs read as one comment, every error-free text gets the plain parser's tree", async () => {
  const files = stdlibFiles(120);
  assert.ok(files.length >= 100, `${files.length} files`);
  let cases = 0;
  let errorFree = 0;
  let grouped = 0;
  for (const [k, file] of files.entries()) {
    const original = readFileSync(file, "utf8");
    for (let v = 0; v < 4; v++) {
      const r = rng(k * 31 + v);
      const source = v === 0 && commentRunRanges(original) ? original : withRuns(original, r);
      const plain = await plainTree(source);
      const got = await parseSource("python", source);
      try {
        cases++;
        if (plain.rootNode.hasError) {
          // "As far as it parses": either tree may come back, but one always does.
          continue;
        }
        errorFree++;
        assert.equal(got.rootNode.hasError, false, `${file} variant ${v}`);
        assert.deepEqual(shape(got), shape(plain), `${file} variant ${v}`);
        if (hasGroupedComment(got)) grouped++;
      } finally {
        plain.delete();
        got.delete();
      }
    }
  }
  // The corpus must exercise the grouping: most error-free variants hold a run that was read as one.
  assert.ok(errorFree > cases / 2, `${errorFree} of ${cases} variants parse without error`);
  assert.ok(grouped > errorFree / 2, `${grouped} of ${errorFree} error-free variants read a group`);
});

test("python: crafted runs inside strings, brackets and continued lines keep the plain tree", async () => {
  const run = (indent: string) =>
    Array.from({ length: 40 }, (_v, i) => `${indent}# line ${i} "of" '`).join("\n");
  const sources = [
    `x = """\n${run("")}\n"""\ndef f():\n    pass\n`,
    `x = '''\\\n${run("    ")}\n'''\n`,
    `y = (1,\n${run("  ")}\n     2)\nclass K:\n    a = 1\n`,
    `z = 1 + \\\n${run("")}\n`,
    `s = "abc\\\n${run("")}\n"\n`,
    `def f():\n    x = 1\n${run("        ")}\n${run("")}\n    return x\n`,
    `def f():\n    if x:\n        y = 1\n${run("    ")}\n    z = 2\n${run("")}\nw = 3\n`,
    `class A:\n    def m(self):\n        pass\n${run("\t")}\n    def n(self):\n        pass\n`,
    `f"""{x}\n${run("")}\n{y}"""\n`,
    `x = 1\n${run("").replace("line 3", "line \0 3")}\nprint(x)\n`,
  ];
  let compared = 0;
  let grouped = 0;
  for (const source of sources) {
    const plain = await plainTree(source);
    const got = await parseSource("python", source);
    try {
      if (!plain.rootNode.hasError) {
        assert.deepEqual(shape(got), shape(plain), JSON.stringify(source));
        compared++;
        if (hasGroupedComment(got)) grouped++;
      }
    } finally {
      plain.delete();
      got.delete();
    }
  }
  // Most of these parse without error, and those with runs outside strings are read with groups.
  assert.ok(compared >= 7 && grouped >= 4, `${compared} compared, ${grouped} grouped`);
});

const LINE = "    # a comment line that is forty-five chars long";

test("python: a run of 16,000 comment lines is read as one comment, and a syntax error does not bring back the square", async () => {
  const body = `${LINE}\n`.repeat(16_000);
  const good = `def f():\n    x = 1\n${body}    return x\n`;
  // A plain parse of this text reads about 6·10⁹ characters: minutes. A limit of 5 s of CPU would stop it.
  const tree = await parseSource("python", good, { timeLimitMs: 5000 });
  try {
    assert.equal(tree.rootNode.hasError, false);
    const fn = tree.rootNode.child(0)!;
    assert.equal(fn.type, "function_definition");
    assert.equal(fn.endPosition.row, 16_002);
    assert.ok(hasGroupedComment(tree));
  } finally {
    tree.delete();
  }
  // The same file with one syntax error cannot be confirmed; it keeps the grouped reading.
  const broken = await parseSource("python", `def f(:\n    x = 1\n${body}    return x\n`, {
    timeLimitMs: 5000,
  });
  try {
    assert.equal(broken.rootNode.hasError, true);
    assert.ok(hasGroupedComment(broken));
  } finally {
    broken.delete();
  }
});

/** Brackets never closed: error recovery costs the parser about 1 s of CPU per MB here. */
const unclosed = (n: number): string => `def f():\n    x = 1\n    return x\n\ny = ${"(".repeat(n)}\n`;

test("a parse over its CPU time limit stops with ParseTimeLimitError, and the parser works on", async () => {
  await assert.rejects(
    parseSource("python", unclosed(900_000), { timeLimitMs: 50 }),
    (err: unknown) => err instanceof ParseTimeLimitError && /over 50 ms of CPU time/.test(err.message),
  );
  const big = "function f(a, b) { return [a, b].map((x) => x * 2); }\n".repeat(20_000);
  await assert.rejects(parseSource("javascript", big, { timeLimitMs: 1 }), ParseTimeLimitError);
  for (const [lang, source] of [
    ["python", "def g():\n    return 1\n"],
    ["javascript", "function g() { return 1; }\n"],
  ] as const) {
    const tree = await parseSource(lang, source);
    try {
      assert.equal(tree.rootNode.hasError, false, lang);
      assert.match(tree.rootNode.toString(), /function_(definition|declaration)/);
    } finally {
      tree.delete();
    }
  }
});

/** Comment lines each less indented than the one before. */
const stairs = (n: number): string =>
  Array.from({ length: n }, (_v, i) => `${" ".repeat(n - i)}#`).join("\n");

test("python: comment lines each less indented, before a line inside the block or after it, are read in a few groups", async () => {
  const comments = (t: Tree): number => {
    const visit = (n: Node): number =>
      (n.type === "comment" ? 1 : 0) + n.children.reduce((a, c) => a + (c ? visit(c) : 0), 0);
    return visit(t.rootNode);
  };
  for (const after of ["    return x", "y = 2", "if y:\n    pass", "    if x:\n        pass"]) {
    const text = (n: number) => `class K:\n    def f():\n        x = 1\n${stairs(n)}\n${after}\n`;
    const small = text(150);
    const plain = await plainTree(small);
    const got = await parseSource("python", small);
    // A plain parse of the large one reads about 10⁹ characters: 10 s of CPU or more.
    const large = await parseSource("python", text(1200), { timeLimitMs: 5000 });
    try {
      assert.equal(plain.rootNode.hasError, false, after);
      assert.deepEqual(shape(got), shape(plain), after);
      assert.equal(large.rootNode.hasError, false, after);
      for (const t of [got, large])
        assert.ok(hasGroupedComment(t) && comments(t) <= 10, `${after}: ${comments(t)}`);
    } finally {
      plain.delete();
      got.delete();
      large.delete();
    }
  }
});

test("a file over the parse time limit is left out of the index with a note, and the patch engine goes on", async () => {
  const repo = mkdtempSync(join(tmpdir(), "parse-limit-"));
  const saved = process.env.AUTO_FIX_PARSE_TIME_LIMIT_MS;
  process.env.AUTO_FIX_PARSE_TIME_LIMIT_MS = "50";
  try {
    const crafted = unclosed(900_000);
    writeFileSync(join(repo, "unclosed.py"), crafted);
    writeFileSync(join(repo, "ok.py"), "class Fine:\n    def m(self):\n        return 1\n");
    const index = await buildIndex(repo, { cacheDir: null, workers: 0 });
    assert.deepEqual(
      index.files.map((f) => f.path),
      ["ok.py"],
    );
    assert.ok(
      index.notes.some((n) => /unclosed\.py: parsing took over 50 ms of CPU time/.test(n)),
      index.notes.join("\n"),
    );
    assert.deepEqual(
      index.file("ok.py")?.symbols.map((s) => s.qualName),
      ["Fine", "Fine.m"],
    );
    // The patch engine cannot check such a file: like a file that had syntax errors before the patch,
    // it is judged by what the patch adds (nothing the parser can read), and no call hangs.
    const result = await computePatch(
      createMemoryRepo({ "unclosed.py": crafted }),
      edit("unclosed.py", "    x = 1", "    x = 2"),
    );
    assert.equal(result.status, "APPLICABLE_PATCH", result.feedback);
    assert.match(result.diff, /^\+ {4}x = 2$/m);
    // And it says so: in the summary's first line (what a run's report shows) and in the edit's report.
    assert.match(
      result.feedback.split("\n")[0]!,
      /^The patch applies, but the syntax of unclosed\.py was not checked: parsing took over 50 ms of CPU time/,
    );
    assert.equal(
      result.edits[0]?.syntaxUnchecked,
      "parsing took over 50 ms of CPU time, the limit for one file",
    );
    assert.match(result.edits[0]!.message, /the file's syntax was not checked/);
    // A file the parser reads in time gets no such words.
    const checked = await computePatch(
      createMemoryRepo({ "ok.py": "def f():\n    x = 1\n" }),
      edit("ok.py", "    x = 1", "    x = 2"),
    );
    assert.equal(checked.feedback.split("\n")[0], "The patch applies.");
    assert.equal(checked.edits[0]?.syntaxUnchecked, undefined);
  } finally {
    if (saved === undefined) delete process.env.AUTO_FIX_PARSE_TIME_LIMIT_MS;
    else process.env.AUTO_FIX_PARSE_TIME_LIMIT_MS = saved;
    rmSync(repo, { recursive: true, force: true });
  }
});
