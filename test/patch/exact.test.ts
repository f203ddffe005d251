/**
 * Exact answers always land. Property: for regions of real files of every language (the fixtures, the
 * project's own sources and node_modules, Python's and Go's standard libraries, the JDK's sources),
 * drawn around multi-line conditions, continuation lines, decorators, blank-line runs, block ends and
 * `else`/`except`/`finally` boundaries as well as anywhere, an answer whose <original> copies the region
 * byte for byte and whose <patched> holds one valid edit at the file's own indentation applies and
 * yields exactly the intended file. Then the exact answers that used to be refused or placed wrongly.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { exactCases, twoEditCases } from "../../bench/apply-exact.ts";
import { computePatch, createMemoryRepo } from "../../src/patch/index.ts";
import { treeSitterChecker } from "../../src/patch/syntax.ts";
import { type LanguageId, languageOf } from "../../src/languages/index.ts";
import { rng } from "../support/rng.ts";
import { after, apply, edit } from "./helpers.ts";

const SEED = Number(process.env.AUTO_FIX_PROPERTY_SEED ?? 11);
const ROOT = join(import.meta.dirname, "..", "..");

/** Up to `max` files under `dir` ending in `ext`, spread over the tree (deterministic). */
function files(dir: string, ext: string, max: number, skip = /test|\.d\.ts$|\.min\./i): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 5 || out.length >= max * 30) return;
    for (const e of readdirSync(d).sort()) {
      if (e.startsWith(".") || skip.test(e)) continue;
      const p = join(d, e);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p, depth + 1);
      else if (e.endsWith(ext) && st.size > 2000 && st.size < 50000) out.push(p);
    }
  };
  walk(dir, 0);
  const step = Math.max(1, Math.floor(out.length / max));
  return out.filter((_, i) => i % step === 0).slice(0, max);
}

interface Src {
  lang: LanguageId;
  origin: string;
  text: string;
}

async function sources(): Promise<Src[]> {
  const out: Src[] = [];
  const add = async (lang: LanguageId, origin: string, text: string) => {
    if (text.includes("\r") || text.split("\n").length < 40) return;
    const ext = languageOf(lang).extensions[0];
    if ((await treeSitterChecker.analyse(`x${ext}`, text)).problems.length === 0)
      out.push({ lang, origin, text });
  };
  const read = (p: string) => readFileSync(p, "utf8");
  const fixtures = join(ROOT, "test/fixtures/repos");
  for (const p of files(join(fixtures, "python"), ".py", 4)) await add("python", p, read(p));
  for (const p of files("/usr/lib/python3.11", ".py", 8)) await add("python", p, read(p));
  for (const p of files(join(fixtures, "javascript"), ".js", 3)) await add("javascript", p, read(p));
  for (const p of files(join(ROOT, "node_modules/yaml/dist"), ".js", 3)) await add("javascript", p, read(p));
  for (const p of files(join(ROOT, "node_modules/@octokit"), ".js", 2)) await add("javascript", p, read(p));
  for (const p of files(join(fixtures, "typescript"), ".ts", 3)) await add("typescript", p, read(p));
  for (const p of files(join(ROOT, "src"), ".ts", 5)) await add("typescript", p, read(p));
  for (const p of files(join(fixtures, "java"), ".java", 4)) await add("java", p, read(p));
  const zip = [
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
    "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip",
  ].find(existsSync);
  if (zip) {
    for (const name of ["ArrayDeque", "Optional", "BitSet", "Scanner"]) {
      const entry = `java.base/java/util/${name}.java`;
      await add(
        "java",
        entry,
        execFileSync("unzip", ["-p", zip, entry], { encoding: "utf8", maxBuffer: 1 << 24 }),
      );
    }
  }
  for (const p of files(join(fixtures, "go"), ".go", 4)) await add("go", p, read(p));
  for (const d of ["bufio", "strings", "path", "encoding/csv", "text/tabwriter"])
    for (const p of files(join("/usr/lib/go/src", d), ".go", 1)) await add("go", p, read(p));
  return out;
}

const EXT: Record<string, string> = {
  python: "py",
  javascript: "js",
  typescript: "ts",
  java: "java",
  go: "go",
};

