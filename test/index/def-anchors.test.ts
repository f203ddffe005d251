import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Query, type QueryMatch } from "web-tree-sitter";
import { definitionMatches, makeMatchPlan } from "../../src/index/def-anchors.ts";
import { planFor } from "../../src/index/extract.ts";
import {
  type LanguageId,
  languageForPath,
  languageOf,
  loadLanguage,
  parseSource,
} from "../../src/languages/index.ts";
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
    const anchored = keys(definitionMatches(plan, tree, source));
    const whole = keys(plan.query.matches(tree.rootNode));
    assert.deepEqual(anchored, whole, label);
    return anchored.length;
  } finally {
    tree.delete();
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

test("anchored matching finds exactly what the whole-tree query finds in every fixture file", async () => {
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

test("anchored matching equals the whole-tree query for definitions nested in statements and expressions", async () => {
  for (const [lang, source] of NESTED) {
    const n = await assertSameAsWholeTree(lang, source, lang);
    assert.ok(n >= 3, `${lang}: only ${n} matches`);
  }
});

test("only Python's query is anchored by keywords; the other languages match the whole tree", async () => {
  const anchored = await Promise.all(
    (["python", "javascript", "typescript", "tsx", "java", "go"] as const).map(
      async (l) => (await planFor(l)).anchors !== null,
    ),
  );
  assert.deepEqual(anchored, [true, false, false, false, false, false]);
});

test("the keywords in strings, comments, longer names and attributes are not definitions", async () => {
  const source = [
    '"""A class that will def-initely not define anything."""',
    "# def commented(): pass",
    "classify = define = 1",
    "obj.def_ = obj.class_ = x.klass",
    "s = 'class X: pass'; t = f\"def {y}(): ...\"",
    "def real(): pass",
    "class Real:",
    '    """def inside a docstring"""',
    "    async  def run(self): pass",
  ].join("\n");
  const n = await assertSameAsWholeTree("python", source, "decoys");
  const plan = await planFor("python");
  const tree = await parseSource("python", source);
  try {
    const names = definitionMatches(plan, tree, source).flatMap((m) =>
      m.captures.filter((c) => c.name === "name").map((c) => c.node.text),
    );
    assert.deepEqual(names, ["real", "Real", "run"]);
    assert.ok(n >= 3);
  } finally {
    tree.delete();
  }
});

test("a tree with a syntax error is matched whole: definitions inside broken code are still found", async () => {
  const source = "def ok():\n    pass\n\nx = (1, \ndef inside_error():\n    pass\n";
  const n = await assertSameAsWholeTree("python", source, "broken python");
  assert.ok(n >= 1);
});

test("a query with a pattern the keywords do not anchor is matched over the whole tree", async () => {
  const source =
    "(decorated_definition) @function\n(function_definition name: (identifier) @name) @function\n";
  const language = await loadLanguage("python");
  const edited = makeMatchPlan(languageOf("python").units.anchors, new Query(language, source), source);
  assert.equal(edited.anchors, null, "decorated_definition has no keyword of its own");
  const tree = await parseSource("python", "@d\ndef f(): pass\n");
  try {
    assert.equal(definitionMatches(edited, tree, "@d\ndef f(): pass\n").length, 2);
  } finally {
    tree.delete();
  }
});
