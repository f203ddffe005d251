/**
 * The index cache's size cap: versions of a repository indexed one after the other (each in a fresh
 * checkout, as jobs clone them) keep the cache under AUTO_FIX_INDEX_CACHE_MB, the most recently used
 * version still hits and the least recently used one is gone; two processes indexing and evicting at
 * once get exactly the indexes a build without any cache gets.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { indexCacheBytes, indexCacheCapBytes } from "../../src/index/eviction.ts";
import { buildIndex } from "../../src/index/index.ts";
import { tempDir } from "./helpers.ts";
import { indexShape } from "./support/index-shape.ts";

const MB = 1024 * 1024;
const FILES = 160;

/** A checkout of version `v`: every file's content (and so every object) differs between versions. */
function checkout(v: number): string {
  const root = join(tempDir("cap-repo-"), "repo");
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 8}`);
    mkdirSync(dir, { recursive: true });
    const body = Array.from(
      { length: 25 },
      (_, k) => `def v${v}_f${i}_${k}(a, b):\n    """Version ${v}."""\n    return a + b * ${k}\n`,
    ).join("\n");
    writeFileSync(
      join(dir, `m${i}.py`),
      `class C${v}_${i}:\n    def method(self):\n        return ${v}\n\n${body}`,
    );
  }
  return root;
}

const savedCap = process.env.AUTO_FIX_INDEX_CACHE_MB;
after(() => {
  if (savedCap === undefined) delete process.env.AUTO_FIX_INDEX_CACHE_MB;
  else process.env.AUTO_FIX_INDEX_CACHE_MB = savedCap;
});

test("the cap comes from the operator's environment; a bad value is named and the default applies", () => {
  assert.equal(indexCacheCapBytes({}), 2048 * MB);
  assert.equal(indexCacheCapBytes({ AUTO_FIX_INDEX_CACHE_MB: "1.5" }), 1.5 * MB);
  const notes: string[] = [];
  assert.equal(
    indexCacheCapBytes({ AUTO_FIX_INDEX_CACHE_MB: "big" }, (n) => notes.push(n)),
    2048 * MB,
  );
  assert.match(notes[0] ?? "", /AUTO_FIX_INDEX_CACHE_MB must be a positive number of megabytes, not "big"/);
});

test("three versions under a small cap: the cache stays under it and the latest version still hits", async () => {
  const cacheDir = tempDir("cap-cache-");
  // How much one version takes, measured with no cap to speak of.
  const probeDir = tempDir("cap-probe-");
  await buildIndex(checkout(1), { cacheDir: probeDir, workers: 0 });
  const one = indexCacheBytes(probeDir);
  assert.ok(one > 200 * 1024, `one version takes ${one} bytes`);
  // Room for one version and a half: three versions would take three times one.
  const cap = Math.round(one * 1.6);
  process.env.AUTO_FIX_INDEX_CACHE_MB = String(cap / MB);

  const reference: string[] = [];
  for (const v of [1, 2, 3]) {
    const index = await buildIndex(checkout(v), { cacheDir, workers: 0 });
    assert.equal(index.stats.parsedFiles, FILES, `version ${v} is new to the cache`);
    reference.push(indexShape(index));
    const size = indexCacheBytes(cacheDir);
    assert.ok(size <= cap, `after version ${v}: ${size} bytes, cap ${cap}`);
  }
  // The latest version, in a fresh checkout (another job): every file from the object store.
  const again = await buildIndex(checkout(3), { cacheDir, workers: 0 });
  assert.equal(again.stats.cachedFiles, FILES);
  assert.equal(again.stats.parsedFiles, 0);
  assert.equal(indexShape(again), reference[2]);
  // The least recently used one was evicted: parsed again, with the same result.
  const first = await buildIndex(checkout(1), { cacheDir, workers: 0 });
  assert.equal(first.stats.parsedFiles, FILES);
  assert.equal(indexShape(first), reference[0]);
  assert.ok(indexCacheBytes(cacheDir) <= cap);
});

test("reading a version makes it the most recently used: it outlives a version written after it", async () => {
  const cacheDir = tempDir("cap-cache-");
  const probeDir = tempDir("cap-probe-");
  await buildIndex(checkout(1), { cacheDir: probeDir, workers: 0 });
  const cap = Math.round(indexCacheBytes(probeDir) * 2.6);
  process.env.AUTO_FIX_INDEX_CACHE_MB = String(cap / MB);
  const [a, b] = [checkout(4), checkout(5)];
  await buildIndex(a, { cacheDir, workers: 0 });
  await buildIndex(b, { cacheDir, workers: 0 });
  // `a` is used again (its manifest read: nothing changed), after `b` was written.
  await new Promise((r) => setTimeout(r, 20));
  const warm = await buildIndex(a, { cacheDir, workers: 0 });
  assert.equal(warm.stats.cache, "hit");
  // A third version passes the cap: `b`, now the least recently used, goes; `a` stays.
  await buildIndex(checkout(6), { cacheDir, workers: 0 });
  assert.ok(indexCacheBytes(cacheDir) <= cap);
  assert.equal((await buildIndex(checkout(4), { cacheDir, workers: 0 })).stats.parsedFiles, 0);
  assert.equal((await buildIndex(checkout(5), { cacheDir, workers: 0 })).stats.parsedFiles, FILES);
});

function runChild(cacheDir: string, out: string, trees: string[], capMb: number): Promise<void> {
  const script = new URL("./support/index-child.ts", import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, cacheDir, out, ...trees], {
      env: { ...process.env, AUTO_FIX_INDEX_CACHE_MB: String(capMb), WORKERS: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`index child exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

test("two processes indexing and evicting at once get the indexes a build without a cache gets", async () => {
  const cacheDir = tempDir("cap-cache-");
  const versions = [7, 8, 9, 10].map((v) => ({ v, trees: [checkout(v), checkout(v)] }));
  const expected = new Map<number, string>();
  for (const { v, trees } of versions) {
    expected.set(v, indexShape(await buildIndex(trees[0]!, { cacheDir: null, workers: 0 })));
  }
  const probeDir = tempDir("cap-probe-");
  await buildIndex(checkout(1), { cacheDir: probeDir, workers: 0 });
  // Room for about two versions: nearly every build in either process evicts.
  const capMb = (indexCacheBytes(probeDir) * 2) / MB;
  const out = tempDir("cap-out-");
  // Both processes go through the versions, each in its own checkouts, in opposite orders, twice.
  const order = (list: typeof versions) => [...list, ...list].map(({ trees }, i) => trees[i % 2]!);
  await Promise.all([
    runChild(cacheDir, join(out, "a.json"), order(versions), capMb),
    runChild(cacheDir, join(out, "b.json"), order([...versions].reverse()), capMb),
  ]);
  const byTree = new Map(versions.flatMap(({ v, trees }) => trees.map((t) => [t, v] as const)));
  for (const name of ["a.json", "b.json"]) {
    const results = JSON.parse(readFileSync(join(out, name), "utf8")) as { tree: string; shape: string }[];
    assert.equal(results.length, 8);
    for (const r of results) {
      assert.equal(
        r.shape,
        expected.get(byTree.get(r.tree)!),
        `${name}: ${r.tree} indexed as without a cache`,
      );
    }
  }
  assert.ok(indexCacheBytes(cacheDir) <= capMb * MB * 1.05, "the cache ends near its cap");
});
