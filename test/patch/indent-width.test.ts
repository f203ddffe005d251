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
    // The moved line repeats a file line; as written every repeated line sits one level left of the
    // file, rescaled all but the moved one sit at their file columns.
    name: "javascript, 4-space file, 2-space answer moving a deep `break` into a new block",
    path: "lib/events.js",
    before: [
      "function drain(queue) {",
      "    for (let i = 0; i < queue.length; i++) {",
      "        const command = queue[i];",
      '        if (command.name === "exec") {',
      "            queue.splice(i, 1);",
      "            break;",
      "        }",
      "        if (command.inTransaction) {",
      "            queue.splice(i, 1);",
      "        }",
      "    }",
      "}",
      "",
    ].join("\n"),
    orig: ["      break;", "    }", "    if (command.inTransaction) {"],
    patched: [
      "      if (queue.length > 0) {",
      "        break;",
      "      }",
      "    }",
      "    if (command.inTransaction) {",
    ],
    expected: [
      "function drain(queue) {",
      "    for (let i = 0; i < queue.length; i++) {",
      "        const command = queue[i];",
      '        if (command.name === "exec") {',
      "            queue.splice(i, 1);",
      "            if (queue.length > 0) {",
      "                break;",
      "            }",
      "        }",
      "        if (command.inTransaction) {",
      "            queue.splice(i, 1);",
      "        }",
      "    }",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "javascript, 4-space file, top-level line moved into a new block with a 2-space body",
    path: "lib/pipeline.js",
    before: [
      'const buffer = require("buffer");',
      'const utils = require("./utils");',
      'const commander = require("./commander");',
      'const coordinator = require("./coordinator");',
      "function run() {",
      "    return utils.run(buffer, commander, coordinator);",
      "}",
      "",
    ].join("\n"),
    orig: [
      'const utils = require("./utils");',
      'const commander = require("./commander");',
      'const coordinator = require("./coordinator");',
    ],
    patched: [
      'const utils = require("./utils");',
      "if (utils) {",
      '  const commander = require("./commander");',
      "}",
      'const coordinator = require("./coordinator");',
    ],
    expected: [
      'const buffer = require("buffer");',
      'const utils = require("./utils");',
      "if (utils) {",
      '    const commander = require("./commander");',
      "}",
      'const coordinator = require("./coordinator");',
      "function run() {",
      "    return utils.run(buffer, commander, coordinator);",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "python, 4-space file, 2-space answer moving a line out of a deeper block into a new one",
    path: "calc/compile.py",
    before: [
      "def compile_all(files, dry_run):",
      "    if files:",
      "        try:",
      "            from tempfile import mkstemp",
      "        except ImportError:",
      "            name = None",
      "        log('writing %s', name)",
      "        if not dry_run:",
      "            run(name)",
      "    return files",
      "",
    ].join("\n"),
    orig: ["      name = None", "    log('writing %s', name)", "    if not dry_run:"],
    patched: [
      "      name = None",
      "    if name is not None:",
      "      log('writing %s', name)",
      "    if not dry_run:",
    ],
    expected: [
      "def compile_all(files, dry_run):",
      "    if files:",
      "        try:",
      "            from tempfile import mkstemp",
      "        except ImportError:",
      "            name = None",
      "        if name is not None:",
      "            log('writing %s', name)",
      "        if not dry_run:",
      "            run(name)",
      "    return files",
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
  {
    // Only the changed line is indented: <patched>'s own lines say nothing of the width, but <original>
    // puts that line one four-space level in where the file has it one two-space level in.
    name: "typescript, 2-space file, 4-space answer changing the one indented line under top-level lines",
    path: "src/tools.ts",
    before: [
      "/** The tools of one work tree. */",
      "export interface CodeTools<",
      "  L extends Location = Location,",
      "  R extends Result = Result,",
      "> {",
      "  search: Search<L>;",
      "}",
      "",
    ].join("\n"),
    orig: [
      "/** The tools of one work tree. */",
      "export interface CodeTools<",
      "    L extends Location = Location,",
    ],
    patched: [
      "/** The tools of one work tree. */",
      "export interface CodeTools<",
      "    L extends ResolvedLocation = Location,",
    ],
    expected: [
      "/** The tools of one work tree. */",
      "export interface CodeTools<",
      "  L extends ResolvedLocation = Location,",
      "  R extends Result = Result,",
      "> {",
      "  search: Search<L>;",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "typescript, 2-space file, 4-space answer with a condition opened by `if (` at the end of its line",
    path: "src/platform.ts",
    before: [
      "export function platform(): string {",
      "  if (",
      "    typeof process !== 'undefined'",
      "  ) {",
      "    return 'node';",
      "  }",
      "  return 'unknown';",
      "}",
      "",
    ].join("\n"),
    orig: [
      "    if (",
      "        typeof process !== 'undefined'",
      "    ) {",
      "        return 'node';",
      "    }",
      "    return 'unknown';",
    ],
    patched: [
      "    if (",
      "        typeof process !== 'undefined'",
      "    ) {",
      "        return 'node';",
      "    }",
      "    if (true) {",
      "        return 'unknown';",
      "    }",
    ],
    expected: [
      "export function platform(): string {",
      "  if (",
      "    typeof process !== 'undefined'",
      "  ) {",
      "    return 'node';",
      "  }",
      "  if (true) {",
      "    return 'unknown';",
      "  }",
      "}",
      "",
    ].join("\n"),
  },
  {
    name: "python, 4-space file, 2-space answer whose new call has lines aligned with its bracket",
    path: "pkg/calc.py",
    before: [
      "def total(values, limit):",
      "    result = 0",
      "    for value in values:",
      "        if value > limit:",
      "            result += value",
      "    return result",
      "",
    ].join("\n"),
    orig: ["  for value in values:", "    if value > limit:", "      result += value"],
    patched: [
      "  for value in values:",
      "    if value > limit:",
      "      result += clamp(value,",
      "                      limit)",
    ],
    expected: [
      "def total(values, limit):",
      "    result = 0",
      "    for value in values:",
      "        if value > limit:",
      "            result += clamp(value,",
      "                            limit)",
      "    return result",
      "",
    ].join("\n"),
  },
  {
    // The continuation lines sit one level under their `if (`, where a four-space level ends exactly
    // under the character after `if (`; the escaped bracket in each regular expression is no bracket.
    name: "typescript, 2-space file, 4-space answer inserting a line after `if` lines continued a level in",
    path: "src/config/detect.ts",
    before: String.raw`/** What one line of a test module shows: pytest's style, a TestCase suite, or nothing. */
function lineStyle(raw: string): { pytest?: string; testCase?: true } {
  const line = raw.length > MAX_STYLE_LINE ? raw.slice(0, MAX_STYLE_LINE) : raw;
  if (/^(import[ \t]+pytest\b|from[ \t]+pytest\b|import[ \t]+[\w., \t]*\bpytest\b)/.test(line))
    return { pytest: "imports pytest" };
  if (/^[ \t]*@pytest\.fixture\b/.test(line)) return { pytest: "defines a pytest fixture" };
  if (/^(async[ \t]+)?def[ \t]+test\w*[ \t]*\(/.test(line))
    return { pytest: "has a module-level test function" };
  if (/^class[ \t]+Test\w*[ \t]*(\([ \t]*(object)?[ \t]*\))?[ \t]*:/.test(line))
    return { pytest: "has a test class that is not a unittest.TestCase" };
  if (/^class[ \t].*\b(TestCase|IsolatedAsyncioTestCase)\b/.test(line)) return { testCase: true };
  return {};
}
`,
    orig: [
      String.raw`    if (/^[ \t]*@pytest\.fixture\b/.test(line)) return { pytest: "defines a pytest fixture" };`,
      String.raw`    if (/^(async[ \t]+)?def[ \t]+test\w*[ \t]*\(/.test(line))`,
      `        return { pytest: "has a module-level test function" };`,
      String.raw`    if (/^class[ \t]+Test\w*[ \t]*(\([ \t]*(object)?[ \t]*\))?[ \t]*:/.test(line))`,
      `        return { pytest: "has a test class that is not a unittest.TestCase" };`,
      String.raw`    if (/^class[ \t].*\b(TestCase|IsolatedAsyncioTestCase)\b/.test(line)) return { testCase: true };`,
      "    return {};",
      "}",
    ],
    patched: [
      String.raw`    if (/^[ \t]*@pytest\.fixture\b/.test(line)) return { pytest: "defines a pytest fixture" };`,
      String.raw`    if (/^(async[ \t]+)?def[ \t]+test\w*[ \t]*\(/.test(line))`,
      `        return { pytest: "has a module-level test function" };`,
      String.raw`    if (/^class[ \t]+Test\w*[ \t]*(\([ \t]*(object)?[ \t]*\))?[ \t]*:/.test(line))`,
      `        return { pytest: "has a test class that is not a unittest.TestCase" };`,
      "        void unittest;",
      String.raw`    if (/^class[ \t].*\b(TestCase|IsolatedAsyncioTestCase)\b/.test(line)) return { testCase: true };`,
      "    return {};",
      "}",
    ],
    expected: String.raw`/** What one line of a test module shows: pytest's style, a TestCase suite, or nothing. */
function lineStyle(raw: string): { pytest?: string; testCase?: true } {
  const line = raw.length > MAX_STYLE_LINE ? raw.slice(0, MAX_STYLE_LINE) : raw;
  if (/^(import[ \t]+pytest\b|from[ \t]+pytest\b|import[ \t]+[\w., \t]*\bpytest\b)/.test(line))
    return { pytest: "imports pytest" };
  if (/^[ \t]*@pytest\.fixture\b/.test(line)) return { pytest: "defines a pytest fixture" };
  if (/^(async[ \t]+)?def[ \t]+test\w*[ \t]*\(/.test(line))
    return { pytest: "has a module-level test function" };
  if (/^class[ \t]+Test\w*[ \t]*(\([ \t]*(object)?[ \t]*\))?[ \t]*:/.test(line))
    return { pytest: "has a test class that is not a unittest.TestCase" };
    void unittest;
  if (/^class[ \t].*\b(TestCase|IsolatedAsyncioTestCase)\b/.test(line)) return { testCase: true };
  return {};
}
`,
  },
  {
    // A bracket really left open: the continuation line is a level in (a hanging indent) in the file,
    // though in the answer's width it ends under the character after `log(`.
    name: "typescript, 2-space file, 4-space answer, a hanging indent ending under the opening bracket",
    path: "src/report.ts",
    before: [
      "export function report(items: string[]): void {",
      "  for (const item of items) {",
      "    log(item,",
      "      item.length);",
      "  }",
      "}",
      "",
    ].join("\n"),
    orig: ["        log(item,", "            item.length);", "    }", "}"],
    patched: ["        log(item,", "            item.length);", "        count++;", "    }", "}"],
    expected: [
      "export function report(items: string[]): void {",
      "  for (const item of items) {",
      "    log(item,",
      "      item.length);",
      "    count++;",
      "  }",
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
