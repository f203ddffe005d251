import assert from "node:assert/strict";
import { test } from "node:test";
import { extractSymbols } from "../../src/index/extract.ts";
import { buildIndex } from "../../src/index/index.ts";
import { SearchApis } from "../../src/search/search-api.ts";
import { fixturePath } from "../index/helpers.ts";

/** The fixture is a real CMake library (it builds and its test passes with g++ -std=c++17). */
async function apis(): Promise<SearchApis> {
  return new SearchApis(await buildIndex(fixturePath("cpp"), { cacheDir: null, workers: 0 }), {
    includeTests: false,
  });
}

test("c++: classes, structs, namespaces, members in and out of the class body, free functions and their prototypes, templates", async () => {
  const index = await buildIndex(fixturePath("cpp"), { cacheDir: null, workers: 0 });
  const of = (path: string) =>
    index.files.find((f) => f.path === path)!.symbols.map((s) => `${s.kind} ${s.qualName}`);
  assert.deepEqual(of("include/textkit/buffer.h"), [
    "class textkit.Buffer",
    "method textkit.Buffer.Buffer",
    "method textkit.Buffer.~Buffer",
    "method textkit.Buffer.append",
    "method textkit.Buffer.line",
    "method textkit.Buffer.lines",
    "method textkit.Buffer.operator+=",
    "method textkit.Buffer.each_line",
    "class textkit.Span",
    "method textkit.Span.size",
    "function textkit.detail.is_space",
    "function textkit.words",
    "function textkit.join",
    "function textkit.clamp_to",
  ]);
  // Defined out of the class: in the namespace (`Buffer::append`) and at the top (`textkit::Buffer::line`).
  assert.deepEqual(of("src/buffer.cpp"), [
    "method textkit.Buffer.Buffer",
    "method textkit.Buffer.~Buffer",
    "method textkit.Buffer.append",
    "method textkit.Buffer.operator+=",
    "method textkit.Buffer.line",
  ]);
  assert.deepEqual(of("src/words.cpp"), [
    "function textkit.detail.is_space",
    "function textkit.words",
    "function textkit.join",
  ]);
  const h = index.files.find((f) => f.path === "include/textkit/buffer.h")!;
  const clamp = h.symbols.find((s) => s.name === "clamp_to")!;
  assert.equal(clamp.start, 46, "a template starts at its `template <...>` line");
  const each = h.symbols.find((s) => s.name === "each_line")!;
  assert.equal(each.start, 22);
});

test("c++: bases without access words; specializations; a class behind an export macro; pointer returns", async () => {
  const text = [
    "namespace a::b {",
    "template <class T>",
    "class Cache : public Base<T>, protected virtual Store {",
    " public:",
    "  T* find(int k);",
    "  const T& at(int k) const;",
    "};",
    "}",
    "template <class T> T* a::b::Cache<T>::find(int k) { return nullptr; }",
    "template <> struct Traits<int*> { static int rank(); };",
    "class LIB_EXPORT Registry {",
    " public:",
    "  void clear();",
    "  int size() const;",
    "};",
  ].join("\n");
  const { symbols } = await extractSymbols("cpp", text);
  const cache = symbols.find((s) => s.kind === "class")!;
  assert.equal(cache.qualName, "a.b.Cache");
  assert.deepEqual(cache.baseNames, ["Base", "Store"]);
  assert.deepEqual(
    symbols.filter((s) => s.kind === "method").map((s) => `${s.className}.${s.name}:${s.start}`),
    [
      "a.b.Cache.find:5",
      "a.b.Cache.at:6",
      "a.b.Cache.find:9",
      "Traits.rank:10",
      "Registry.clear:13",
      "Registry.size:14",
    ],
  );
  assert.deepEqual(
    symbols.filter((s) => s.kind === "class").map((s) => `${s.qualName}:${s.start}-${s.end}`),
    ["a.b.Cache:2-7", "Traits:10-10", "Registry:11-15"],
  );
});

test("c++ search: a method declared in the header and defined in the source is shown as both", async () => {
  const a = await apis();
  const line = await a.call("search_method_in_class", ["line", "Buffer"]);
  assert.deepEqual(
    line.results.map((r) => `${r.file}:${r.method}:${r.start}-${r.end}`),
    ["include/textkit/buffer.h:line:18-18", "src/buffer.cpp:line:31-34"],
  );
  assert.match(line.text, /18 \| {3}std::string line\(std::size_t n\) const;/);
  assert.match(line.text, /32 \| {3}if \(n >= lines_\.size\(\)\) throw/);
  const qualified = await a.call("search_method_in_class", ["append", "textkit::Buffer"]);
  assert.equal(qualified.results.length, 2);
  const cls = await a.call("search_class", ["Buffer"]);
  assert.deepEqual(
    cls.results.map((r) => `${r.file}:${r.class}:${r.start}-${r.end}`),
    ["include/textkit/buffer.h:textkit.Buffer:11-30"],
  );
  // The signature shows the definitions in the source file after the class's own lines.
  assert.match(cls.text, /<file>src\/buffer\.cpp<\/file>\n\s*7 \| Buffer::Buffer\(std::string text\) \{/);
  // A free function: its prototype in the header and its definition, both.
  const free = await a.call("search_method", ["words"]);
  assert.deepEqual(
    free.results.map((r) => `${r.file}:${r.class}:${r.method}:${r.start}-${r.end}`),
    ["include/textkit/buffer.h:null:words:43-43", "src/words.cpp:null:words:11-24"],
  );
});
