/**
 * Every answer shape in every language: the same cases over a Python, JavaScript, TypeScript, Java and
 * Go file (two-space, four-space and tab indentation), with the expected text written out by hand.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PatchStatus } from "../../src/patch/index.ts";
import { apply, edit } from "./helpers.ts";

interface Fixture {
  lang: string;
  path: string;
  testPath: string;
  content: string;
  /** First line of the 5-line window the edits copy. */
  windowStart: string;
  /** Index (in the window) of the line the fix changes, and its new text. */
  target: number;
  changed: string;
  broken: string;
  /** A line that appears twice, exactly. */
  dup: string;
  dupChanged: string;
  placeholder: string;
  unit: string;
}

const FIXTURES: Fixture[] = [
  {
    lang: "python",
    path: "calc/compute.py",
    testPath: "tests/test_compute.py",
    content:
      "import os\n\n\ndef compute(values, limit):\n    total = 0\n    for value in values:\n        if value > limit:\n            total += limit\n        else:\n            total += value\n    return total\n\n\ndef report(values):\n    total = 0\n    for value in values:\n        total += value\n    return total\n",
    windowStart: "    for value in values:",
    target: 1,
    changed: "        if value >= limit:",
    broken: "        if value >= limit",
    dup: "    total = 0",
    dupChanged: "    total = 1",
    placeholder: "# ... existing code ...",
    unit: "    ",
  },
  {
    lang: "javascript",
    path: "lib/compute.js",
    testPath: "lib/compute.test.js",
    content:
      "function compute(values, limit) {\n  let total = 0;\n  for (const value of values) {\n    if (value > limit) {\n      total += limit;\n    } else {\n      total += value;\n    }\n  }\n  return total;\n}\n\nfunction report(values) {\n  let total = 0;\n  for (const value of values) {\n    total += value;\n  }\n  return total;\n}\n\nmodule.exports = { compute, report };\n",
    windowStart: "  for (const value of values) {",
    target: 1,
    changed: "    if (value >= limit) {",
    broken: "    if (value >= limit {",
    dup: "  let total = 0;",
    dupChanged: "  let total = 1;",
    placeholder: "// ... existing code ...",
    unit: "  ",
  },
  {
    lang: "typescript",
    path: "src/compute.ts",
    testPath: "src/compute.spec.ts",
    content:
      "export function compute(values: number[], limit: number): number {\n  let total: number = 0;\n  for (const value of values) {\n    if (value > limit) {\n      total += limit;\n    } else {\n      total += value;\n    }\n  }\n  return total;\n}\n\nexport function report(values: number[]): number {\n  let total: number = 0;\n  for (const value of values) {\n    total += value;\n  }\n  return total;\n}\n",
    windowStart: "  for (const value of values) {",
    target: 1,
    changed: "    if (value >= limit) {",
    broken: "    if (value >= limit {",
    dup: "  let total: number = 0;",
    dupChanged: "  let total: number = 1;",
    placeholder: "// ... existing code ...",
    unit: "  ",
  },
  {
    lang: "java",
    path: "src/main/java/demo/Calc.java",
    testPath: "src/test/java/demo/CalcTest.java",
    content:
      "package demo;\n\npublic class Calc {\n    public int compute(int[] values, int limit) {\n        int total = 0;\n        for (int value : values) {\n            if (value > limit) {\n                total += limit;\n            } else {\n                total += value;\n            }\n        }\n        return total;\n    }\n\n    public int report(int[] values) {\n        int total = 0;\n        for (int value : values) {\n            total += value;\n        }\n        return total;\n    }\n}\n",
    windowStart: "        for (int value : values) {",
    target: 1,
    changed: "            if (value >= limit) {",
    broken: "            if (value >= limit {",
    dup: "        int total = 0;",
    dupChanged: "        int total = 1;",
    placeholder: "// ... existing code ...",
    unit: "    ",
  },
  {
    lang: "go",
    path: "calc/compute.go",
    testPath: "calc/compute_test.go",
    content:
      "package calc\n\nfunc Compute(values []int, limit int) int {\n\ttotal := 0\n\tfor _, value := range values {\n\t\tif value > limit {\n\t\t\ttotal += limit\n\t\t} else {\n\t\t\ttotal += value\n\t\t}\n\t}\n\treturn total\n}\n\nfunc Report(values []int) int {\n\ttotal := 0\n\tfor _, value := range values {\n\t\ttotal += value\n\t}\n\treturn total\n}\n",
    windowStart: "\tfor _, value := range values {",
    target: 1,
    changed: "\t\tif value >= limit {",
    broken: "\t\tif value >= limit) {",
    dup: "\ttotal := 0",
    dupChanged: "\ttotal := 1",
    placeholder: "// ... existing code ...",
    unit: "\t",
  },
];

const lead = (l: string) => /^[ \t]*/.exec(l)![0];
const dedent = (ls: string[], n: number) => ls.map((l) => l.slice(Math.min(n, lead(l).length)));

interface Shape {
  name: string;
  /** Returns files, answer and the expected text of the fixture's file (null: must be refused). */
  make(
    f: Fixture,
    o: string[],
    p: string[],
  ): { files?: Record<string, string>; answer: string; expected: string | null };
  status?: PatchStatus;
}

