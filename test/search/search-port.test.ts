import assert from "node:assert/strict";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { createSearchPort } from "../../src/pipeline/search-port.ts";
import { fixturePath } from "../index/helpers.ts";

test("the search port runs APIs, resolves locations and formats them for the patch writer", async () => {
  const port = createSearchPort(await buildIndex(fixturePath("python"), { cacheDir: null, workers: 0 }));
  assert.equal(port.specs.length, 8);
  const r = await port.call("search_method_in_class", ["total", "Cart"]);
  assert.equal(r.ok, true);
  const locs = await port.resolve([
    { class: "Cart", method: "total", intended_behavior: "sum price times quantity" },
    { class: "Nope" },
  ]);
  assert.deepEqual(
    locs.map((l) => [l.file, l.class, l.method, l.intended_behavior]),
    [["shop/services/cart.py", "Cart", "total", "sum price times quantity"]],
  );
  assert.deepEqual(
    port.lastUnresolved.map((u) => u.reason),
    ["no class `Nope` found in the repository"],
  );
  assert.match(port.formatLocations(locs), /Intended behavior: sum price times quantity/);
});
