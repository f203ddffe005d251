/**
 * Every kind of sloppiness the engine must see through, in Python, Java, JavaScript, TypeScript and Go:
 * one intended change per language (a changed line and a new comment inside a loop), rendered the way
 * models get answers wrong, each time asserting the exact file after the edit. Then the refusals.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

interface Lang {
  name: string;
  path: string;
  /** The file before the edit. */
  before: string;
  /** The lines the answer copies (exactly as in the file) and the lines it wants instead. */
  orig: string[];
  patched: string[];
  /** The file after the intended edit, written out by hand. */
  expected: string;
  comment: string;
}

const LANGS: Lang[] = [
  {
    name: "python",
    path: "calc/total.py",
    before:
      "import os\n\n\ndef total(values, limit):\n    result = 0\n    for value in values:\n        if value > limit:\n            continue\n        result += value\n    return result\n\n\ndef other():\n    return 1\n",
    orig: [
      "    for value in values:",
      "        if value > limit:",
      "            continue",
      "        result += value",
      "    return result",
    ],
    patched: [
      "    for value in values:",
      "        if value > limit:",
      "            continue",
      "        # doubled on purpose",
      "        result += value * 2",
      "    return result",
    ],
    expected:
      "import os\n\n\ndef total(values, limit):\n    result = 0\n    for value in values:\n        if value > limit:\n            continue\n        # doubled on purpose\n        result += value * 2\n    return result\n\n\ndef other():\n    return 1\n",
    comment: "#",
  },
  {
    name: "java",
    path: "src/main/java/demo/Total.java",
    before:
      "package demo;\n\npublic class Total {\n    public int total(int[] values, int limit) {\n        int result = 0;\n        for (int value : values) {\n            if (value > limit) {\n                continue;\n            }\n            result += value;\n        }\n        return result;\n    }\n}\n",
    orig: [
      "        for (int value : values) {",
      "            if (value > limit) {",
      "                continue;",
      "            }",
      "            result += value;",
      "        }",
    ],
    patched: [
      "        for (int value : values) {",
      "            if (value > limit) {",
      "                continue;",
      "            }",
      "            // doubled on purpose",
      "            result += value * 2;",
      "        }",
    ],
    expected:
      "package demo;\n\npublic class Total {\n    public int total(int[] values, int limit) {\n        int result = 0;\n        for (int value : values) {\n            if (value > limit) {\n                continue;\n            }\n            // doubled on purpose\n            result += value * 2;\n        }\n        return result;\n    }\n}\n",
    comment: "//",
  },
  {
    name: "javascript",
    path: "lib/total.js",
    before:
      "function total(values, limit) {\n  let result = 0;\n  for (const value of values) {\n    if (value > limit) {\n      continue;\n    }\n    result += value;\n  }\n  return result;\n}\n\nmodule.exports = { total };\n",
    orig: [
      "  for (const value of values) {",
      "    if (value > limit) {",
      "      continue;",
      "    }",
      "    result += value;",
      "  }",
    ],
    patched: [
      "  for (const value of values) {",
      "    if (value > limit) {",
      "      continue;",
      "    }",
      "    // doubled on purpose",
      "    result += value * 2;",
      "  }",
    ],
    expected:
      "function total(values, limit) {\n  let result = 0;\n  for (const value of values) {\n    if (value > limit) {\n      continue;\n    }\n    // doubled on purpose\n    result += value * 2;\n  }\n  return result;\n}\n\nmodule.exports = { total };\n",
    comment: "//",
  },
  {
    name: "typescript",
    path: "src/total.ts",
    before:
      "export function total(values: number[], limit: number): number {\n  let result = 0;\n  for (const value of values) {\n    if (value > limit) {\n      continue;\n    }\n    result += value;\n  }\n  return result;\n}\n",
    orig: [
      "  for (const value of values) {",
      "    if (value > limit) {",
      "      continue;",
      "    }",
      "    result += value;",
      "  }",
    ],
    patched: [
      "  for (const value of values) {",
      "    if (value > limit) {",
      "      continue;",
      "    }",
      "    // doubled on purpose",
      "    result += value * 2;",
      "  }",
    ],
    expected:
      "export function total(values: number[], limit: number): number {\n  let result = 0;\n  for (const value of values) {\n    if (value > limit) {\n      continue;\n    }\n    // doubled on purpose\n    result += value * 2;\n  }\n  return result;\n}\n",
    comment: "//",
  },
  {
    name: "go",
    path: "calc/total.go",
    before:
      "package calc\n\nfunc Total(values []int, limit int) int {\n\tresult := 0\n\tfor _, value := range values {\n\t\tif value > limit {\n\t\t\tcontinue\n\t\t}\n\t\tresult += value\n\t}\n\treturn result\n}\n",
    orig: [
      "\tfor _, value := range values {",
      "\t\tif value > limit {",
      "\t\t\tcontinue",
      "\t\t}",
      "\t\tresult += value",
      "\t}",
    ],
    patched: [
      "\tfor _, value := range values {",
      "\t\tif value > limit {",
      "\t\t\tcontinue",
      "\t\t}",
      "\t\t// doubled on purpose",
      "\t\tresult += value * 2",
      "\t}",
    ],
    expected:
      "package calc\n\nfunc Total(values []int, limit int) int {\n\tresult := 0\n\tfor _, value := range values {\n\t\tif value > limit {\n\t\t\tcontinue\n\t\t}\n\t\t// doubled on purpose\n\t\tresult += value * 2\n\t}\n\treturn result\n}\n",
    comment: "//",
  },
];