test("an exact answer at any place of a real file applies and gives exactly the intended file", async () => {
  const srcs = await sources();
  const langs = new Set(srcs.map((s) => s.lang));
  for (const l of ["python", "javascript", "typescript", "java", "go"])
    assert.ok(langs.has(l as LanguageId), `no ${l} source (${[...langs].join(", ")})`);
  const r = rng(SEED);
  const failed: string[] = [];
  const seen = new Map<string, number>();
  let n = 0;
  for (const src of srcs) {
    const path = `pkg/${src.lang}/file.${EXT[src.lang]}`;
    const lines = src.text.split("\n");
    const single = await exactCases(r, src.lang, path, lines, 12);
    for (const c of [...single, ...twoEditCases(lines, single, 3)]) {
      n++;
      seen.set(c.place, (seen.get(c.place) ?? 0) + 1);
      const result = await computePatch(createMemoryRepo({ [path]: src.text }, "/repo"), c.answer);
      const got = result.changedFiles.find((f) => f.path === path)?.after;
      if (result.status !== "APPLICABLE_PATCH" || got !== c.expected) {
        failed.push(
          `${c.place} / ${c.kind} in ${src.origin} (lines ${c.start + 1}-${c.end}): ${result.status}\n${result.status === "APPLICABLE_PATCH" ? result.diff : result.feedback}\n${c.answer}`,
        );
      }
    }
  }
  assert.deepEqual(failed.slice(0, 5), [], `${failed.length} of ${n} exact answers failed`);
  // The property says little unless the tricky places were drawn.
  assert.ok(n >= 300, `only ${n} cases`);
  for (const place of ["multi-line condition", "continuation line", "decorator", "blank-line run"])
    assert.ok((seen.get(place) ?? 0) >= 10, `${place}: ${seen.get(place) ?? 0} cases`);
  assert.ok((seen.get("starts deeper than it ends") ?? 0) >= 20);
  assert.ok((seen.get("block boundary") ?? 0) >= 20);
});

const GET_FACTORS = `def get_factors(n):
    if n == 1:
        return []

    for i in range(2, int(n ** 0.5) + 1):
        if n % i == 0:
            return [i] + get_factors(n // i)

    return []
`;

test("get_factors: the function's last lines, a blank line among them, at the file's own indentation", async () => {
  const r = await apply(
    { "get_factors.py": GET_FACTORS },
    edit(
      "get_factors.py",
      "            return [i] + get_factors(n // i)\n\n    return []",
      "            return [i] + get_factors(n // i)\n\n    return [n]",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "get_factors.py"), GET_FACTORS.replace(/return \[\]\n$/, "return [n]\n"));
});

test("java: <patched> whose changed first line lost its indentation keeps the next line at its level", async () => {
  const file =
    "class A {\n    int f(int x) {\n        if (x > 0) {\n            return x;\n        }\n        return 0;\n    }\n}\n";
  const r = await apply(
    { "A.java": file },
    edit("A.java", "        if (x > 0) {\n            return x;", "if (x >= 0) {\n            return x + 1;"),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "A.java"), file.replace("x > 0", "x >= 0").replace("return x;", "return x + 1;"));
});

