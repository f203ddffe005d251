import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Node } from "web-tree-sitter";
import { extractSymbols } from "../../src/index/extract.ts";
import { parseSource } from "../../src/languages/index.ts";
import { fixturePath } from "./helpers.ts";

/**
 * Python's symbols are built from what the query captured, and a definition's parent is read only when
 * an `@` stands before it (see pythonSymbols in src/index/extract.ts). The oracle here reads every
 * definition from the tree the long way (its parent, every child) and must agree on each field those
 * shortcuts decide: the first row (decorators included), the header's last row, the last row, the
 * decorators and `async`.
 */
interface Read {
  name: string;
  start: number;
  headerEnd: number;
  end: number;
  decorators: readonly string[];
  async: boolean;
}

async function readTheLongWay(source: string): Promise<Read[]> {
  const tree = await parseSource("python", source);
  try {
    const out: Read[] = [];
    const visit = (n: Node): void => {
      if (n.type === "function_definition" || n.type === "class_definition") {
        const parent = n.parent;
        const decorated = parent?.type === "decorated_definition" ? parent : null;
        const colon = n.children.find((c) => c?.type === ":");
        const start = (decorated ?? n).startPosition.row + 1;
        const end = Math.max(n.endPosition.row + 1, start);
        out.push({
          name: n.childForFieldName("name")?.text ?? "",
          start,
          headerEnd: Math.min(Math.max((colon ?? n).startPosition.row + 1, start), end),
          end,
          decorators: (decorated?.namedChildren ?? [])
            .filter((c) => c?.type === "decorator")
            .map((c) => c!.text.replace(/^@\s*/, "").replace(/\s+/g, " ").trim()),
          async: n.children[0]?.type === "async",
        });
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(tree.rootNode);
    return out.sort((a, b) => a.start - b.start || a.name.localeCompare(b.name));
  } finally {
    tree.delete();
  }
}

async function readByIndex(source: string): Promise<Read[]> {
  const { symbols } = await extractSymbols("python", source);
  // Definitions by assignment (`P = namedtuple(…)`) are checked in assignment-definitions.test.ts.
  const lines = source.split("\n");
  return symbols
    .filter((s) => /^\s*(?:@|def\b|class\b|async\b)/.test(lines[s.start - 1] ?? ""))
    .map((s) => ({
      name: s.name,
      start: s.start,
      headerEnd: s.headerEnd,
      end: s.end,
      decorators: s.decorators,
      async: s.async,
    }))
    .sort((a, b) => a.start - b.start || a.name.localeCompare(b.name));
}

const TRICKY = [
  "import functools",
  "m = a @ b  # an @ that is no decorator, right before a plain definition",
  "def plain(x):",
  "    return x",
  "",
  '@functools.wraps(print)  # "def" and "class" in a decorator\'s strings: "def inner(): class"',
  '@register("def nested():", key="class K:")',
  "@(lambda f: f)",
  "async def decorated(",
  "    a: dict[str, int] = {'k': 1},",
  "    b=lambda: 0,",
  '    c="):",',
  ") -> 'Mapping[str, int]':  # the header ends on this row",
  "    # a comment line between the header and the body",
  "",
  "    return a",
  "",
  "class Outer(Base, metaclass=Meta):",
  '    """Docstring with an @ sign and a def word."""',
  "    x = 1",
  "",
  "    @property",
  "    def value(self): return self.x",
  "",
  "    @value.setter",
  "    @other",
  "    def value(self, v):  # setter",
  "        self.x = v @ v",
  "",
  "    def after_decorated(self): ...",
  "",
  "    class Inner:",
  "        @staticmethod",
  "        async def go(): pass",
  "",
  "def one_line(): return 1",
  "def continued(): \\",
  "    return 2",
  "@dec",
  "class Decorated: pass",
  "def café(): pass",
  "class Δelta: pass",
  "def ascii_then_ü(x): return x",
].join("\n");

test("python: the fields read through shortcuts equal a full read of the tree (decorators, header, rows, async)", async () => {
  const expected = await readTheLongWay(TRICKY);
  const got = await readByIndex(TRICKY);
  assert.deepEqual(got, expected);
  const byName = (n: string) => got.filter((s) => s.name === n);
  assert.deepEqual(byName("plain")[0]?.decorators, [], "the @ of a matrix product is not a decorator");
  const deco = byName("decorated")[0]!;
  assert.equal(deco.decorators.length, 3);
  assert.equal(deco.start, 6, "a decorated definition starts at its first decorator");
  assert.equal(deco.headerEnd, 13, "the header ends at the `:` after the return annotation");
  assert.ok(deco.async);
  assert.deepEqual(
    byName("value").map((v) => v.decorators),
    [["property"], ["value.setter", "other"]],
  );
  assert.deepEqual(byName("after_decorated")[0]?.decorators, []);
  assert.deepEqual(byName("go")[0]?.decorators, ["staticmethod"]);
  assert.equal(byName("continued")[0]?.headerEnd, 37);
  // Names with letters beyond ASCII end where the tree says, not where the ASCII letters do.
  assert.deepEqual(
    got.slice(-3).map((s) => s.name),
    ["café", "Δelta", "ascii_then_ü"],
  );
});

function pythonFiles(dir: string, limit: number): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (out.length >= limit) return;
      if (e.isDirectory() && e.name !== "site-packages" && e.name !== "test") walk(join(d, e.name));
      else if (e.isFile() && e.name.endsWith(".py")) out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

test("python: the shortcuts agree with a full read on the fixtures and on real modules of Python's own library", async () => {
  const files = pythonFiles(fixturePath("python"), 200);
  let stdlib: string | null = null;
  try {
    stdlib = execFileSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], {
      encoding: "utf8",
    }).trim();
  } catch {
    stdlib = null;
  }
  // Python itself is installed wherever the tests run (the validation tests need it).
  assert.ok(stdlib && existsSync(stdlib), "python3 and its standard library are needed for this test");
  files.push(...pythonFiles(stdlib, 150));
  let definitions = 0;
  let decorated = 0;
  for (const f of files) {
    const source = readFileSync(f, "utf8");
    const expected = await readTheLongWay(source);
    assert.deepEqual(await readByIndex(source), expected, f);
    definitions += expected.length;
    decorated += expected.filter((e) => e.decorators.length > 0).length;
  }
  assert.ok(definitions > 2000 && decorated > 50, `${definitions} definitions, ${decorated} decorated`);
});

test("python: in a file with a syntax error the fields agree with a full read of the tree", async () => {
  const broken = [
    "@a",
    "@b(lambda: (",
    "def inner(): pass",
    "))",
    "def decorated(): pass",
    "@register(",
    "def inner(): pass",
    ")",
    "def outer(): pass",
    "",
    "class K:",
    "    @property",
    "    def p(self): return (1,",
    "    @other",
    "    def q(self): pass",
  ].join("\n");
  const expected = await readTheLongWay(broken);
  assert.ok(expected.length >= 3, JSON.stringify(expected));
  assert.deepEqual(await readByIndex(broken), expected);
});
