/**
 * Answers that change block structure on purpose, the shapes that were refused as unclear indentation
 * (or placed wrongly) on real bugs: a statement added above a block header that is itself rewritten, a
 * `try`/`finally` removed so its body moves out one level, and a whole answer shifted by one offset.
 * Copied exactly, or with every line at one offset from the file, such an answer means what it says.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

/** Every non-blank line moved `n` columns (negative: left). */
const shift = (s: string, n: number) =>
  s
    .split("\n")
    .map((l) => (l.trim() === "" ? l : n >= 0 ? " ".repeat(n) + l : l.slice(-n)))
    .join("\n");
/** The least indentation of the block's non-blank lines. */
const least = (s: string) =>
  Math.min(
    ...s
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => l.length - l.trimStart().length),
  );

const PY = `import os


def scan(items, limit):
    total = 0
    for item in items:
        if item.size > limit:
            total += item.size
        log(item)
    return total


def close(handle):
    try:
        handle.flush()
        handle.sync()
    finally:
        handle.close()
    return True
`;

const JAVA = `class Scan {
    int scan(List<Item> items, int limit) {
        int total = 0;
        for (Item item : items) {
            if (item.size > limit) {
                total += item.size;
            }
            log(item);
        }
        return total;
    }

    boolean close(Handle handle) {
        try {
            handle.flush();
            handle.sync();
        } finally {
            handle.close();
        }
        return true;
    }
}
`;

interface Shape {
  name: string;
  path: string;
  file: string;
  original: string;
  patched: string;
  /** The file with the change applied, written by hand. */
  expected: string;
}

const SHAPES: Shape[] = [
  {
    name: "python: a statement added above a rewritten `for` header",
    path: "scan.py",
    file: PY,
    original: "    for item in items:\n        if item.size > limit:\n            total += item.size",
    patched:
      "    index = 0\n    for index, item in enumerate(items):\n        if item.size >= limit:\n            total += item.size",
    expected: PY.replace(
      "    for item in items:\n        if item.size > limit:",
      "    index = 0\n    for index, item in enumerate(items):\n        if item.size >= limit:",
    ),
  },
  {
    name: "python: a statement added above a rewritten `if` (three lines, exact)",
    path: "scan.py",
    file: PY,
    original: "        if item.size > limit:\n            total += item.size\n        log(item)",
    patched:
      "        size = item.size\n        if size > limit and size:\n            total += item.size\n        log(item)",
    expected: PY.replace(
      "        if item.size > limit:\n",
      "        size = item.size\n        if size > limit and size:\n",
    ),
  },
  {
    name: "python: `try`/`finally` removed, its body moved out one level",
    path: "scan.py",
    file: PY,
    original:
      "    try:\n        handle.flush()\n        handle.sync()\n    finally:\n        handle.close()\n    return True",
    patched: "    handle.flush()\n    handle.sync()\n    handle.close()\n    return True",
    expected: PY.replace(
      "    try:\n        handle.flush()\n        handle.sync()\n    finally:\n        handle.close()\n",
      "    handle.flush()\n    handle.sync()\n    handle.close()\n",
    ),
  },
  {
    name: "python: a line wrapped in a new `if`",
    path: "scan.py",
    file: PY,
    original: "            total += item.size\n        log(item)\n    return total",
    patched: "            total += item.size\n        if item.size:\n            log(item)\n    return total",
    expected: PY.replace("        log(item)\n", "        if item.size:\n            log(item)\n"),
  },
  {
    name: "java: a statement added above a rewritten `for` header",
    path: "Scan.java",
    file: JAVA,
    original: "        for (Item item : items) {\n            if (item.size > limit) {",
    patched:
      "        int index = 0;\n        for (Item item : sorted(items)) {\n            index++;\n            if (item.size >= limit) {",
    expected: JAVA.replace(
      "        for (Item item : items) {\n            if (item.size > limit) {",
      "        int index = 0;\n        for (Item item : sorted(items)) {\n            index++;\n            if (item.size >= limit) {",
    ),
  },
  {
    name: "java: `try`/`finally` removed, its body moved out one level",
    path: "Scan.java",
    file: JAVA,
    original:
      "        try {\n            handle.flush();\n            handle.sync();\n        } finally {\n            handle.close();\n        }\n        return true;",
    patched: "        handle.flush();\n        handle.sync();\n        handle.close();\n        return true;",
    expected: JAVA.replace(
      "        try {\n            handle.flush();\n            handle.sync();\n        } finally {\n            handle.close();\n        }\n",
      "        handle.flush();\n        handle.sync();\n        handle.close();\n",
    ),
  },
  {
    name: "java: a line wrapped in a new `if`",
    path: "Scan.java",
    file: JAVA,
    original: "            }\n            log(item);\n        }",
    patched:
      "            }\n            if (item.size > 0) {\n                log(item);\n            }\n        }",
    expected: JAVA.replace(
      "            log(item);\n",
      "            if (item.size > 0) {\n                log(item);\n            }\n",
    ),
  },
];

