import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

const GO = `package shapes

import "fmt"

// Area of a rectangle.
func Area(w, h int) int {
\tif w < 0 {
\t\treturn 0
\t}
\treturn w * h
}

func Describe(w, h int) string {
\treturn fmt.Sprintf("%dx%d", w, h)
}
`;

const JAVA = `package com.example;

public class Counter {
    private int count;

    public void increment() {
        count++;
    }

    public int get() {
        return count;
    }
}
`;

const TS = `export interface Item {
  name: string;
  price: number;
}

export function total(items: Item[]): number {
  let sum = 0;
  for (const item of items) {
    sum += item.price;
  }
  return sum;
}
`;

const JS = `function parse(input) {
  const parts = input.split(",");
  return parts.map((p) => p.trim());
}

module.exports = { parse };
`;

const crlf = (s: string) => s.replaceAll("\n", "\r\n");

interface Case {
  name: string;
  path: string;
  content: string;
  answer: string;
  expected: string;
}

const cases: Case[] = [
  {
    name: "go, tab-indented file, model wrote spaces",
    path: "shapes/area.go",
    content: GO,
    answer: edit(
      "shapes/area.go",
      "    if w < 0 {\n        return 0\n    }",
      "    if w < 0 || h < 0 {\n        return 0\n    }",
    ),
    expected: GO.replace("if w < 0 {", "if w < 0 || h < 0 {"),
  },
  {
    name: "go, new lines written with spaces become tabs",
    path: "shapes/area.go",
    content: GO,
    answer: edit(
      "area.go",
      'func Describe(w, h int) string {\n    return fmt.Sprintf("%dx%d", w, h)\n}',
      'func Describe(w, h int) string {\n    if w == h {\n        return fmt.Sprintf("square %d", w)\n    }\n    return fmt.Sprintf("%dx%d", w, h)\n}',
    ),
    expected: GO.replace(
      '\treturn fmt.Sprintf("%dx%d", w, h)',
      '\tif w == h {\n\t\treturn fmt.Sprintf("square %d", w)\n\t}\n\treturn fmt.Sprintf("%dx%d", w, h)',
    ),
  },
  {
    name: "java, original without indentation",
    path: "src/main/java/com/example/Counter.java",
    content: JAVA,
    answer: edit(
      "Counter.java",
      "public void increment() {\n    count++;\n}",
      "public void increment() {\n    if (count < Integer.MAX_VALUE) {\n        count++;\n    }\n}",
    ),
    expected: JAVA.replace(
      "        count++;\n",
      "        if (count < Integer.MAX_VALUE) {\n            count++;\n        }\n",
    ),
  },
  {
    name: "java, CRLF file keeps CRLF",
    path: "src/main/java/com/example/Counter.java",
    content: crlf(JAVA),
    answer: edit(
      "src/main/java/com/example/Counter.java",
      "    public int get() {\n        return count;\n    }",
      "    public int get() {\n        return Math.max(0, count);\n    }",
    ),
    expected: crlf(JAVA.replace("return count;", "return Math.max(0, count);")),
  },
  {
    name: "typescript, several edits in one file",
    path: "src/cart.ts",
    content: TS,
    answer:
      edit("src/cart.ts", "  price: number;", "  price: number;\n  quantity: number;") +
      "\nand\n" +
      edit("src/cart.ts", "    sum += item.price;", "    sum += item.price * item.quantity;"),
    expected: TS.replace("  price: number;\n", "  price: number;\n  quantity: number;\n").replace(
      "sum += item.price;",
      "sum += item.price * item.quantity;",
    ),
  },
  {
    name: "javascript, CRLF file without final newline",
    path: "lib/parse.js",
    content: crlf(JS).trimEnd(),
    answer: edit(
      "lib/parse.js",
      "module.exports = { parse };",
      "module.exports = { parse, default: parse };",
    ),
    expected: crlf(JS).trimEnd().replace("{ parse }", "{ parse, default: parse }"),
  },
  {
    name: "javascript, model answer with CRLF line endings on an LF file",
    path: "lib/parse.js",
    content: JS,
    answer: crlf(
      edit("lib/parse.js", '  const parts = input.split(",");', '  const parts = String(input).split(",");'),
    ),
    expected: JS.replace("input.split", "String(input).split"),
  },
  {
    name: "python, tab-indented file",
    path: "tool.py",
    content: "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 0\n",
    answer: edit("tool.py", "    if x:\n        return 1", "    if x is not None:\n        return 1"),
    expected: "def f(x):\n\tif x is not None:\n\t\treturn 1\n\treturn 0\n",
  },
  {
    name: "python, added block needs the indentation the parser accepts",
    path: "calc.py",
    content: "class C:\n    def run(self, x):\n        y = x * 2\n        return y\n",
    answer: edit("calc.py", "y = x * 2\nreturn y", "y = x * 2\nif y > 10:\n    y = 10\nreturn y"),
    expected:
      "class C:\n    def run(self, x):\n        y = x * 2\n        if y > 10:\n            y = 10\n        return y\n",
  },
];

for (const c of cases) {
  test(c.name, async () => {
    const r = await apply({ [c.path]: c.content, "README.md": "# project\n" }, c.answer);
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, c.path), c.expected);
  });
}
