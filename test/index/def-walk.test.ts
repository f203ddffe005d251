import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { QueryMatch } from "web-tree-sitter";
import { containersOf, definitionMatches, walkedMatches } from "../../src/index/def-walk.ts";
import { planFor } from "../../src/index/extract.ts";
import { type LanguageId, languageForPath, parseSource } from "../../src/treesitter/languages.ts";
import { fixturePath } from "./helpers.ts";

/** Matches as comparable text: pattern, then each capture's name and byte range. */
function keys(matches: QueryMatch[]): string[] {
  return matches
    .map((m) =>
      [m.patternIndex, ...m.captures.map((c) => `${c.name}@${c.node.startIndex}-${c.node.endIndex}`)].join(
        " ",
      ),
    )
    .sort();
}

async function assertSameAsWholeTree(lang: LanguageId, source: string, label: string): Promise<number> {
  const plan = await planFor(lang);
  const tree = await parseSource(lang, source);
  try {
    const walk = tree.rootNode.hasError ? definitionMatches : walkedMatches;
    const walked = keys(walk(plan, tree));
    const whole = keys(plan.query.matches(tree.rootNode));
    assert.deepEqual(walked, whole, label);
    return walked.length;
  } finally {
    tree.delete();
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

test("the targeted walk finds exactly what the whole-tree query finds in every fixture file", async () => {
  let total = 0;
  for (const repo of ["python", "javascript", "typescript", "java", "go"]) {
    for (const file of filesUnder(fixturePath(repo))) {
      const lang = languageForPath(file);
      if (lang) total += await assertSameAsWholeTree(lang, readFileSync(file, "utf8"), file);
    }
  }
  assert.ok(total > 50, `only ${total} matches in the fixtures`);
});

const NESTED: [LanguageId, string][] = [
  [
    "python",
    [
      "import sys",
      "if sys.version_info > (3,):",
      "    class A(Base, metaclass=M):",
      "        x = 1",
      "        try:",
      "            def f(self):",
      "                with open('x') as h:",
      "                    def g(): pass",
      "        except ImportError:",
      "            async def h(self): ...",
      "        match x:",
      "            case 1:",
      "                class B: pass",
      "@deco",
      "def top():",
      "    for i in range(3):",
      "        while True:",
      "            class C: y: int",
      "    return lambda: 1",
    ].join("\n"),
  ],
  [
    "javascript",
    [
      "describe('x', () => { const f = () => 1; it('y', function () { function inner() {} }); });",
      "module.exports = { make: function () { return class K extends Base { m() {} }; } };",
      "export default [1, 2].map((n) => { const sq = async () => n * n; return sq; });",
      "foo(`${(() => { class T {} })()}`);",
      "Foo.prototype.bar = function () {};",
      "label: for (;;) { if (a) { const Q = class extends R {}; } else { let w = function* () {}; } }",
    ].join("\n"),
  ],
  [
    "typescript",
    [
      'declare module "lib" { interface Opts { retry?: number; go(): void } }',
      "namespace N { export abstract class A<T> implements I { abstract run(): void; h = () => 1; } }",
      "export const x = <T,>(v: T) => { enum E { A } return v as unknown as T; };",
      "type F = { f: () => void };",
    ].join("\n"),
  ],
  [
    "tsx",
    "export function App() { const onClick = () => {}; return <div onClick={() => { function deep() {} }} />; }",
  ],
  [
    "java",
    [
      "package p;",
      "public class Outer extends Base implements I {",
      "  int x;",
      "  void m() { Runnable r = new Runnable() { public void run() {} }; class Local { void l() {} } }",
      "  enum E implements J { A { void a() {} }, B; void e() {} }",
      "  record R(int a) { R { } }",
      "  @interface Ann {}",
      "  interface In extends K { int C = 1; }",
      "}",
    ].join("\n"),
  ],
  [
    "go",
    [
      "package p",
      "type S struct { Base; n int }",
      "type I interface { Other; M() }",
      "type ( A = int; B struct{} )",
      "func (s *S) M() { f := func() { type local struct{} }; _ = f }",
      "func F() {}",
    ].join("\n"),
  ],
];

test("the targeted walk matches the whole-tree query for definitions nested in statements and expressions", async () => {
  for (const [lang, source] of NESTED) {
    const n = await assertSameAsWholeTree(lang, source, lang);
    assert.ok(n >= 3, `${lang}: only ${n} matches`);
  }
});

test("only Python's grammar is narrow enough for the walk to pay off", async () => {
  const narrow = await Promise.all(
    (["python", "javascript", "typescript", "tsx", "java", "go"] as const).map(
      async (l) => (await planFor(l)).narrow,
    ),
  );
  assert.deepEqual(narrow, [true, false, false, false, false, false]);
});

test("a tree with a syntax error is matched whole: definitions inside broken code are still found", async () => {
  const source = "def ok():\n    pass\n\nx = (1, \ndef inside_error():\n    pass\n";
  const n = await assertSameAsWholeTree("python", source, "broken python");
  assert.ok(n >= 1);
});

test("containersOf follows supertypes and keeps a named node that shares a keyword's name", () => {
  const types = [
    { type: "program", children: { types: [{ type: "statement" }] } },
    { type: "statement", subtypes: [{ type: "module" }, { type: "expression_statement" }] },
    { type: "module", fields: { body: { types: [{ type: "block" }] } } },
    { type: "module" },
    { type: "block", children: { types: [{ type: "statement" }, { type: "interface_declaration" }] } },
    { type: "expression_statement", children: { types: [{ type: "identifier" }] } },
  ];
  const holders = containersOf(types, new Set(["interface_declaration"]));
  assert.deepEqual([...holders].sort(), ["block", "module", "program"]);
});