const lead = (l: string) => l.length - l.trimStart().length;
const dedentAll = (ls: readonly string[]) => {
  const n = Math.min(...ls.filter((l) => l.trim() !== "").map(lead));
  return ls.map((l) => l.slice(Math.min(n, lead(l))));
};
const spacesForTabs = (ls: readonly string[]) =>
  ls.map((l) => l.replace(/^\t+/, (t) => "    ".repeat(t.length)));

/** Sloppiness kinds: (language, exact answer parts) → the answer the model wrote. */
const KINDS: Record<string, (l: Lang) => { file: string; orig: string[]; patched: string[] }> = {
  exact: (l) => ({ file: l.path, orig: l.orig, patched: l.patched }),
  "patched from column 0 (original exact)": (l) => ({
    file: l.path,
    orig: l.orig,
    patched: dedentAll(l.patched),
  }),
  "both dedented": (l) => ({ file: l.path, orig: dedentAll(l.orig), patched: dedentAll(l.patched) }),
  "first line unindented, the rest absolute": (l) => ({
    file: l.path,
    orig: [l.orig[0]!.trimStart(), ...l.orig.slice(1)],
    patched: [l.patched[0]!.trimStart(), ...l.patched.slice(1)],
  }),
  "comment of patched at column 0": (l) => ({
    file: l.path,
    orig: l.orig,
    patched: l.patched.map((p) => (p.trimStart().startsWith(l.comment) ? p.trimStart() : p)),
  }),
  "original dedented, patched absolute": (l) => ({
    file: l.path,
    orig: dedentAll(l.orig),
    patched: l.patched,
  }),
  "spaces for tabs (or tabs for spaces)": (l) => ({
    file: l.path,
    orig:
      l.name === "go"
        ? spacesForTabs(l.orig)
        : l.orig.map((x) =>
            x.replace(/^( {4}|( {2}))+/, (m) =>
              "\t".repeat(m.length / (l.path.endsWith(".java") || l.path.endsWith(".py") ? 4 : 2)),
            ),
          ),
    patched:
      l.name === "go"
        ? spacesForTabs(l.patched)
        : l.patched.map((x) =>
            x.replace(/^( {4}|( {2}))+/, (m) =>
              "\t".repeat(m.length / (l.path.endsWith(".java") || l.path.endsWith(".py") ? 4 : 2)),
            ),
          ),
  }),
  "file under the repository's folder": (l) => ({
    file: `project/${l.path}`,
    orig: l.orig,
    patched: l.patched,
  }),
  "file with ./": (l) => ({ file: `./${l.path}`, orig: l.orig, patched: l.patched }),
  "file by unique suffix": (l) => ({
    file: l.path.split("/").slice(-2).join("/"),
    orig: l.orig,
    patched: l.patched,
  }),
  "file by unique basename": (l) => ({ file: l.path.split("/").pop()!, orig: l.orig, patched: l.patched }),
  "file with the lines looked at": (l) => ({ file: `${l.path}:6-11`, orig: l.orig, patched: l.patched }),
};

