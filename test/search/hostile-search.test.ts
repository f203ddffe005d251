import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { MAX_CODE_CHARS } from "../../src/search/code-search.ts";
import { plainName, SearchApis } from "../../src/search/search-api.ts";

// search_code fragments and names come from the model: crafted ones are refused past the cap, and the
// matching that remains is linear (KMP over lines, one sweep for enclosing definitions) yet exact.

const dir = mkdtempSync(join(tmpdir(), "hostile-search-"));
let apis: SearchApis;
before(async () => {
  writeFileSync(
    join(dir, "rep.py"),
    `class K:\n    def m(self):\n        x = 0\n        a = 1\n        a = 1\n        a = 1\n        c = 3\n        z = 9\n\n${Array.from(
      { length: 300 },
      (_v, i) => `def f${i}():\n    return ${i}\n`,
    ).join("")}`,
  );
  apis = new SearchApis(await buildIndex(dir, { cacheDir: null, workers: 0 }), { includeTests: true });
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("a fragment past the cap is refused with a message the model can act on", async () => {
  const r = await apis.call("search_code", ["a".repeat(MAX_CODE_CHARS + 1)]);
  assert.equal(r.ok, false);
  assert.match(r.text, /search_code takes at most 102400/);
  assert.match(r.text, /short, distinctive fragment/);
});

test("loose multi-line matching finds a fragment whose repeated lines overlap a longer run", async () => {
  // Indentation differs from the file, so the exact search misses and the line-wise one runs.
  // The middle lines [a, a, c] start inside a run of three `a` lines: a scan that restarts after a
  // partial match without falling back (KMP) would miss it.
  const r = await apis.call("search_code", ["a = 1\na = 1\na = 1\nc = 3\nz = 9"]);
  assert.equal(r.ok, true, r.text);
  assert.deepEqual(
    r.results.map((m) => [m.start, m.end, m.class, m.method]),
    [[4, 8, "K", "m"]],
  );
  assert.match(r.text, /indentation ignored/);
});

test("hundreds of hits get their enclosing definitions right", async () => {
  const r = await apis.call("search_code", ["return"]);
  assert.equal(r.results.length, 300);
  assert.deepEqual(
    r.results.slice(0, 2).map((m) => [m.start, m.class, m.method]),
    [
      [11, null, "f0"],
      [13, null, "f1"],
    ],
  );
  assert.deepEqual(r.results.at(-1), { file: "rep.py", class: null, method: "f299", start: 609, end: 609 });
});

test("names with crafted bracket runs are cut at the first opener, in one pass", () => {
  assert.equal(plainName("save()"), "save");
  assert.equal(plainName("Repository<T>"), "Repository");
  assert.equal(plainName(`f${"(".repeat(100_000)})`), "f");
  assert.equal(plainName(`f${" ".repeat(100_000)}(x`), `f${" ".repeat(100_000)}(x`);
  assert.equal(plainName("List[int]  "), "List");
});

test("search_method over many same-named definitions names each one's class (one sweep per file)", async () => {
  writeFileSync(
    join(dir, "many.py"),
    `${Array.from({ length: 200 }, () => "def g():\n    pass\n").join("")}class C:\n    def g(self):\n        pass\n    class D:\n        pass\n`,
  );
  const local = new SearchApis(await buildIndex(dir, { cacheDir: null, workers: 0 }), { includeTests: true });
  const r = await local.call("search_method", ["g"]);
  assert.equal(r.results.length, 201);
  assert.deepEqual(r.results[0], { file: "many.py", class: null, method: "g", start: 1, end: 2 });
  assert.deepEqual(r.results.at(-1), { file: "many.py", class: "C", method: "g", start: 402, end: 403 });
  rmSync(join(dir, "many.py"));
});
