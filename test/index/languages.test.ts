import assert from "node:assert/strict";
import { test } from "node:test";
import { buildIndex, type CodeIndex, type SymbolInfo } from "../../src/index/index.ts";
import { fixturePath } from "./helpers.ts";

async function load(lang: string): Promise<CodeIndex> {
  return buildIndex(fixturePath(lang), { cacheDir: null, workers: 0 });
}

function sym(index: CodeIndex, path: string, qualName: string): SymbolInfo {
  const s = index.file(path)?.symbols.find((x) => x.qualName === qualName);
  assert.ok(
    s,
    `${qualName} in ${path}: ${index
      .file(path)
      ?.symbols.map((x) => x.qualName)
      .join(", ")}`,
  );
  return s;
}

test("javascript: classes, fields bound to arrows, async, generators, prototype methods, exports", async () => {
  const index = await load("javascript");
  const item = sym(index, "src/models/item.js", "Item");
  assert.deepEqual(
    [item.kind, item.exported, item.baseNames, item.start, item.end],
    ["class", true, ["Entity"], 3, 27],
  );
  assert.equal(sym(index, "src/models/item.js", "Item.reserve").async, true);
  assert.equal(sym(index, "src/models/item.js", "Item.restock").kind, "method");
  assert.equal(sym(index, "src/models/item.js", "Item.label").kind, "method");
  const fmt = sym(index, "src/services/warehouse.js", "formatCount");
  assert.deepEqual([fmt.kind, fmt.exported], ["function", true]);
  assert.equal(sym(index, "src/services/warehouse.js", "loadStock").async, true);
  assert.equal(sym(index, "src/services/warehouse.js", "batches").kind, "function");
  assert.equal(sym(index, "src/services/warehouse.js", "legacyTotal").kind, "function");
  const proto = sym(index, "src/services/warehouse.js", "Warehouse.describe");
  assert.deepEqual([proto.kind, proto.className], ["method", "Warehouse"]);
  assert.equal(index.file("__tests__/item.test.js")?.isTest, true);
  assert.equal(index.file("test/warehouse.spec.js")?.isTest, true);
});

test("typescript and tsx: decorators, abstract classes, interfaces, enums, nested class expressions", async () => {
  const index = await load("typescript");
  const store = sym(index, "src/core/store.ts", "Store");
  assert.deepEqual(store.baseNames, ["Disposable"]);
  const dispatch = sym(index, "src/core/store.ts", "Store.dispatch");
  assert.deepEqual([dispatch.decorators, dispatch.start, dispatch.headerEnd], [["logged"], 31, 32]);
  assert.equal(sym(index, "src/core/store.ts", "Store.reduce").kind, "method");
  assert.equal(sym(index, "src/core/store.ts", "Disposable").classKind, "interface");
  assert.equal(sym(index, "src/core/store.ts", "Status").classKind, "enum");
  const history = sym(index, "src/core/counter.ts", "CounterStore.History");
  assert.deepEqual(
    [history.kind, history.className, history.start, history.end],
    ["class", "CounterStore", 18, 24],
  );
  assert.equal(
    sym(index, "src/core/counter.ts", "CounterStore.History.record").className,
    "CounterStore.History",
  );
  assert.equal(sym(index, "src/core/counter.ts", "fetchCount").async, true);
  assert.deepEqual(sym(index, "src/core/counter.ts", "BoundedCounterStore").baseNames, ["CounterStore"]);
  assert.equal(index.file("src/components/Counter.tsx")?.language, "tsx");
  assert.equal(sym(index, "src/components/Counter.tsx", "Counter").kind, "function");
  assert.equal(sym(index, "src/components/Counter.tsx", "CounterBadge").kind, "function");
  assert.deepEqual(sym(index, "src/components/Counter.tsx", "CounterPanel").bases, ["React.Component"]);
  assert.deepEqual(sym(index, "src/components/Counter.tsx", "CounterPanel").baseNames, ["Component"]);
  assert.equal(index.file("src/__tests__/counter.spec.ts")?.isTest, true);
});

test("java: classes, interfaces, enums, records, constructors, annotations, nested types", async () => {
  const index = await load("java");
  const p = "src/main/java/com/acme/billing/model/Invoice.java";
  assert.deepEqual(sym(index, p, "Invoice").baseNames, ["Document"]);
  assert.equal(sym(index, p, "Invoice.Invoice").kind, "method", "constructor");
  assert.deepEqual(sym(index, p, "Invoice.total").decorators, ["Override"]);
  assert.equal(sym(index, p, "Invoice.Line").classKind, "record");
  assert.equal(sym(index, p, "Invoice.State").classKind, "enum");
  assert.equal(sym(index, p, "Invoice.State.isFinal").className, "Invoice.State");
  assert.equal(sym(index, p, "Invoice.Builder.build").className, "Invoice.Builder");
  const doc = sym(index, "src/main/java/com/acme/billing/model/Document.java", "Document");
  assert.deepEqual([doc.bases, doc.baseNames], [["Comparable<Document>"], ["Comparable"]]);
  const svc = sym(index, "src/main/java/com/acme/billing/service/InvoiceService.java", "InvoiceService");
  assert.deepEqual(svc.decorators, ['Deprecated(since = "2.0")']);
  assert.equal(svc.start, 6, "annotation lines belong to the class");
  assert.equal(
    sym(index, "src/main/java/com/acme/billing/service/Repository.java", "Repository").classKind,
    "interface",
  );
  assert.equal(index.file("src/test/java/com/acme/billing/InvoiceTest.java")?.isTest, true);
});

test("go: types, functions, methods by receiver type, embedded types as bases", async () => {
  const index = await load("go");
  assert.equal(sym(index, "cache/store.go", "Store").classKind, "interface");
  assert.equal(sym(index, "cache/store.go", "Base").classKind, "struct");
  const ttl = sym(index, "cache/ttl.go", "TTLCache");
  assert.deepEqual(ttl.baseNames, ["Base"]);
  const get = sym(index, "cache/ttl.go", "TTLCache.Get");
  assert.deepEqual([get.kind, get.className, get.start, get.end], ["method", "TTLCache", 13, 23]);
  assert.equal(sym(index, "cache/ttl.go", "TTLCache.Describe").className, "TTLCache", "value receiver");
  assert.equal(sym(index, "cache/store.go", "New").kind, "function");
  assert.equal(sym(index, "server/server.go", "Handler.Value").className, "Handler", "generic receiver");
  assert.equal(sym(index, "server/server.go", "Option").classKind, "type");
  assert.equal(sym(index, "internal/clock/clock.go", "Real.Now").className, "Real", "unnamed receiver");
  assert.equal(index.file("cache/ttl_test.go")?.isTest, true);
});