test("a refusal for unclear indentation shows the block under each reading, and either one, sent back, applies", async () => {
  const file = 'def f():\n    """Summary.\n\n    Details.\n    """\n    return 1\n';
  // The first line lost its indentation and the new line sits two columns in: inside the docstring,
  // both readings parse, with different text.
  const r = await apply({ "doc.py": file }, edit("doc.py", '    """Summary.', '"""Summary.\n  Extra line.'));
  assert.equal(r.status, "MATCHED_BUT_UNCLEAR_INDENT", r.feedback);
  const blocks = [...r.edits[0]!.message.matchAll(/```\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 2, r.edits[0]!.message);
  assert.notEqual(blocks[0], blocks[1]);
  for (const block of blocks) {
    const again = await apply({ "doc.py": file }, edit("doc.py", '    """Summary.', block));
    assert.equal(again.status, "APPLICABLE_PATCH", again.feedback);
    assert.equal(after(again, "doc.py"), file.replace('    """Summary.\n', `${block}\n`));
  }
});

const SPLITEXT = `def splitext(p, sep, extsep):
    sepIndex = p.rfind(sep)
    dotIndex = p.rfind(extsep)
    if dotIndex > sepIndex:
        # skip all leading dots
        filenameIndex = sepIndex + 1
        while filenameIndex < dotIndex:
            if p[filenameIndex:filenameIndex+1] != extsep:
                return p[:dotIndex], p[dotIndex:]
            filenameIndex += 1

    return p, p[:0]
`;

test("a region whose first line is deeper than the lines after it takes a new line at its own indentation", async () => {
  const r = await apply(
    { "s.py": SPLITEXT },
    edit(
      "s.py",
      "            filenameIndex += 1\n\n    return p, p[:0]",
      "            filenameIndex += 1\n            assert filenameIndex is not None\n\n    return p, p[:0]",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "s.py"),
    SPLITEXT.replace(
      "            filenameIndex += 1\n",
      "            filenameIndex += 1\n            assert filenameIndex is not None\n",
    ),
  );
});

test("a condition split over lines, `if (` … `) or end == 0:`, keeps the unchanged lines in their blocks", async () => {
  const file =
    'def scan(s, start, end):\n    while start < end:\n        if s[start] == " ":\n            start += 1\n        end -= 1\n    return start, end\n';
  const split = '        if (\n            s[start] == " "\n        ) or end == 0:\n';
  const r = await apply(
    { "s.py": file },
    edit(
      "s.py",
      '        if s[start] == " ":\n            start += 1\n        end -= 1',
      `${split}            start += 1\n        end -= 1`,
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "s.py"), file.replace('        if s[start] == " ":\n', split));
});

test("two exact edits, the second with continuation lines at an odd column, keep those columns", async () => {
  const file =
    'class Reader:\n    def read(self, path):\n        if not path:\n            return None\n        return open(path).read()\n\n    def parse(self, text):\n        items = self.split(text,\n           sep=",",\n           strip=True)\n        return items\n';
  const r = await apply(
    { "r.py": file },
    edit(
      "r.py",
      "        if not path:\n            return None",
      "        if not path:\n            return []",
    ) +
      edit(
        "r.py",
        '        items = self.split(text,\n           sep=",",\n           strip=True)',
        '        items = self.split(text,\n           sep=",",\n           strip=True,\n           limit=3)',
      ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "r.py"),
    file.replace("return None", "return []").replace("strip=True)", "strip=True,\n           limit=3)"),
  );
});

const BLANKS = "def f():\n    a = 1\n\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n";

for (const c of [
  {
    name: "the line before it changed",
    orig: "    a = 1\n\n\n    b = 2",
    patched: "    a = 2\n\n    b = 2",
    expected: BLANKS.replace("a = 1", "a = 2"),
  },
  {
    name: "a line added between the blank lines",
    orig: "    a = 1\n\n\n    b = 2",
    patched: "    a = 1\n\n    c = 0\n\n    b = 2",
    expected: BLANKS.replace("\n    b = 2", "\n    c = 0\n\n    b = 2"),
  },
  {
    name: "two blank lines where the file has them, after a changed line",
    orig: "    return a + b\n\n\n\ndef g():",
    patched: "    return a - b\n\n\ndef g():",
    expected: BLANKS.replace("a + b", "a - b"),
  },
]) {
  test(`an <original> with a blank line more than the file keeps the blank lines <patched> writes: ${c.name}`, async () => {
    const r = await apply({ "b.py": BLANKS }, edit("b.py", c.orig, c.patched));
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, "b.py"), c.expected);
  });
}

test("a comment of the file that reads like a placeholder is a line like any other in an exact <original>", async () => {
  const file =
    "def flags():\n    html = 1\n\n    # Strip escape characters bracketing escaped text segments\n    # instead of passing them through unchanged with the text.\n    strip = 2\n    return html | strip\n";
  const r = await apply(
    { "l.py": file },
    edit(
      "l.py",
      "    # Strip escape characters bracketing escaped text segments\n    # instead of passing them through unchanged with the text.\n    strip = 2",
      "    # Strip escape characters bracketing escaped text segments\n    strip = 2",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "l.py"),
    file.replace("    # instead of passing them through unchanged with the text.\n", ""),
  );
});

test("a `<File>` of the code (a TypeScript generic) inside <original> and <patched> is code, not a tag", async () => {
  const file =
    "export async function toFile(value: Blob, name?: string): Promise<File> {\n  checkFileSupport();\n  return new File([value], name ?? 'x');\n}\n";
  const r = await apply(
    { "src/to-file.ts": file },
    edit(
      "src/to-file.ts",
      "export async function toFile(value: Blob, name?: string): Promise<File> {\n  checkFileSupport();",
      "export async function toFile(value: Blob, name?: string): Promise<File> {\n  checkFileSupport();\n  void name;",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "src/to-file.ts"),
    file.replace("checkFileSupport();\n", "checkFileSupport();\n  void name;\n"),
  );
});

test("java: a changed line at an odd column of the file (eleven spaces under an `if`) keeps that column", async () => {
  const file =
    'class E {\n    String message() {\n        int index = getIndex();\n\n        if (index == Integer.MIN_VALUE) {\n           return "Format argument index: (not representable as int)";\n        }\n        return "x";\n    }\n}\n';
  const r = await apply(
    { "E.java": file },
    edit(
      "E.java",
      '        int index = getIndex();\n\n        if (index == Integer.MIN_VALUE) {\n           return "Format argument index: (not representable as int)";',
      '        int index = getIndex();\n\n        if (index == Integer.MIN_VALUE) {\n           return "Argument index: (not representable as int)";',
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "E.java"), file.replace('"Format argument', '"Argument'));
});
