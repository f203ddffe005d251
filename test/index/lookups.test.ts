import assert from "node:assert/strict";
import { test } from "node:test";
import { CodeIndex } from "../../src/index/code-index.ts";
import { encodeSymbols, withLazySymbols } from "../../src/index/codec.ts";
import type { FileRecord, SymbolInfo } from "../../src/index/types.ts";

function sym(name: string, qualName: string, kind: SymbolInfo["kind"] = "function"): SymbolInfo {
  return {
    kind,
    name,
    qualName,
    className: null,
    start: 1,
    end: 2,
    headerEnd: 1,
    decorators: [],
    bases: [],
    baseNames: [],
    async: false,
    exported: false,
    attrs: [],
  };
}

/** `n` files whose symbols are rows read on first use, as a first build's parse workers leave them. */
function lazyFiles(n: number): { files: FileRecord[]; decoded: () => number } {
  let decoded = 0;
  const files: FileRecord[] = [];
  for (let i = 0; i < n; i++) {
    const rows = JSON.stringify(encodeSymbols([sym("run", `C${i}.run`, "method"), sym(`f${i}`, `f${i}`)]));
    const record = withLazySymbols(
      {
        path: `m${String(i).padStart(4, "0")}.py`,
        language: "python" as const,
        isTest: false,
        bytes: 1,
        hash: `${i}`,
        syntaxErrors: 0,
      },
      rows,
    );
    const get = Object.getOwnPropertyDescriptor(record, "symbols")!.get!;
    Object.defineProperty(record, "symbols", {
      get: () => {
        decoded++;
        return get.call(record);
      },
      enumerable: true,
    });
    files.push(record);
  }
  return { files, decoded: () => decoded };
}

const stats = {
  files: 0,
  bytes: 0,
  classes: 0,
  functions: 0,
  methods: 0,
  seconds: 0,
  cache: "miss" as const,
  cachedFiles: 0,
  parsedFiles: 0,
  workerFiles: 0,
};
const indexOf = (files: FileRecord[]) =>
  new CodeIndex({ root: "/r", realRoot: "/r", files, notes: [], stats });
const where = (hits: { file: FileRecord }[]) => hits.map((h) => h.file.path);

test("the name tables made ahead, a slice at a time, are those a lookup would make", async () => {
  const ahead = lazyFiles(3000);
  const index = indexOf(ahead.files);
  assert.equal(ahead.decoded(), 0, "nothing is read before it is asked for");
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  try {
    await index.prepareLookups(0);
  } finally {
    clearInterval(timer);
  }
  assert.ok(turns > 0, "the event loop had turns while the tables were made");
  const reads = ahead.decoded();
  assert.ok(reads >= 3000, "every file's symbols were read");

  const plain = indexOf(lazyFiles(3000).files);
  for (const name of ["run", "f0", "f2999", "missing"]) {
    assert.deepEqual(where(index.symbolsNamed(name)), where(plain.symbolsNamed(name)));
  }
  assert.deepEqual(where(index.symbolsQualified("C17.run")), ["m0017.py"]);
  assert.equal(index.symbolsNamed("run").length, 3000);
  assert.equal(ahead.decoded(), reads, "lookups afterwards read nothing again");
});

test("a lookup while the tables are being made gets them whole, and they are not made twice", async () => {
  const index = indexOf(lazyFiles(3000).files);
  const preparing = index.prepareLookups(0);
  await new Promise((resolve) => setImmediate(resolve));
  const first = index.symbolsNamed("run");
  assert.equal(first.length, 3000);
  await preparing;
  assert.equal(index.symbolsNamed("run"), first, "the tables the lookup made are kept");
});