const SHAPES: Shape[] = [
  {
    name: "exact copy",
    make: (f, o, p) => ({ answer: edit(f.path, o.join("\n"), p.join("\n")), expected: "" }),
  },
  {
    name: "dedented block",
    make: (f, o, p) => {
      const n = lead(o[0]!).length;
      return { answer: edit(f.path, dedent(o, n).join("\n"), dedent(p, n).join("\n")), expected: "" };
    },
  },
  {
    name: "first line unindented",
    make: (f, o, p) => ({
      answer: edit(
        f.path,
        [o[0]!.trimStart(), ...o.slice(1)].join("\n"),
        [p[0]!.trimStart(), ...p.slice(1)].join("\n"),
      ),
      expected: "",
    }),
  },
  {
    name: "line-number prefixes",
    make: (f, o, p) => {
      const first = f.content.split("\n").indexOf(f.windowStart) + 1;
      const num = (ls: string[]) => ls.map((l, i) => `${first + i} ${l}`).join("\n");
      return { answer: edit(f.path, num(o), num(p)), expected: "" };
    },
  },
  {
    name: "CRLF file",
    make: (f, o, p) => ({
      files: { [f.path]: f.content.replaceAll("\n", "\r\n") },
      answer: edit(f.path, o.join("\n"), p.join("\n")),
      expected: "crlf",
    }),
  },
  {
    name: "tabs and spaces swapped",
    make: (f, o, p) => {
      const swap = (ls: string[]) =>
        ls.map((l) =>
          f.unit === "\t"
            ? l.replace(/^\t+/, (t) => "    ".repeat(t.length))
            : l.replace(/^ +/, (s) => "\t".repeat(s.length / f.unit.length)),
        );
      return { answer: edit(f.path, swap(o).join("\n"), swap(p).join("\n")), expected: "" };
    },
  },
  {
    name: "fences, prose, basename, trailing whitespace",
    make: (f, o, p) => ({
      answer: `The bug is in the comparison.\n\n# modification 1\n\`\`\`\n${edit(f.path.split("/").pop()!, o.map((l) => `${l}  `).join("\n"), p.join("\n"))}\`\`\`\nDone.`,
      expected: "",
    }),
  },
  {
    name: "misremembered context line",
    make: (f, o, p) => {
      const wrong = o[0]!.replace("values", "vals");
      return {
        answer: edit(f.path, [wrong, ...o.slice(1)].join("\n"), [wrong, ...p.slice(1)].join("\n")),
        expected: "",
      };
    },
  },
  {
    name: "placeholder for unchanged lines",
    make: (f, o, p) => ({
      answer: edit(
        f.path,
        o.join("\n"),
        [...p.slice(0, f.target + 2), `${lead(o[3]!)}${f.placeholder}`].join("\n"),
      ),
      expected: "",
    }),
  },
  {
    name: "ambiguous original",
    status: "RAW_PATCH_BUT_AMBIGUOUS",
    make: (f) => ({ answer: edit(f.path, f.dup, f.dupChanged), expected: null }),
  },
  {
    name: "syntax error",
    status: "MATCHED_BUT_SYNTAX_ERROR",
    make: (f, o) => ({
      answer: edit(f.path, o.join("\n"), o.map((l, i) => (i === f.target ? f.broken : l)).join("\n")),
      expected: null,
    }),
  },
  {
    name: "multi-edit answer with one failing edit",
    status: "RAW_PATCH_BUT_UNMATCHED",
    make: (f, o, p) => ({
      answer:
        edit(f.path, o.join("\n"), p.join("\n")) +
        edit(f.path, `${f.unit}this line is not in the file`, `${f.unit}x`),
      expected: null,
    }),
  },
  {
    name: "test file",
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    make: (f, o, p) => ({
      files: { [f.testPath]: f.content },
      answer: edit(f.testPath, o.join("\n"), p.join("\n")),
      expected: null,
    }),
  },
  {
    name: "patch that changes nothing",
    status: "MATCHED_BUT_EMPTY_DIFF",
    make: (f, o) => ({ answer: edit(f.path, o.join("\n"), o.join("\n")), expected: null }),
  },
];

for (const f of FIXTURES) {
  const lines = f.content.split("\n");
  const start = lines.indexOf(f.windowStart);
  const o = lines.slice(start, start + 5);
  const p = o.map((l, i) => (i === f.target ? f.changed : l));
  const fixed = [...lines.slice(0, start), ...p, ...lines.slice(start + 5)].join("\n");
  for (const shape of SHAPES) {
    test(`${f.lang}: ${shape.name}`, async () => {
      const made = shape.make(f, o, p);
      const files = made.files ?? { [f.path]: f.content };
      const r = await apply({ ...files, "README.md": "# demo\n" }, made.answer);
      if (made.expected === null) {
        assert.equal(r.status, shape.status, r.feedback);
        assert.equal(r.changedFiles.length, 0);
        assert.ok(r.edits.some((e) => e.status !== "APPLICABLE_PATCH" && e.message.length > 20));
        return;
      }
      assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
      const want = made.expected === "crlf" ? fixed.replaceAll("\n", "\r\n") : fixed;
      assert.equal(r.changedFiles.length, 1);
      assert.equal(r.changedFiles[0]!.after, want);
    });
  }
}
