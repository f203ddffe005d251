import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { copyFixture, tempDir } from "./helpers.ts";

const manifestOf = (cacheDir: string): string =>
  execFileSync("find", [cacheDir, "-name", "*.manifest"]).toString().trim();

const symbols = (index: Awaited<ReturnType<typeof buildIndex>>) =>
  index.files.map((f) => [f.path, f.symbols]);
const counts = (index: Awaited<ReturnType<typeof buildIndex>>) => {
  const { classes, functions, methods } = index.stats;
  return { classes, functions, methods };
};

test("a warm build gives the cold build's symbols and figures, and a changed file is written back with the rest", async () => {
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  const cold = await buildIndex(repo, { cacheDir, workers: 0 });
  const warm = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(warm.stats.cache, "hit");
  assert.deepEqual(counts(warm), counts(cold));
  assert.deepEqual(symbols(warm), symbols(cold));
  assert.ok(counts(cold).classes > 0 && counts(cold).methods > 0);

  // One file changes: the manifest is written again, the unchanged files' rows as they were read.
  const cart = join(repo, "shop/services/cart.py");
  writeFileSync(cart, `${readFileSync(cart, "utf8")}\n\nclass Added:\n    def more(self):\n        pass\n`);
  const partial = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(partial.stats.cache, "partial");
  assert.equal(partial.stats.classes, cold.stats.classes + 1);
  const again = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(again.stats.cache, "hit");
  assert.deepEqual(symbols(again), symbols(partial));
  assert.deepEqual(counts(again), counts(partial));
  assert.deepEqual(
    again
      .file("shop/services/cart.py")
      ?.symbols.filter((s) => s.qualName.startsWith("Added"))
      .map((s) => s.qualName),
    ["Added", "Added.more"],
  );
});

/** `bytes` with the digit at `at` replaced by another. */
function otherDigitAt(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  assert.match(String.fromCharCode(copy[at]!), /\d/);
  copy[at] = copy[at] === 0x31 ? 0x32 : 0x31;
  return copy;
}

test("a torn or damaged manifest is rebuilt with a note, never read as symbols", async () => {
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  const cold = await buildIndex(repo, { cacheDir, workers: 0 });
  const path = manifestOf(cacheDir);
  const good = readFileSync(path);
  // The magic line, the checksum line, the header line, then the rows.
  const header = good.indexOf(10, good.indexOf(10, good.indexOf(10) + 1) + 1);
  const headerStart = good.indexOf(10, good.indexOf(10) + 1) + 1;
  assert.equal(good[headerStart], "{".charCodeAt(0));
  const damaged: [string, Buffer][] = [
    ["torn in the rows", good.subarray(0, good.length - 7)],
    ["torn in the header", good.subarray(0, header - 3)],
    [
      "a byte of the rows changed",
      Buffer.concat([good.subarray(0, header + 40), Buffer.from("Z"), good.subarray(header + 41)]),
    ],
    ["rows added", Buffer.concat([good, Buffer.from('[[0,"X","X",null,1,1,1,0,0,0,0,0]]')])],
    ["a digit of the header changed", otherDigitAt(good, good.indexOf('"b":', headerStart) + 4)],
    ["another layout", Buffer.from(JSON.stringify({ root: repo, writtenAt: Date.now(), files: [] }))],
    ["empty", Buffer.alloc(0)],
  ];
  for (const [what, bytes] of damaged) {
    writeFileSync(path, bytes);
    const notes: string[] = [];
    const index = await buildIndex(repo, { cacheDir, workers: 0, onNote: (n) => notes.push(n) });
    assert.match(notes.join("\n"), /manifest for this repository was corrupt; rebuilding it/, what);
    assert.deepEqual(symbols(index), symbols(cold), what);
    assert.deepEqual(counts(index), counts(cold), what);
    // Rebuilt: the next build reads it.
    const next = await buildIndex(repo, { cacheDir, workers: 0 });
    assert.equal(next.stats.cache, "hit", what);
  }
});

test("manifests of the earlier layout are removed", async () => {
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  await buildIndex(repo, { cacheDir, workers: 0 });
  const roots = join(cacheDir, readdirSync(cacheDir)[0]!, "roots");
  mkdirSync(roots, { recursive: true });
  writeFileSync(join(roots, "0123456789abcdef0123456789abcdef.json"), "{}");
  await buildIndex(copyFixture("python"), { cacheDir, workers: 0 });
  assert.deepEqual(
    readdirSync(roots).filter((n) => n.endsWith(".json")),
    [],
  );
  assert.equal(readdirSync(roots).filter((n) => n.endsWith(".manifest")).length, 2);
});
