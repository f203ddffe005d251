import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { formatLocationsForModel } from "../../src/locate/format.ts";
import { resolveBugLocations } from "../../src/locate/locate.ts";
import { copyFixture, fixturePath } from "../index/helpers.ts";

const py = () => buildIndex(fixturePath("python"), { cacheDir: null, workers: 0 });

test("six levels, most precise first", async () => {
  const index = await py();
  const locs = await resolveBugLocations(index, [
    { class: "Product", method: "discounted_price", file: "shop/models/product.py" },
    { file: "digital.py", method: "shipping_cost" },
    { file: "product.py", class: "PriceTag" },
    { class: "Cart" },
    { method: "parse_quantity" },
    { file: "shop/models/base.py" },
  ]);
  assert.deepEqual(
    locs.map((l) => [l.level, l.file, l.class, l.method, l.start, l.end]),
    [
      ["method+class", "shop/models/product.py", "Product", "discounted_price", 22, 24],
      ["method+file", "shop/models/digital.py", "DigitalProduct", "shipping_cost", 14, 15],
      ["class+file", "shop/models/product.py", "PriceTag", null, 33, 39],
      ["class", "shop/services/cart.py", "Cart", null, 21, 44],
      ["method", "shop/services/cart.py", null, "parse_quantity", 9, 13],
      ["file", "shop/models/base.py", null, null, 1, 47],
    ],
  );
  assert.deepEqual(locs.unresolved, []);
});

test("Class.method in one field; the enclosing class and the nearest ancestor override come along", async () => {
  const index = await py();
  const [loc] = await resolveBugLocations(index, [
    { method: "Subscription.save", intended_behavior: "renewal must default to monthly" },
  ]);
  assert.ok(loc);
  assert.deepEqual(
    [loc.file, loc.class, loc.method, loc.start, loc.end],
    ["shop/models/digital.py", "Subscription", "save", 19, 21],
  );
  assert.equal(loc.intendedBehavior, "renewal must default to monthly");
  assert.deepEqual(
    loc.context.map((c) => [c.kind, c.file, c.class, c.method, c.start, c.end]),
    [
      // The file's imports, ahead of its first definition.
      ["file-head", "shop/models/digital.py", null, null, 1, 3],
      ["enclosing-class", "shop/models/digital.py", "Subscription", null, 18, 21],
      ["ancestor-override", "shop/models/product.py", "Product", "save", 26, 30],
    ],
    "DigitalProduct does not define save, so Product's is the nearest (breadth-first, across files)",
  );
  const text = formatLocationsForModel([loc]);
  assert.match(
    text,
    /Location 1: <file>shop\/models\/digital.py<\/file> <class>Subscription<\/class> <func>save<\/func> \(lines 19-21\)/,
  );
  assert.match(text, /19 \| {5}def save\(self, store\):/);
  assert.match(text, /Intended behavior: renewal must default to monthly/);
  assert.match(text, /nearest ancestor's definition of `save` \(in `Product`\)[\s\S]*26 \| {5}@audited/);
  // The enclosing class (18-21) is shown once even though the location (19-21) is inside it.
  assert.equal(text.match(/class Subscription\(DigitalProduct\):/g)?.length, 1);
});

test("a wrong file does not hide the class's method; an inherited method resolves to the ancestor", async () => {
  const index = await py();
  const [wrongFile] = await resolveBugLocations(index, [
    { file: "shop/models/base.py", class: "Cart", method: "add" },
  ]);
  assert.deepEqual(
    [wrongFile?.level, wrongFile?.file, wrongFile?.method],
    ["method+class", "shop/services/cart.py", "add"],
  );
  const [loc] = await resolveBugLocations(index, [{ class: "Subscription", method: "key" }]);
  assert.deepEqual([loc?.file, loc?.class, loc?.method], ["shop/models/base.py", "Model", "key"]);
});

test("dedup by (file, start, end); unresolved requests are reported with a reason", async () => {
  const index = await py();
  const locs = await resolveBugLocations(index, [
    { class: "Cart", method: "add" },
    { file: "cart.py", method: "Cart.add" },
    { class: "Basket", method: "add_item" },
    {},
    { method: "test_total" },
  ]);
  assert.equal(locs.length, 1);
  assert.deepEqual(
    locs.unresolved.map((u) => u.reason),
    [
      "no method `add_item` / class `Basket` found in the repository",
      "the location names no file, class or method",
      "no method `test_total` found in the repository",
    ],
  );
  assert.match(
    formatLocationsForModel(locs),
    /These locations could not be found:\n- \{"class":"Basket","method":"add_item"\}/,
  );
});

test("code is re-read from disk at resolution time", async () => {
  const repo = copyFixture("python");
  const index = await buildIndex(repo, { cacheDir: null, workers: 0 });
  const path = join(repo, "shop/services/cart.py");
  const { readFileSync } = await import("node:fs");
  writeFileSync(
    path,
    readFileSync(path, "utf8").replace("value = int(text.strip())", "value = int(text)  # edited"),
  );
  index.dropTexts();
  const [loc] = await resolveBugLocations(index, [{ method: "parse_quantity" }]);
  assert.match(loc?.code ?? "", /# edited/);
});

test("go and java: receivers, embedding and nested types", async () => {
  const go = await buildIndex(fixturePath("go"), { cacheDir: null, workers: 0 });
  const [g] = await resolveBugLocations(go, [{ class: "TTLCache", method: "Describe" }]);
  assert.deepEqual(
    g?.context.map((c) => [c.kind, c.file, c.class, c.method]),
    [
      ["file-head", "cache/ttl.go", null, null],
      ["enclosing-class", "cache/ttl.go", "TTLCache", null],
      ["ancestor-override", "cache/store.go", "Base", "Describe"],
    ],
  );
  const java = await buildIndex(fixturePath("java"), { cacheDir: null, workers: 0 });
  const [j] = await resolveBugLocations(java, [{ file: "CreditNote.java", method: "total" }]);
  assert.deepEqual(
    j?.context.map((c) => [c.kind, c.class, c.method, c.start]),
    [
      ["file-head", null, null, 1],
      ["enclosing-class", "CreditNote", null, 3],
      ["ancestor-override", "Invoice", "total", 18],
    ],
  );
});
