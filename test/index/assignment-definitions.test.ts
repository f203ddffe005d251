/**
 * Definitions made by assignment under a literal name are indexed: Python's `namedtuple`, `NamedTuple`,
 * `Enum` functional API, `type(…)` and factories called with the name itself, at module level and in a
 * class body; JavaScript's object-literal methods (with the object's binding as their class), classes
 * assigned to an export, and methods made on an alias of a prototype.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { extractSymbols } from "../../src/index/extract.ts";

const row = (s: { kind: string; qualName: string; className: string | null; start: number; end: number }) =>
  [s.kind, s.qualName, s.className, s.start, s.end] as const;

// The shape of a shell-command fixer's types module and of a standard-library module.
const PY = `from collections import namedtuple
import enum
import typing
from functools import partial

CorrectedCommand = namedtuple('CorrectedCommand', ('script', 'side_effect', 'priority'))
Color = enum.Enum('Color', 'RED GREEN BLUE')
Row = typing.NamedTuple("Row", [("a", int), ("b", str)])
Dynamic = type("Dynamic", (object,), {})
Made = make_model_class("Made", fields=3)
T = typing.TypeVar("T")
logger = logging.getLogger(__name__)
square = lambda x: x * x
add_three = partial(add, 3)
settings = load_settings()
renamed = namedtuple('Other', 'a')


class Rule:
    """A rule.

    Long description.
    """
    Match = namedtuple(
        "Match", "script output")
    priority = 1000

    def is_match(self, command):
        Local = namedtuple("Local", "x")
        return Local
`;

test("Python: classes and functions defined by assignment are definitions; plain assignments are not", async () => {
  const { symbols } = await extractSymbols("python", PY);
  assert.deepEqual(symbols.map(row), [
    ["class", "CorrectedCommand", null, 6, 6],
    ["class", "Color", null, 7, 7],
    ["class", "Row", null, 8, 8],
    ["class", "Dynamic", null, 9, 9],
    ["class", "Made", null, 10, 10],
    ["function", "square", null, 13, 13],
    ["function", "add_three", null, 14, 14],
    ["class", "renamed", null, 16, 16],
    ["class", "Rule", null, 19, 30],
    ["class", "Rule.Match", "Rule", 24, 25],
    ["method", "Rule.is_match", "Rule", 28, 30],
  ]);
  const color = symbols.find((s) => s.name === "Color")!;
  assert.deepEqual(color.baseNames, ["Enum"]);
  // The class-level statement stays in the class's outline (it is the class's attribute too).
  const rule = symbols.find((s) => s.name === "Rule")!;
  assert.ok(
    rule.attrs.some(([a, b]) => a === 24 && b === 25),
    JSON.stringify(rule.attrs),
  );
});

test("Python standard library: namedtuple, NamedTuple and Enum functional definitions are found", async (t) => {
  const lib = "/usr/lib/python3.11";
  if (!existsSync(`${lib}/urllib/parse.py`)) return t.skip(`no ${lib} on this machine`);
  const parse = await extractSymbols("python", readFileSync(`${lib}/urllib/parse.py`, "utf8"));
  const names = parse.symbols.filter((s) => s.kind === "class").map((s) => s.name);
  for (const n of ["_DefragResultBase", "_SplitResultBase"]) assert.ok(names.includes(n), n);
  const inspect = await extractSymbols("python", readFileSync(`${lib}/inspect.py`, "utf8"));
  const cls = inspect.symbols.filter((s) => s.kind === "class").map((s) => s.name);
  for (const n of ["ArgInfo", "ClosureVars"]) assert.ok(cls.includes(n), n);
});

// The shape of a linter's 1,000-line utility module and of prototype-style classes.
const JS = `"use strict";
const astUtils = require("./ast-utils");

module.exports = {
  getPrecedence(node) {
    switch (node.type) {
      default:
        return 20;
    }
  },
  isNullLiteral: function (node) {
    return node.type === "Literal" && node.value === null;
  },
  isParenthesised: (sourceCode, node) => false,
  "quoted-name"() {},
  LINEBREAKS: new Set(["\\r\\n", "\\r", "\\n"]),
};

const utils = {
  async load() {},
  name: "utils",
};

function Encoder(options) {
  this.options = options;
}
var proto = Encoder.prototype;
proto.encode = function (value) {
  return String(value);
};
Decoder.prototype = {
  decode: function (text) {
    return text;
  },
};
exports.Parser = class Parser extends Base {
  parse() {}
};
`;

for (const lang of ["javascript", "typescript"] as const) {
  test(`${lang}: object-literal methods, prototype aliases and exported classes are indexed`, async () => {
    const { symbols } = await extractSymbols(lang, JS);
    assert.deepEqual(symbols.map(row), [
      ["function", "getPrecedence", null, 5, 10],
      ["function", "isNullLiteral", null, 11, 13],
      ["function", "isParenthesised", null, 14, 14],
      ["function", "quoted-name", null, 15, 15],
      ["method", "utils.load", "utils", 20, 20],
      ["function", "Encoder", null, 24, 26],
      ["method", "Encoder.encode", "Encoder", 28, 30],
      ["method", "Decoder.decode", "Decoder", 32, 34],
      ["class", "Parser", null, 36, 38],
      ["method", "Parser.parse", "Parser", 37, 37],
    ]);
    assert.equal(symbols.find((s) => s.name === "load")?.async, true);
  });
}