const extraFiles = { "README.md": "# project\n", "docs/notes.txt": "notes\n" };

for (const l of LANGS) {
  for (const [kind, render] of Object.entries(KINDS)) {
    test(`${l.name}: ${kind}`, async () => {
      const a = render(l);
      const r = await apply(
        { [l.path]: l.before, ...extraFiles },
        edit(a.file, a.orig.join("\n"), a.patched.join("\n")),
      );
      assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
      assert.equal(after(r, l.path), l.expected);
    });
  }

  test(`${l.name}: an edit that only adds blank lines`, async () => {
    const o = l.orig.slice(-2);
    const q = [o[0]!, "", o[1]!];
    const r = await apply({ [l.path]: l.before }, edit(l.path, o.join("\n"), q.join("\n")));
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, l.path), l.before.replace(`${o[0]}\n${o[1]}\n`, `${o[0]}\n\n${o[1]}\n`));
  });

  test(`${l.name}: an edit that only removes a blank line`, async () => {
    const spaced = l.expected.replace(`${l.patched.at(-2)}\n`, `${l.patched.at(-2)}\n\n`);
    const o = [l.patched.at(-2)!, "", l.patched.at(-1)!];
    const q = [l.patched.at(-2)!, l.patched.at(-1)!];
    const r = await apply({ [l.path]: spaced }, edit(l.path, o.join("\n"), q.join("\n")));
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, l.path), l.expected);
  });

  test(`${l.name}: refused — the answer is already applied`, async () => {
    const r = await apply({ [l.path]: l.expected }, edit(l.path, l.orig.join("\n"), l.patched.join("\n")));
    assert.equal(r.status, "RAW_PATCH_BUT_ALREADY_APPLIED", r.feedback);
    assert.equal(r.changedFiles.length, 0);
    assert.match(r.edits[0]!.message, /already applied/);
  });

  test(`${l.name}: refused — an ambiguous file name lists the candidates`, async () => {
    const base = l.path.split("/").pop()!;
    const r = await apply(
      { [l.path]: l.before, [`other/${base}`]: l.before },
      edit(base, l.orig.join("\n"), l.patched.join("\n")),
    );
    assert.equal(r.status, "RAW_PATCH_BUT_AMBIGUOUS", r.feedback);
    assert.ok(r.edits[0]!.message.includes(l.path) && r.edits[0]!.message.includes(`other/${base}`));
    assert.equal(r.changedFiles.length, 0);
  });

  test(`${l.name}: refused — <original> not in the file`, async () => {
    const o = l.orig.map((x, i) => (i === 1 ? x.replace("limit", "ceiling") : x));
    const r = await apply({ [l.path]: l.before }, edit(l.path, o.join("\n"), l.patched.join("\n")));
    assert.equal(r.status, "RAW_PATCH_BUT_UNMATCHED", r.feedback);
    assert.equal(r.changedFiles.length, 0);
  });
}

// Where the indentation decides the meaning (Python), readings that disagree, or that all move lines the
// edit leaves alone out of their blocks, are refused with the lines concerned.
const PY = LANGS[0]!;

