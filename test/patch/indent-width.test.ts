/**
 * An answer written with another indentation width than the file's (two-space levels for a four-space
 * file, or the reverse): the new lines must land on the file's levels, in every language, so the diff a
 * person reviews changes the code and not its layout. Each row asserts the exact file after the edit.
 * The shapes are those the apply benchmark once applied with the answer's own width: a block opened
 * around a line of a method, a new block after lines that all sit at one depth (at the top level, where
 * nothing in <original> tells the answer's width), and the same in Python and Java.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

interface Row {
  name: string;
  path: string;
  before: string;
  orig: string[];
  patched: string[];
  expected: string;
}

const ROWS: Row[] = [
  {
    name: "javascript, 4-space file, 2-space answer wrapping a method's return in a block",
    path: "lib/controller.mjs",
    before: [
      "export class Controller {",
      "    _reset() {",
      "        this._count = 0;",
      "        return true;",
      "    }",
      "    _hasBudget(attempt, maximum) {",
      "        return attempt <= maximum && this._count < maximum;",
      "    }",
      "    _next(attempt) {",
      "        this._count += 1;",
      "        return attempt + 1;",
      "    }",
      "}",
      "",
    ].join("\n"),
    orig: [
      "  _hasBudget(attempt, maximum) {",
      "    return attempt <= maximum && this._count < maximum;",
      "  }",
    ],
    patched: [
      "  _hasBudget(attempt, maximum) {",
      "    if (maximum > 0) {",
      "      return attempt <= maximum && this._count < maximum;",
      "    }",
      "    return false;",
      "  }",
    ],
    expected: [
      "export class Controller {",
      "    _reset() {",
      "        this._count = 0;",
      "        return true;",
      "    }",
      "    _hasBudget(attempt, maximum) {",
      "        if (maximum > 0) {",
      "            return attempt <= maximum && this._count < maximum;",
      "        }",
      "        return false;",
      "    }",
      "    _next(attempt) {",
      "        this._count += 1;",
      "        return attempt + 1;",
      "    }",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "javascript, 4-space file, top-level lines, 2-space body in the new block",
    path: "lib/index.js",
    before: [
      "const DQUOTE = 34;",
      "const COMMA = 44;",
      "const LOWER_CASE = 1;",
      "const OWS = 2;",
      "function parse(text) {",
      "    for (const c of text) {",
      "        if (c === COMMA) {",
      "            return true;",
      "        }",
      "    }",
      "    return false;",
      "}",
      "",
    ].join("\n"),
    orig: ["const COMMA = 44;", "const LOWER_CASE = 1;", "const OWS = 2;"],
    patched: [
      "const COMMA = 44;",
      "if (COMMA == null) {",
      '  throw new Error("COMMA is required");',
      "}",
      "const LOWER_CASE = 1;",
      "const OWS = 2;",
    ],
    expected: [
      "const DQUOTE = 34;",
      "const COMMA = 44;",
      "if (COMMA == null) {",
      '    throw new Error("COMMA is required");',
      "}",
      "const LOWER_CASE = 1;",
      "const OWS = 2;",
      "function parse(text) {",
      "    for (const c of text) {",
      "        if (c === COMMA) {",
      "            return true;",
      "        }",
      "    }",
      "    return false;",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "typescript, 2-space file, top-level lines, 4-space body in the new block",
    path: "src/providers.ts",
    before: [
      "const API_VERSION = '2018-02-01';",
      "const BASE_URL = 'http://localhost/token';",
      "const MAX_CAUSES = 32;",
      "const getDescriptor = Object.getOwnPropertyDescriptor;",
      "export function causes(list: unknown[]): unknown[] {",
      "  if (list.length > MAX_CAUSES) {",
      "    return list.slice(0, MAX_CAUSES);",
      "  }",
      "  return list;",
      "}",
      "",
    ].join("\n"),
    orig: [
      "const API_VERSION = '2018-02-01';",
      "const BASE_URL = 'http://localhost/token';",
      "const MAX_CAUSES = 32;",
    ],
    patched: [
      "const API_VERSION = '2018-02-01';",
      "const BASE_URL = 'http://localhost/token';",
      "const MAX_CAUSES = 32;",
      "if (MAX_CAUSES == null) {",
      '    throw new Error("MAX_CAUSES is required");',
      "}",
    ],
    expected: [
      "const API_VERSION = '2018-02-01';",
      "const BASE_URL = 'http://localhost/token';",
      "const MAX_CAUSES = 32;",
      "if (MAX_CAUSES == null) {",
      '  throw new Error("MAX_CAUSES is required");',
      "}",
      "const getDescriptor = Object.getOwnPropertyDescriptor;",
      "export function causes(list: unknown[]): unknown[] {",
      "  if (list.length > MAX_CAUSES) {",
      "    return list.slice(0, MAX_CAUSES);",
      "  }",
      "  return list;",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "python, 4-space file, 2-space answer opening a block inside a function",
    path: "calc/limits.py",
    before: [
      "import os",
      "",
      "",
      "def clamp(value, low, high):",
      "    if value < low:",
      "        return low",
      "    result = min(value, high)",
      "    return result",
      "",
      "",
      "def other():",
      "    return 1",
      "",
    ].join("\n"),
    orig: ["  result = min(value, high)", "  return result"],
    patched: [
      "  result = min(value, high)",
      "  if result is None:",
      "    raise ValueError(value)",
      "  return result",
    ],
    expected: [
      "import os",
      "",
      "",
      "def clamp(value, low, high):",
      "    if value < low:",
      "        return low",
      "    result = min(value, high)",
      "    if result is None:",
      "        raise ValueError(value)",
      "    return result",
      "",
      "",
      "def other():",
      "    return 1",
      "",
    ].join("\n"),
  },
  {
    name: "java, 4-space file, 2-space answer adding a guard after a statement",
    path: "src/main/java/demo/Limits.java",
    before: [
      "package demo;",
      "",
      "public class Limits {",
      "    public int clamp(int value, int high) {",
      "        int result = Math.min(value, high);",
      "        return result;",
      "    }",
      "}",
      "",
    ].join("\n"),
    orig: ["    int result = Math.min(value, high);", "    return result;"],
    patched: [
      "    int result = Math.min(value, high);",
      "    if (result < 0) {",
      "      throw new IllegalArgumentException();",
      "    }",
      "    return result;",
    ],
    expected: [
      "package demo;",
      "",
      "public class Limits {",
      "    public int clamp(int value, int high) {",
      "        int result = Math.min(value, high);",
      "        if (result < 0) {",
      "            throw new IllegalArgumentException();",
      "        }",
      "        return result;",
      "    }",
      "}",
      "",
    ].join("\n"),
  },
  {
    // Not another width: a correct answer whose only step is a continuation line two levels in. Read
    // rescaled, that line would move; it is kept as written.
    name: "java, 4-space file, correct answer with a continuation line eight columns in",
    path: "src/main/java/demo/Log.java",
    before: [
      "package demo;",
      "",
      "public class Log {",
      "    public int clamp(int value, int high) {",
      "        int result = Math.min(value, high);",
      "        return result;",
      "    }",
      "}",
      "",
    ].join("\n"),
    orig: ["        int result = Math.min(value, high);", "        return result;"],
    patched: [
      "        int result = Math.min(value, high);",
      '        System.out.println(String.format("%d of %d",',
      "                result, high));",
      "        return result;",
    ],
    expected: [
      "package demo;",
      "",
      "public class Log {",
      "    public int clamp(int value, int high) {",
      "        int result = Math.min(value, high);",
      '        System.out.println(String.format("%d of %d",',
      "                result, high));",
      "        return result;",
      "    }",
      "}",
      "",
    ].join("\n"),
  },
];

for (const row of ROWS) {
  test(`another indentation width: ${row.name}`, async () => {
    const r = await apply(
      { [row.path]: row.before },
      edit(row.path, row.orig.join("\n"), row.patched.join("\n")),
    );
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, row.path), row.expected);
  });
}