for (const s of SHAPES) {
  test(`${s.name}: copied exactly, applied as written`, async () => {
    const r = await apply({ [s.path]: s.file }, edit(s.path, s.original, s.patched));
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, s.path), s.expected);
  });
  // Every line of the answer at one offset from the file: <patched> goes at that offset.
  for (const by of [-8, -4, 4, 8].filter((n) => n > 0 || least(s.original + "\n" + s.patched) >= -n)) {
    test(`${s.name}: every line shifted ${by} columns, placed at the offset <original> has`, async () => {
      const o = shift(s.original, by);
      const p = shift(s.patched, by);
      const r = await apply({ [s.path]: s.file }, edit(s.path, o, p));
      assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
      assert.equal(after(r, s.path), s.expected);
    });
  }
}

/** The block moved left so that its least indented line is at column 0. */
const dedent = (t: string) => shift(t, -least(t));
const unindentFirst = (t: string) => t.replace(/^ +/, "");
const SLOPPY: Record<string, (o: string, p: string) => [string, string]> = {
  "first line of both blocks unindented, the rest absolute": (o, p) => [unindentFirst(o), unindentFirst(p)],
  "first line of <patched> unindented": (o, p) => [o, unindentFirst(p)],
  "<original> dedented, <patched> absolute": (o, p) => [dedent(o), p],
};
// Not at one offset: the new header takes the place of the old one (the line it resembles), so the
// body stays in its block and the readings agree on one program.
for (const s of SHAPES.slice(0, 2)) {
  for (const [kind, write] of Object.entries(SLOPPY)) {
    test(`${s.name}: ${kind}, lands`, async () => {
      const [o, p] = write(s.original, s.patched);
      const r = await apply({ [s.path]: s.file }, edit(s.path, o, p));
      assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
      assert.equal(after(r, s.path), s.expected);
    });
  }
}

const SCAN = `def scan(items, limit):
    total = 0
    for item in items:
        if item.size > limit:
            total += item.size
        log(item)
    return total
`;

test("python: a loop removed, its body moved out, first lines unindented: the one program every reading gives", async () => {
  // No reading keeps the body in the loop (the answer removes it); every reading that parses gives the
  // same program, which is what the answer states.
  const r = await apply(
    { "s.py": SCAN },
    edit(
      "s.py",
      "for item in items:\n        if item.size > limit:\n            total += item.size\n        log(item)",
      "item = items[0]\n    if item.size > limit:\n        total += item.size\n    log(item)",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "s.py"),
    "def scan(items, limit):\n    total = 0\n    item = items[0]\n    if item.size > limit:\n        total += item.size\n    log(item)\n    return total\n",
  );
});

test("python: a block change reaching lines the answer does not show is refused, saying which line", async () => {
  // `with lock:` wraps the loop's header, but the loop's body lies past <original>: the only reading
  // that parses puts the new block at the top level and takes the function's last lines with it.
  const r = await apply(
    { "s.py": SCAN },
    edit(
      "s.py",
      "total = 0\n    for item in items:\n        if item.size > limit:",
      "total = 0\n    with lock:\n        for item in items:\n            if item.size > limit:",
    ),
  );
  assert.equal(r.status, "MATCHED_BUT_UNCLEAR_INDENT", r.feedback);
  assert.equal(r.changedFiles.length, 0);
  assert.match(r.edits[0]!.message, /moves line \d+ of the file \(`[^`]+`\), which the answer does not show/);
  assert.match(r.edits[0]!.message, /extend <original> and <patched> to the last line whose block changes/);
});

test("python: an answer that can mean two programs is refused with both and a question", async () => {
  const file = "def f(x):\n    if x:\n        a()\n";
  // <original>'s first line lost its indentation, the next is absolute, so no one offset places
  // <patched>; its new last line `b()` is at the first line's column: inside the function read relative
  // to the first line, at the top level read as written. Both parse, as two different programs.
  const r = await apply({ "f.py": file }, edit("f.py", "if x:\n        a()", "if x:\n        a()\nb()"));
  assert.equal(r.status, "MATCHED_BUT_UNCLEAR_INDENT", r.feedback);
  assert.equal(r.changedFiles.length, 0);
  const m = r.edits[0]!.message;
  assert.match(m, /can be read as two different programs/);
  assert.match(m, /Which of the two do you mean\?/);
  const blocks = [...m.matchAll(/```\n([\s\S]*?)\n```/g)].map((x) => x[1]!);
  assert.deepEqual(
    new Set(blocks),
    new Set(["    if x:\n        a()\n    b()", "    if x:\n        a()\nb()"]),
  );
  // Each program, sent back with <original> copied exactly, applies as written.
  for (const block of blocks) {
    const again = await apply({ "f.py": file }, edit("f.py", "    if x:\n        a()", block));
    assert.equal(again.status, "APPLICABLE_PATCH", again.feedback);
    assert.equal(after(again, "f.py"), `def f(x):\n${block}\n`);
  }
});