test("python: refused — every reading moves unchanged lines out of their blocks", async () => {
  // <patched> flattened to column 0: no reading keeps `for` in the function with a body.
  const flat = PY.patched.map((l) => l.trimStart());
  const r = await apply({ [PY.path]: PY.before }, edit(PY.path, PY.orig.join("\n"), flat.join("\n")));
  assert.notEqual(r.status, "APPLICABLE_PATCH");
  assert.equal(r.changedFiles.length, 0);
  assert.match(r.feedback, /MATCHED_BUT|indent|parse/i);
});

test("python: the loop written from column 0 does not leave its function (the shape that used to apply)", async () => {
  // The original matches exactly; <patched> lost its indentation. Read as written, the loop would
  // leave `total` and `return` would join the module: the engine must read it relative to the file.
  const r = await apply(
    { [PY.path]: PY.before },
    edit(PY.path, PY.orig.join("\n"), dedentAll(PY.patched).join("\n")),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, PY.path), PY.expected);
});

test("python: refused — readings that give a docstring different text name the line and the readings", async () => {
  const file = 'def f():\n    """Summary.\n\n    Details.\n    """\n    return 1\n';
  // The first line is written at column 0, the new line at column 2: relative to the first line it
  // belongs at column 6, with the first line put back in place it stays at column 2. Inside a string
  // both parse, and the string's text differs.
  const r = await apply({ "doc.py": file }, edit("doc.py", '    """Summary.', '"""Summary.\n  Extra line.'));
  assert.equal(r.status, "MATCHED_BUT_UNCLEAR_INDENT", r.feedback);
  assert.equal(r.changedFiles.length, 0);
  const m = r.edits[0]!.message;
  assert.match(m, /line 2 of <patched> \(`Extra line\.`\) goes at column \d+ inside `def f\(\):`/);
  // Both readings are named, each with the column it gives the line (in either order).
  assert.match(
    m,
    /at column 3 inside `def f\(\):` when (<patched> is|it is) read first line at its place, the rest as written/,
  );
  assert.match(
    m,
    /at column (7|9) inside `def f\(\):` when (<patched> is|it is) read relative to its first line/,
  );
  assert.match(m, /Write <patched> with every line indented exactly as it should be in the file/);
});

test("python: a line intentionally moved out of a loop keeps the move", async () => {
  const file = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n        return total\n";
  const r = await apply(
    { "m.py": file },
    edit(
      "m.py",
      "    for x in xs:\n        total += x\n        return total",
      "for x in xs:\n    total += x\nreturn total",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "m.py"),
    "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
  );
});

test("python: a reading that would put a `return` into a loop is not taken", async () => {
  const file = "def f(xs):\n    for x in xs:\n        g(x)\n    return 1\n";
  // The first line is unindented and the rest absolute: read relative to the first line, `return`
  // would join the loop; only the first line at its place keeps it after the loop.
  const r = await apply(
    { "m.py": file },
    edit(
      "m.py",
      "for x in xs:\n        g(x)\n    return 1",
      "for x in xs:\n        g(x)\n        h(x)\n    return 1",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "m.py"), "def f(xs):\n    for x in xs:\n        g(x)\n        h(x)\n    return 1\n");
});

test("python: a line after the edit never joins a block the edit changed (answer in another indentation width)", async () => {
  const file =
    "class M:\n    def get(self, obj):\n        for typ in type(obj).__mro__:\n            if typ in self.handlers:\n                return self.handlers[typ]\n            name = typ.__name__\n        return None\n";
  // Written with two-space levels: read as written from its first line, the changed `if` would sit at
  // column 10 and the unchanged `name = ...` after the edit would fall into its body.
  const r = await apply(
    { "m.py": file },
    edit(
      "m.py",
      "    for typ in type(obj).__mro__:\n      if typ in self.handlers:\n        return self.handlers[typ]",
      "    for typ in type(obj).__mro__:\n      if typ in self.handlers and typ:\n        return self.handlers[typ]",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "m.py"),
    file.replace("if typ in self.handlers:", "if typ in self.handlers and typ:"),
  );
});
