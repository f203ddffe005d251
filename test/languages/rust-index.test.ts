import assert from "node:assert/strict";
import { test } from "node:test";
import { extractSymbols } from "../../src/index/extract.ts";
import { buildIndex } from "../../src/index/index.ts";
import { SearchApis } from "../../src/search/search-api.ts";
import { fixturePath } from "../index/helpers.ts";

/** The fixture is a real crate (`cargo test --offline` passes on it): lib.rs, order.rs, shapes/mod.rs, tests/. */
async function apis(): Promise<SearchApis> {
  return new SearchApis(await buildIndex(fixturePath("rust"), { cacheDir: null, workers: 0 }), {
    includeTests: false,
  });
}

test("rust: structs, enums and traits are classes; impl blocks give them methods; mod names nest", async () => {
  const index = await buildIndex(fixturePath("rust"), { cacheDir: null, workers: 0 });
  const of = (path: string) =>
    index.files
      .find((f) => f.path === path)!
      .symbols.map((s) => `${s.kind} ${s.qualName}${s.classKind ? ` (${s.classKind})` : ""}`);
  assert.deepEqual(of("src/order.rs"), [
    "class Line (struct)",
    "function parse.lines",
    "function parse.line",
  ]);
  assert.deepEqual(of("src/shapes/mod.rs"), [
    "class Volume (trait)",
    "method Volume.litres",
    "class BoxSize (struct)",
    "class Tube (struct)",
    "method BoxSize.litres",
    "method Tube.litres",
    "method BoxSize.cube",
  ]);
  const lib = of("src/lib.rs");
  for (const want of [
    "class Item (struct)",
    "class StockError (enum)",
    "method StockError.fmt",
    "class Priced (trait)",
    "method Priced.dollars",
    "method Item.cents",
    "method Inventory.take",
    "function sku",
    "function label",
    "function tests.take_reduces_stock",
  ]) {
    assert.ok(lib.includes(want), `${want} in ${lib.join(", ")}`);
  }
  assert.equal(index.files.find((f) => f.path === "tests/stock.rs")?.isTest, true);
});

test("rust: attributes, visibility, async and lifetimes in what a symbol records", async () => {
  const text = [
    "mod net {",
    "    pub struct Conn<'a> { host: &'a str }",
    "    impl<'a> super::Dial for Conn<'a> {",
    "        #[inline]",
    "        async fn dial(&self) -> u8 { 0 }",
    "    }",
    "}",
    "#[derive(Debug)]",
    "#[non_exhaustive]",
    "pub(crate) enum Mode { A, B }",
  ].join("\n");
  const { symbols, syntaxErrors } = await extractSymbols("rust", text);
  assert.equal(syntaxErrors, 0);
  const dial = symbols.find((s) => s.name === "dial")!;
  assert.equal(dial.kind, "method");
  assert.equal(dial.className, "net.Conn", "a method of the impl's type, inside the module");
  assert.equal(dial.async, true);
  assert.deepEqual(dial.decorators, ["inline"]);
  assert.equal(dial.start, 4, "its attribute starts it");
  const mode = symbols.find((s) => s.name === "Mode")!;
  assert.deepEqual(mode.decorators, ["derive(Debug)", "non_exhaustive"]);
  assert.equal(mode.start, 8);
  assert.equal(mode.exported, true);
  assert.equal(symbols.find((s) => s.name === "Conn")!.exported, true);
  assert.equal(dial.exported, false);
});

test("rust search: a struct's signature shows its impl methods; methods by class; macros by name", async () => {
  const a = await apis();
  const cls = await a.call("search_class", ["Inventory"]);
  assert.deepEqual(cls.results, [
    { file: "src/lib.rs", class: "Inventory", method: null, start: 51, end: 55 },
  ]);
  assert.match(cls.text, /52 \| pub struct Inventory \{/);
  assert.match(
    cls.text,
    /68 \| {5}pub fn take\(&mut self, sku: &str, count: u32\) -> Result<u32, StockError> \{/,
  );
  assert.doesNotMatch(cls.text, /ok_or_else/, "a signature, not the bodies");
  const take = await a.call("search_method_in_class", ["take", "Inventory"]);
  assert.deepEqual(
    take.results.map((r) => `${r.file}:${r.class}.${r.method}:${r.start}-${r.end}`),
    ["src/lib.rs:Inventory.take:68-78"],
  );
  const litres = await a.call("search_method_in_class", ["litres", "Tube"]);
  assert.deepEqual(
    litres.results.map((r) => `${r.class}.${r.method}:${r.start}`),
    ["Tube.litres:25"],
  );
  const mac = await a.call("search_method", ["sku"]);
  assert.deepEqual(mac.results, [{ file: "src/lib.rs", class: null, method: "sku", start: 88, end: 93 }]);
  assert.match(mac.text, /89 \| macro_rules! sku \{/);
  const path = await a.call("search_class", ["order::Line"]);
  assert.deepEqual(
    path.results.map((r) => `${r.file}:${r.class}`),
    ["src/order.rs:Line"],
  );
  const code = await a.call("search_code", ["split_once"]);
  assert.equal(code.ok, true);
  assert.match(code.text, /src\/order\.rs/);
});
