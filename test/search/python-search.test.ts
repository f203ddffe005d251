import assert from "node:assert/strict";
import { before, test } from "node:test";
import { buildIndex, type CodeIndex } from "../../src/index/index.ts";
import { API_SPECS, SearchApis } from "../../src/search/search-api.ts";
import { fixturePath } from "../index/helpers.ts";

let index: CodeIndex;
let apis: SearchApis;
before(async () => {
  index = await buildIndex(fixturePath("python"), { cacheDir: null, workers: 0 });
  apis = new SearchApis(index);
});

test("API_SPECS lists the eight APIs with their parameters", () => {
  assert.deepEqual(
    API_SPECS.map((s) => `${s.name}/${s.params.length}`),
    [
      "search_class/1",
      "search_class_in_file/2",
      "search_method/1",
      "search_method_in_class/2",
      "search_method_in_file/2",
      "search_code/1",
      "search_code_in_file/2",
      "get_code_around_line/3",
    ],
  );
});

test("unknown API and wrong argument count are refused with the reason", async () => {
  const a = await apis.call("search_everything", ["x"]);
  assert.equal(a.ok, false);
  assert.match(a.text, /Unknown search API `search_everything`.*search_class\(class_name\)/);
  const b = await apis.call("search_method_in_class", ["save"]);
  assert.equal(b.ok, false);
  assert.match(b.text, /takes 2 arguments \(method_name, class_name\), but 1 was given/);
});

