import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { buildIndex, startParseWorkers } from "../../src/index/index.ts";
import { closeParsePool, sharedParsePool } from "../../src/index/pool.ts";
import { tempDir } from "./helpers.ts";

after(() => closeParsePool());

/**
 * A repository of `n` Python files of about 10 KiB each: from 27 files on, enough for a build to start
 * the parse workers (index.ts: at least 24 files and 256 KiB).
 */
function repoOf(n: number, tag: string): string {
  const repo = tempDir();
  for (let i = 0; i < n; i++) {
    const path = join(repo, `pkg/${tag}${i}.py`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(
      path,
      `# ${"padding ".repeat(1250)}\nclass ${tag}${i}(Base):\n    def run(self):\n        return ${i}\n`,
    );
  }
  return repo;
}

const classNames = (index: Awaited<ReturnType<typeof buildIndex>>): string[] =>
  index.files.flatMap((f) => f.symbols.filter((s) => s.kind === "class").map((s) => s.name)).sort();

test("the parse workers stay up between builds and serve the next one", async () => {
  const first = await buildIndex(repoOf(30, "A"), { cacheDir: tempDir(), workers: 2 });
  assert.equal(first.stats.workerFiles, 30, "the workers read every file");
  const pool = sharedParsePool(2);
  const second = await buildIndex(repoOf(30, "B"), { cacheDir: tempDir(), workers: 2 });
  assert.equal(sharedParsePool(2), pool, "the same pool served the second build");
  assert.equal(second.stats.parsedFiles, 30);
  assert.equal(second.stats.workerFiles, 30);
  assert.equal(classNames(second).length, 30);
});

test("two builds at once share the workers and each gets its own files", async () => {
  const [a, b] = await Promise.all([
    buildIndex(repoOf(40, "Left"), { cacheDir: tempDir(), workers: 2 }),
    buildIndex(repoOf(40, "Right"), { cacheDir: tempDir(), workers: 2 }),
  ]);
  assert.ok(classNames(a).every((n) => n.startsWith("Left")) && classNames(a).length === 40);
  assert.ok(classNames(b).every((n) => n.startsWith("Right")) && classNames(b).length === 40);
  assert.deepEqual([a.stats.workerFiles, b.stats.workerFiles], [40, 40]);
});

test("a cache folder deleted and made again between builds is not served from a stale connection", async () => {
  const repo = repoOf(30, "C");
  const cacheDir = join(tempDir(), "cache");
  const first = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(first.stats.cache, "miss");
  rmSync(cacheDir, { recursive: true, force: true });
  const again = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(again.stats.cache, "miss", "everything is parsed again: the objects are gone");
  assert.equal(again.stats.parsedFiles, 30);
  assert.equal(again.stats.workerFiles, 30);
  // Only the manifest goes: the workers must find every object the last build stored.
  const roots = join(cacheDir, (await import("node:fs")).readdirSync(cacheDir)[0]!, "roots");
  rmSync(roots, { recursive: true, force: true });
  const byContent = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(byContent.stats.cache, "hit");
  assert.equal(byContent.stats.parsedFiles, 0);
  assert.equal(byContent.stats.workerFiles, 30, "the workers found them in the object store");
});

test("a closed pool is replaced by the next build", async () => {
  await buildIndex(repoOf(30, "D"), { cacheDir: null, workers: 2 });
  const before = sharedParsePool(2);
  await closeParsePool();
  assert.equal(before.alive, 0);
  const index = await buildIndex(repoOf(30, "E"), { cacheDir: null, workers: 2 });
  assert.equal(classNames(index).length, 30);
  assert.equal(index.stats.workerFiles, 30);
  assert.notEqual(sharedParsePool(2), before);
});

test("idle parse workers never keep a process alive", () => {
  const repo = repoOf(30, "F");
  const script = [
    `import { buildIndex } from ${JSON.stringify(new URL("../../src/index/index.ts", import.meta.url).href)};`,
    `const index = await buildIndex(${JSON.stringify(repo)}, { cacheDir: null, workers: 2 });`,
    "console.log(index.stats.parsedFiles, index.stats.workerFiles, index.notes.length);",
  ].join("\n");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(run.error, undefined, "the process ended by itself");
  assert.equal(run.status, 0, run.stderr);
  // Every file read by the workers: a process run with --input-type gets them too.
  assert.equal(run.stdout.trim(), "30 30 0");
});

test("a cache folder that cannot be made gives one note, not one per thread, and the index is whole", async () => {
  const file = join(tempDir(), "not-a-folder");
  writeFileSync(file, "x");
  const notes: string[] = [];
  const index = await buildIndex(repoOf(30, "G"), {
    cacheDir: file,
    workers: 2,
    onNote: (n) => notes.push(n),
  });
  assert.equal(classNames(index).length, 30);
  assert.equal(index.stats.workerFiles, 30);
  assert.equal(notes.filter((n) => /object store cannot be opened/.test(n)).length, 1, notes.join("\n"));
});

test("a pool started and never used does not keep a process alive", () => {
  const script = [
    `import { sharedParsePool } from ${JSON.stringify(new URL("../../src/index/pool.ts", import.meta.url).href)};`,
    "sharedParsePool(2);",
    "console.log('started');",
  ].join("\n");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.error, undefined, "the process ended by itself");
  assert.equal(run.stdout.trim(), "started");
});

