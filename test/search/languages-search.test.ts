import assert from "node:assert/strict";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { SearchApis } from "../../src/search/search-api.ts";
import { fixturePath } from "../index/helpers.ts";

async function apis(lang: string, includeTests = false): Promise<SearchApis> {
  return new SearchApis(await buildIndex(fixturePath(lang), { cacheDir: null, workers: 0 }), {
    includeTests,
  });
}

test("java: search_class signature lists fields, constructors, method and nested type headers", async () => {
  const a = await apis("java");
  const r = await a.call("search_class", ["Invoice"]);
  assert.equal(r.ok, true);
  assert.deepEqual(r.results, [
    {
      file: "src/main/java/com/acme/billing/model/Invoice.java",
      class: "Invoice",
      method: null,
      start: 6,
      end: 54,
    },
  ]);
  for (const line of [
    / 6 \| public class Invoice extends Document \{/,
    / 7 \| {5}private final List<Line> lines = new ArrayList<>\(\);/,
    /10 \| {5}public Invoice\(String number\) \{/,
    /18 \| {5}@Override\n19 \| {5}public long total\(\) \{/,
    /29 \| {5}public record Line\(String item, long cents, int quantity\) \{/,
    /43 \| {5}static class Builder \{/,
  ]) {
    assert.match(r.text, line);
  }
  assert.doesNotMatch(r.text, /sum \+= line.cents\(\)/);
  const inherited = await a.call("search_method_in_class", ["describe", "CreditNote"]);
  assert.deepEqual(
    inherited.results.map((m) => `${m.file}:${m.class}.${m.method}`),
    ["src/main/java/com/acme/billing/model/Document.java:Document.describe"],
  );
  const generic = await a.call("search_method_in_class", ["exists()", "Repository<T, ID>"]);
  assert.deepEqual(
    generic.results.map((m) => `${m.class}.${m.method}`),
    ["Repository.exists"],
  );
  const nested = await a.call("search_method_in_class", ["build", "Invoice.Builder"]);
  assert.deepEqual(
    nested.results.map((m) => `${m.class}.${m.method}:${m.start}`),
    ["Invoice.Builder.build:50"],
  );
});

test("go: methods by receiver, across files of the package, and through embedding", async () => {
  const a = await apis("go");
  const cls = await a.call("search_class", ["TTLCache"]);
  assert.match(cls.text, /13 \| func \(c \*TTLCache\) Get\(key string\) \(string, bool\) \{/);
  assert.doesNotMatch(cls.text, /expired entries are still returned/);
  const m = await a.call("search_method_in_class", ["Get", "TTLCache"]);
  assert.deepEqual(m.results, [
    { file: "cache/ttl.go", class: "TTLCache", method: "Get", start: 13, end: 23 },
  ]);
  const hits = await a.call("search_method_in_class", ["Hits", "TTLCache"]);
  assert.deepEqual(
    hits.results.map((x) => `${x.file}:${x.class}.${x.method}`),
    ["cache/store.go:Base.Hits"],
  );
  const base = await a.call("search_class", ["Base"]);
  assert.match(base.text, /22 \| func \(b \*Base\) Hits\(\) int \{/);
  const code = await a.call("search_code_in_file", ["c.hits++", "ttl.go"]);
  assert.deepEqual(code.results, [
    { file: "cache/ttl.go", class: "TTLCache", method: "Get", start: 21, end: 21 },
  ]);
});

test("typescript: inherited methods across files; tsx components; include-tests", async () => {
  const a = await apis("typescript");
  const sub = await a.call("search_method_in_class", ["subscribe", "BoundedCounterStore"]);
  assert.deepEqual(
    sub.results.map((x) => `${x.file}:${x.class}.${x.method}`),
    ["src/core/store.ts:Store.subscribe"],
  );
  const comp = await a.call("search_method", ["Counter"]);
  assert.deepEqual(
    comp.results.map((x) => [x.file, x.class, x.method]),
    [["src/components/Counter.tsx", null, "Counter"]],
  );
  const dispatch = await a.call("search_method", ["dispatch"]);
  assert.equal(dispatch.results.length, 2);
  const miss = await a.call("search_code", ["new CounterStore(0)"]);
  assert.equal(miss.ok, false, "the only hit is in a test file");
  const withTests = await (await apis("typescript", true)).call("search_code", ["new CounterStore(0)"]);
  assert.deepEqual(
    withTests.results.map((x) => x.file),
    ["src/__tests__/counter.spec.ts"],
  );
});

test("javascript: search_method_in_file, literal template-string search, inherited across files", async () => {
  const a = await apis("javascript");
  const r = await a.call("search_method_in_file", ["reserve", "./src/models/item.js"]);
  assert.deepEqual(r.results, [
    { file: "src/models/item.js", class: "Item", method: "reserve", start: 22, end: 26 },
  ]);
  assert.match(r.text, /22 \| {3}async reserve\(amount\) \{/);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the search is for a literal JS template string
  const t = await a.call("search_code", ['`${n} item${n === 1 ? "" : "s"}`']);
  assert.deepEqual(
    t.results.map((x) => [x.file, x.method, x.start]),
    [["src/services/warehouse.js", "formatCount", 3]],
  );
  const v = await a.call("search_method_in_class", ["validate", "PerishableItem"]);
  assert.deepEqual(
    v.results.map((x) => `${x.file}:${x.class}`),
    ["src/models/entity.js:Entity"],
  );
  const multi = await a.call("search_code", ["this.name = name;\n    this.quantity = quantity;"]);
  assert.deepEqual(
    multi.results.map((x) => [x.start, x.end]),
    [[9, 10]],
  );
  const loose = await a.call("search_code", ["this.name = name;\nthis.quantity = quantity;"]);
  assert.deepEqual(
    loose.results.map((x) => [x.start, x.end]),
    [[9, 10]],
  );
  assert.match(loose.text, /indentation ignored/);
});

test("very long lines (minified code) are cut in what the model sees", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "auto-fix-long-"));
  try {
    writeFileSync(join(dir, "bundle.js"), `function packed(){${"a=1;".repeat(5000)}}\n`);
    const a = new SearchApis(await buildIndex(dir, { cacheDir: null, workers: 0 }));
    const r = await a.call("search_method", ["packed"]);
    assert.equal(r.ok, true);
    assert.match(r.text, /\.\.\. \[19619 more characters on this line\]/);
    assert.ok(r.text.length < 2000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