test("search_class shows a signature, not the body", async () => {
  const r = await apis.call("search_class", ["Product"]);
  assert.equal(r.ok, true);
  assert.deepEqual(r.results, [
    { file: "shop/models/product.py", class: "Product", method: null, start: 9, end: 30 },
  ]);
  assert.match(r.text, /<file>shop\/models\/product.py<\/file> <class>Product<\/class>/);
  assert.match(r.text, / 9 \| class Product\(base.Model\):/);
  assert.match(r.text, /10 \| {5}table = "products"/);
  assert.match(r.text, /22 \| {5}def discounted_price\(self, percent\):/);
  assert.match(r.text, /26 \| {5}@audited\n27 \| {5}def save\(self, store\):/);
  assert.doesNotMatch(r.text, /round\(self.price/, "method bodies are left out");
  assert.doesNotMatch(r.text, /price must not be negative/);
});

test("search_class finds nested classes by qualified name and dotted names by last segment", async () => {
  const r = await apis.call("search_class", ["Product.Meta"]);
  assert.deepEqual(
    r.results.map((m) => m.class),
    ["Product.Meta"],
  );
  const m = await apis.call("search_class", ["models.Model"]);
  assert.deepEqual(
    m.results.map((x) => [x.file, x.class]),
    [["shop/models/base.py", "Model"]],
  );
  assert.match(m.text, /searched for `Model`/);
});

test("search_method lists each definition once, async ones too, with file/class/method", async () => {
  const r = await apis.call("search_method", ["save"]);
  assert.deepEqual(
    r.results.map((m) => `${m.file}:${m.class}.${m.method}:${m.start}-${m.end}`),
    [
      "shop/models/base.py:Model.save:36-40",
      "shop/models/digital.py:Subscription.save:19-21",
      "shop/models/product.py:Product.save:26-30",
    ],
    "tests/helpers.py FakeStore.save is a test file and is left out",
  );
  const a = await apis.call("search_method", ["fetch_rates"]);
  assert.deepEqual(a.results, [
    { file: "shop/services/cart.py", class: null, method: "fetch_rates", start: 16, end: 18 },
  ]);
  assert.match(a.text, /16 \| async def fetch_rates\(currency\):/);

  const withTests = await new SearchApis(index, { includeTests: true }).call("search_method", ["save"]);
  assert.equal(withTests.results.length, 4);
  assert.match(withTests.text, /The first 3 are shown in full/);
  assert.match(
    withTests.text,
    /The other match, by file:\n- <file>tests\/helpers.py<\/file> \(1 more match\)/,
  );
});

test("search_method_in_class finds inherited methods across files", async () => {
  const r = await apis.call("search_method_in_class", ["validate", "Subscription"]);
  assert.equal(r.ok, true);
  assert.deepEqual(r.results, [
    { file: "shop/models/digital.py", class: "DigitalProduct", method: "validate", start: 9, end: 12 },
  ]);
  const k = await apis.call("search_method_in_class", ["key", "Subscription"]);
  assert.deepEqual(
    k.results.map((m) => `${m.file}:${m.class}`),
    ["shop/models/base.py:Model"],
  );
  assert.match(k.text, /inherits it from `Model`/);
});

test("search_method_in_file resolves basenames and reports ambiguity", async () => {
  const r = await apis.call("search_method_in_file", ["add", "cart.py"]);
  assert.deepEqual(
    r.results.map((m) => [m.file, m.class, m.method]),
    [["shop/services/cart.py", "Cart", "add"]],
  );
  const abs = await apis.call("search_method_in_file", ["add", `${index.root}/shop/services/cart.py`]);
  assert.deepEqual(
    abs.results.map((m) => m.file),
    ["shop/services/cart.py"],
  );
  const amb = await apis.call("search_method_in_file", ["x", "__init__.py"]);
  assert.equal(amb.ok, false);
  assert.match(
    amb.text,
    /matches 3 files: shop\/__init__.py, shop\/models\/__init__.py, shop\/services\/__init__.py/,
  );
});

test("search_code is literal: regex metacharacters match themselves", async () => {
  const r = await apis.call("search_code", ['r"^[A-Z]{3}-\\d+(\\.\\d+)?$"']);
  assert.equal(r.ok, true);
  assert.deepEqual(r.results, [
    { file: "shop/services/cart.py", class: null, method: null, start: 6, end: 6 },
  ]);
  const none = await apis.call("search_code", ["[A-Z]+"]);
  assert.equal(none.ok, false);
  assert.match(none.text, /Could not find the code `\[A-Z\]\+`.*literal/);
  const inMethod = await apis.call("search_code", ["self.validate()"]);
  assert.deepEqual(
    inMethod.results.map((m) => [m.file, m.class, m.method, m.start]),
    [["shop/models/base.py", "Model", "save", 38]],
  );
});

test("get_code_around_line is exact and checks its range", async () => {
  const r = await apis.call("get_code_around_line", ["shop/services/cart.py", 32, 2]);
  assert.deepEqual(r.results, [
    { file: "shop/services/cart.py", class: "Cart", method: "add", start: 30, end: 34 },
  ]);
  assert.match(r.text, /30 \| {5}def add\(self, product, quantity=1\):\n31 \|.*\n32 \|.*\n33 \|.*\n34 \|/);
  assert.doesNotMatch(r.text, /29 \||35 \|/);
  const bad = await apis.call("get_code_around_line", ["./shop/services/cart.py", "500", "3"]);
  assert.equal(bad.ok, false);
  assert.match(bad.text, /has 44 lines; line 500 is out of range/);
  const neg = await apis.call("get_code_around_line", ["cart.py", "x", "3"]);
  assert.match(neg.text, /line_number must be a whole number/);
});

test("nothing found tells the model what to try", async () => {
  const r = await apis.call("search_class", ["Basket"]);
  assert.equal(r.ok, false);
  assert.match(r.text, /Could not find a class named `Basket`.*search_code\("Basket"\)/);
  const t = await apis.call("search_class", ["TestCart"]);
  assert.match(t.text, /only in test files \(tests\/test_cart.py\)/);
  const m = await apis.call("search_method", ["checkot"]);
  assert.equal(m.ok, false);
});

test("search_class_in_file shows the whole class; a wrong file says where the class is", async () => {
  const r = await apis.call("search_class_in_file", ["Meta", "product.py"]);
  assert.equal(r.ok, true);
  assert.deepEqual(r.results, [
    { file: "shop/models/product.py", class: "Product.Meta", method: null, start: 12, end: 16 },
  ]);
  assert.match(
    r.text,
    /12 \| {5}class Meta:\n13 \| {9}ordering = \["name"\]\n14 \| \n15 \| {9}def describe\(self\):\n16 \| {13}return "ordered by name"/,
  );
  const wrong = await apis.call("search_class_in_file", ["Cart", "shop/models/base.py"]);
  assert.equal(wrong.ok, false);
  assert.match(
    wrong.text,
    /Could not find a class named `Cart` in shop\/models\/base.py. It is defined in: shop\/services\/cart.py./,
  );
  const noFile = await apis.call("search_class_in_file", ["Cart", "basket.py"]);
  assert.match(noFile.text, /No file basket.py in the repository/);
});

test("search_code_in_file: literal hits with context, in the named file only", async () => {
  const r = await apis.call("search_code_in_file", ["return", "cart.py"]);
  assert.equal(r.ok, true);
  assert.deepEqual(
    r.results.map((m) => [m.class, m.method, m.start]),
    [
      [null, "parse_quantity", 13],
      [null, "fetch_rates", 18],
      ["Cart", "total", 36],
      ["Cart", "checkout", 40],
      ["Cart", "is_valid_sku", 44],
    ],
  );
  // Every hit is shown, each with the definition around it, its line marked, no line twice.
  assert.match(
    r.text,
    /Found 5 hits of `return` in shop\/services\/cart.py. Shown by the definition around them/,
  );
  assert.equal(r.text.match(/<code>/g)?.length, 5);
  assert.match(
    r.text,
    /<func>parse_quantity<\/func> \(lines 9-13; 1 hit on line 13\)\n<code>\n {2}9 \| def parse_quantity/,
  );
  assert.match(r.text, /\n>13 \| {5}return value\n/);
  const numberedLines = r.text
    .split("\n")
    .filter((l) => /^[ >]\s*\d+ \| /.test(l))
    .map((l) => /\d+/.exec(l)![0]);
  assert.equal(new Set(numberedLines).size, numberedLines.length, "no line shown twice");
  assert.doesNotMatch(r.text, /The other/);
  const none = await apis.call("search_code_in_file", ["self.total()", "base.py"]);
  assert.equal(none.ok, false);
  assert.match(none.text, /Could not find the code `self.total\(\)` in shop\/models\/base.py/);
});