test("symbols that crossed from the workers as bytes come back the same from the manifest", async () => {
  // Names, bases and decorators outside ASCII: the rows cross as UTF-8 and the manifest is written from
  // those very bytes.
  const repo = repoOf(30, "F");
  writeFileSync(
    join(repo, "pkg/unicode.py"),
    `# ${"é".repeat(4000)}\n@dec("😀 \\uD83D")\nclass Café(Bäse["ü"]):\n    π = 3\n    def naïve(self):\n        return "中文"\n`,
  );
  const cacheDir = tempDir();
  const cold = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(cold.stats.cache, "miss");
  assert.equal(cold.stats.workerFiles, 31, "the rows crossed from the workers");
  const warm = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(warm.stats.cache, "hit");
  assert.equal(warm.stats.parsedFiles, 0);
  const symbols = (index: typeof cold) => index.files.map((f) => [f.path, f.symbols]);
  assert.deepEqual(symbols(warm), symbols(cold));
  const cafe = cold.files.find((f) => f.path === "pkg/unicode.py")?.symbols.find((s) => s.name === "Café");
  assert.deepEqual(cafe?.bases, ['Bäse["ü"]']);
  assert.deepEqual(cafe?.decorators, ['dec("😀 \\uD83D")']);
});

test("workers started before there is anything to index are the ones the first build uses", async () => {
  await closeParsePool();
  startParseWorkers({ cacheDir: null, workers: 2 });
  const started = sharedParsePool(1);
  assert.equal(started.alive, 2);
  const index = await buildIndex(repoOf(30, "G"), { cacheDir: null, workers: 2 });
  assert.equal(index.stats.parsedFiles, 30);
  assert.equal(index.stats.workerFiles, 30);
  // No other pool was started for the build.
  assert.equal(sharedParsePool(2), started);
  // Workers asked to load the grammars of a tree first, or of a folder that is not there, serve as well.
  await closeParsePool();
  const repo = repoOf(30, "P");
  writeFileSync(join(repo, "pkg/tool.go"), "package pkg\n\nfunc Tool() {}\n");
  startParseWorkers({ cacheDir: null, workers: 2, root: repo });
  sharedParsePool(2).prepare(join(repo, "missing"));
  const prepared = await buildIndex(repo, { cacheDir: null, workers: 2 });
  assert.equal(prepared.stats.workerFiles, 31);
  assert.deepEqual(
    prepared.files.find((f) => f.path === "pkg/tool.go")?.symbols.map((s) => s.name),
    ["Tool"],
  );
  assert.equal(classNames(prepared).length, 30);
  // No workers: nothing starts.
  await closeParsePool();
  startParseWorkers({ cacheDir: null, workers: 0 });
  const fresh = sharedParsePool(1);
  assert.equal(fresh.alive, 1, "a pool of one: none was started before");
});

test("a build through the workers has what a build in one thread has: symbols, figures, copies", async () => {
  const repo = repoOf(30, "H");
  writeFileSync(
    join(repo, "pkg/mixed.py"),
    `# ${"x".repeat(9000)}\ndef top():\n    def inner():\n        pass\n\nclass K:\n    a = 1\n    async def m(self):\n        pass\n\ndef broken(:\n    pass\n`,
  );
  const oneThread = await buildIndex(repo, { cacheDir: null, workers: 0 });
  const symbols = (index: typeof oneThread) => index.files.map((f) => [f.path, f.symbols]);
  const counts = (index: typeof oneThread) => [
    index.stats.classes,
    index.stats.functions,
    index.stats.methods,
  ];
  // Parsed by the workers; then, from another checkout of the same content, served by the object store
  // through the workers.
  const cacheDir = tempDir();
  const parsed = await buildIndex(repo, { cacheDir, workers: 2 });
  assert.equal(oneThread.stats.workerFiles, 0);
  assert.equal(parsed.stats.parsedFiles, 31);
  assert.equal(parsed.stats.workerFiles, 31);
  const copy = tempDir();
  for (const f of parsed.files) {
    mkdirSync(dirname(join(copy, f.path)), { recursive: true });
    writeFileSync(join(copy, f.path), readFileSync(join(repo, f.path)));
  }
  const stored = await buildIndex(copy, { cacheDir, workers: 2 });
  assert.equal(stored.stats.parsedFiles, 0);
  assert.equal(stored.stats.workerFiles, 31);
  for (const index of [parsed, stored]) {
    assert.deepEqual(counts(index), counts(oneThread));
    assert.deepEqual(symbols(index), symbols(oneThread));
  }
  assert.deepEqual(
    counts(oneThread),
    [31, 3, 31],
    "classes: the H and K; functions: top, inner, broken; methods: the runs and m",
  );
  // A copy of a record, and its JSON, have the symbols too.
  const fresh = await buildIndex(repo, { cacheDir: null, workers: 2 });
  assert.equal(fresh.stats.workerFiles, 31);
  const mixed = fresh.files.find((f) => f.path === "pkg/mixed.py")!;
  const expected = oneThread.files.find((f) => f.path === "pkg/mixed.py")!.symbols;
  assert.deepEqual({ ...mixed }.symbols, expected);
  assert.deepEqual(JSON.parse(JSON.stringify(mixed)).symbols, JSON.parse(JSON.stringify(expected)));
});
