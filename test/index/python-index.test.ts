import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import type { CodeIndex, SymbolInfo } from "../../src/index/index.ts";
import { copyFixture, fixturePath, tempDir } from "./helpers.ts";

function sym(index: CodeIndex, path: string, qualName: string): SymbolInfo {
  const f = index.file(path);
  assert.ok(f, `file ${path} indexed`);
  const s = f.symbols.find((x) => x.qualName === qualName);
  assert.ok(s, `${qualName} in ${path}; have ${f.symbols.map((x) => x.qualName).join(", ")}`);
  return s;
}

test("python: classes, nested classes, methods, async functions, decorators, bases", async () => {
  const index = await buildIndex(fixturePath("python"), { cacheDir: null, workers: 0 });
  const product = sym(index, "shop/models/product.py", "Product");
  assert.equal(product.kind, "class");
  assert.deepEqual(product.bases, ["base.Model"]);
  assert.deepEqual(product.baseNames, ["Model"]);
  assert.deepEqual([product.start, product.end], [9, 30]);

  const meta = sym(index, "shop/models/product.py", "Product.Meta");
  assert.equal(meta.kind, "class");
  assert.equal(meta.className, "Product");
  const describe = sym(index, "shop/models/product.py", "Product.Meta.describe");
  assert.equal(describe.kind, "method");
  assert.equal(describe.className, "Product.Meta");

  const price = sym(index, "shop/models/product.py", "Product.price");
  assert.deepEqual(price.decorators, ["property"]);
  assert.equal(price.start, 18, "range starts at the decorator");
  const discounted = sym(index, "shop/models/product.py", "Product.discounted_price");
  assert.equal(discounted.headerEnd, 22, "a comment first in the body is not part of the header");

  const tag = sym(index, "shop/models/product.py", "PriceTag");
  assert.deepEqual(tag.decorators, ["dataclass(frozen=True)"]);

  const fetch = sym(index, "shop/services/cart.py", "fetch_rates");
  assert.equal(fetch.kind, "function");
  assert.equal(fetch.async, true);
  const checkout = sym(index, "shop/services/cart.py", "Cart.checkout");
  assert.equal(checkout.kind, "method");
  assert.equal(checkout.async, true);
  assert.equal(sym(index, "shop/services/cart.py", "Cart.add").async, false);

  // Each definition once.
  const saves = index.files.flatMap((f) =>
    f.symbols.filter((s) => s.name === "save").map((s) => `${f.path}:${s.start}`),
  );
  assert.equal(new Set(saves).size, saves.length);

  assert.equal(index.file("tests/test_cart.py")?.isTest, true);
  assert.equal(index.file("tests/conftest.py")?.isTest, true);
  assert.equal(index.file("shop/services/cart.py")?.isTest, false);
  assert.equal(index.file("setup.cfg"), undefined);
  assert.deepEqual(
    index.files.map((f) => f.path),
    [...index.files.map((f) => f.path)].sort(),
  );
  assert.equal(index.stats.files, index.files.length);
  assert.equal(
    index.stats.classes,
    index.files.flatMap((f) => f.symbols).filter((s) => s.kind === "class").length,
  );
});

test("cache: an unchanged rerun parses nothing; an edit re-parses only that file", async () => {
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  const cold = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(cold.stats.cache, "miss");
  assert.equal(cold.stats.cachedFiles, 0);

  const warm = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(warm.stats.cache, "hit");
  assert.equal(warm.stats.parsedFiles, 0);
  assert.deepEqual(
    warm.files.map((f) => [f.path, f.hash, f.symbols.length]),
    cold.files.map((f) => [f.path, f.hash, f.symbols.length]),
  );

  writeFileSync(join(repo, "shop/services/cart.py"), "def only_this():\n    return 1\n");
  const edited = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(edited.stats.cache, "partial");
  assert.equal(edited.stats.parsedFiles, 1);
  assert.deepEqual(
    edited.file("shop/services/cart.py")?.symbols.map((s) => s.name),
    ["only_this"],
  );

  // A fresh checkout of the same content (another root) is served from the content-addressed store.
  const clone = copyFixture("python");
  const other = await buildIndex(clone, { cacheDir, workers: 0 });
  assert.equal(other.stats.cache, "hit");
});
