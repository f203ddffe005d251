import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, openSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { processBatch } from "../../src/index/process-file.ts";
import { SearchApis } from "../../src/search/search-api.ts";
import { copyFixture, tempDir } from "./helpers.ts";

function put(root: string, rel: string, content: string | Buffer): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, ".."), { recursive: true });
  writeFileSync(abs, content);
}

test("skips VCS data, dependencies, virtualenvs, build output, vendored trees, binaries, big files, escaping symlinks", async () => {
  const repo = copyFixture("python");
  const outside = tempDir();
  put(outside, "secret.py", "class Leaked:\n    pass\n");
  put(repo, ".git/hooks/pre.py", "def hook(): pass\n");
  put(repo, "node_modules/pkg/index.js", "export function dep() {}\n");
  put(repo, ".venv/pyvenv.cfg", "home = /usr/bin\n");
  put(repo, ".venv/lib/site.py", "def venv(): pass\n");
  put(repo, "env2/pyvenv.cfg", "home = /usr/bin\n");
  put(repo, "env2/lib/mod.py", "def venv2(): pass\n");
  put(repo, "dist/bundle.js", "function bundled() {}\n");
  put(repo, "build/lib/shop/cart.py", "class Cart:\n    pass\n");
  put(repo, "vendor/lib/x.go", "package x\nfunc Vendored() {}\n");
  put(repo, "shop/blob.py", Buffer.from([0x63, 0x6c, 0x61, 0x73, 0x73, 0x00, 0x01, 0x02]));
  put(repo, "shop/generated.py", `DATA = [${"1, ".repeat(400_000)}]\n`);
  // A 1 GiB sparse file: never read.
  const fd = openSync(join(repo, "shop/huge.py"), "w");
  closeSync(fd);
  execFileSync("truncate", ["-s", "1G", join(repo, "shop/huge.py")]);
  symlinkSync(join(outside, "secret.py"), join(repo, "shop/secret.py"));
  symlinkSync(outside, join(repo, "linked_dir"));
  symlinkSync(repo, join(repo, "shop/loop"));
  symlinkSync(join(repo, "nowhere.py"), join(repo, "shop/dangling.py"));
  symlinkSync("self.py", join(repo, "shop/self.py"));
  execFileSync("mkfifo", [join(repo, "shop/pipe.py")]);

  const notes: string[] = [];
  const index = await buildIndex(repo, { cacheDir: null, workers: 0, onNote: (n) => notes.push(n) });
  const paths = index.files.map((f) => f.path);
  for (const bad of [
    ".git/hooks/pre.py",
    "node_modules/pkg/index.js",
    ".venv/lib/site.py",
    "env2/lib/mod.py",
    "dist/bundle.js",
    "build/lib/shop/cart.py",
    "vendor/lib/x.go",
    "shop/blob.py",
    "shop/generated.py",
    "shop/huge.py",
    "shop/secret.py",
    "linked_dir/secret.py",
    "shop/pipe.py",
  ]) {
    assert.ok(!paths.includes(bad), `${bad} must be skipped`);
  }
  assert.ok(!paths.some((p) => p.startsWith("shop/loop/")), "a symlink loop is not followed");
  assert.ok(paths.includes("shop/services/cart.py"));
  const joined = notes.join("\n");
  assert.match(joined, /skipped shop\/blob.py: binary content/);
  assert.match(joined, /skipped shop\/generated.py: 1\.\d MiB is over the 1\.0 MiB limit/);
  assert.match(joined, /skipped shop\/huge.py: 1\.0 GiB is over the 1\.0 MiB limit/);
  assert.match(joined, /skipped shop\/secret.py: symlink leaves the repository/);
  assert.match(joined, /skipped linked_dir: symlink leaves the repository/);
  assert.match(joined, /skipped shop\/loop: symlink loop/);
  assert.match(joined, /skipped shop\/self.py: symlink loop/);
  assert.match(joined, /skipped shop\/dangling.py: broken symlink/);
  const r = await new SearchApis(index).call("search_class", ["Leaked"]);
  assert.equal(r.ok, false);
});

test("syntax errors and undecodable bytes are indexed as far as they parse", async () => {
  const repo = tempDir();
  put(
    repo,
    "broken.py",
    "class Good:\n    def ok(self):\n        return 1\n\ndef bad(:\n    pass\n\ndef after():\n    return 2\n",
  );
  put(
    repo,
    "latin1.py",
    Buffer.concat([
      Buffer.from("# caf"),
      Buffer.from([0xe9, 0xff]),
      Buffer.from("\ndef still_found():\n    return 'x'\n"),
    ]),
  );
  put(repo, "broken.ts", "export class K {\n  m( {\n}\nexport function later() { return 1; }\n");
  const notes: string[] = [];
  const index = await buildIndex(repo, { cacheDir: null, workers: 0, onNote: (n) => notes.push(n) });
  const names = (p: string) => index.file(p)?.symbols.map((s) => s.qualName) ?? [];
  assert.ok(names("broken.py").includes("Good.ok"));
  assert.ok(names("broken.py").includes("after"));
  assert.ok((index.file("broken.py")?.syntaxErrors ?? 0) > 0);
  assert.deepEqual(names("latin1.py"), ["still_found"]);
  assert.ok(index.file("broken.ts"), "a TS file that breaks the grammar is still indexed");
  assert.match(notes.join("\n"), /broken.py: \d+ syntax error\(s\); indexed as far as it parses/);
  const code = await new SearchApis(index).call("get_code_around_line", ["latin1.py", 2, 0]);
  assert.match(code.text, /2 \| def still_found\(\):/);
});

test("an unreadable file is skipped with a note", {
  skip: process.getuid?.() === 0 && "root reads every file",
}, async () => {
  const repo = copyFixture("python");
  chmodSync(join(repo, "shop/services/cart.py"), 0o000);
  const notes: string[] = [];
  const index = await buildIndex(repo, { cacheDir: null, workers: 0, onNote: (n) => notes.push(n) });
  assert.equal(index.file("shop/services/cart.py"), undefined);
  assert.match(notes.join("\n"), /skipped shop\/services\/cart.py: permission denied/);
});

test("a corrupt cache is rebuilt, not fatal", async () => {
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  await buildIndex(repo, { cacheDir, workers: 0 });
  const files = execFileSync("find", [cacheDir, "-name", "*.manifest", "-o", "-name", "objects.sqlite*"])
    .toString()
    .trim()
    .split("\n");
  assert.ok(
    files.some((f) => f.endsWith("objects.sqlite")),
    "the objects live in one SQLite file",
  );
  for (const f of files) writeFileSync(f, "{ not json, not a database either");
  const notes: string[] = [];
  const index = await buildIndex(repo, { cacheDir, workers: 0, onNote: (n) => notes.push(n) });
  assert.equal(index.stats.cache, "miss");
  assert.equal(index.stats.files, 10);
  assert.match(notes.join("\n"), /manifest for this repository was corrupt; rebuilding it/);
  assert.match(notes.join("\n"), /object store was corrupt; rebuilding it/);
  const again = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(again.stats.cache, "hit");
  // With the manifest gone, every file is looked up by content in the rebuilt object store.
  for (const f of files.filter((x) => x.endsWith(".manifest"))) rmSync(f);
  const byContent = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(byContent.stats.cache, "hit");
  assert.equal(byContent.stats.parsedFiles, 0);
});

test("a corrupt object in the store is a miss, parsed again and replaced", async () => {
  const { DatabaseSync } = await import("node:sqlite");
  const repo = copyFixture("python");
  const cacheDir = tempDir();
  await buildIndex(repo, { cacheDir, workers: 0 });
  const store = execFileSync("find", [cacheDir, "-name", "objects.sqlite"]).toString().trim();
  const db = new DatabaseSync(store);
  db.exec("UPDATE objects SET rows = '{\"s\": 5}'");
  db.close();
  for (const f of execFileSync("find", [cacheDir, "-name", "*.manifest"]).toString().trim().split("\n"))
    rmSync(f);
  const notes: string[] = [];
  const index = await buildIndex(repo, { cacheDir, workers: 0, onNote: (n) => notes.push(n) });
  assert.equal(index.stats.parsedFiles, 10);
  assert.match(notes.join("\n"), /a corrupt index cache entry \([0-9a-f]{12}\) was rebuilt/);
  const again = await buildIndex(repo, { cacheDir, workers: 0 });
  assert.equal(again.stats.cache, "hit");
});

test("parse workers give the same symbols as the main thread", async () => {
  const repo = tempDir();
  for (let i = 0; i < 40; i++) {
    const padding = `# ${"padding ".repeat(1000)}\n`;
    put(
      repo,
      `pkg/m${i}.py`,
      `${padding}class C${i}(Base):\n    async def run(self):\n        return ${i}\n`,
    );
  }
  const cacheDir = tempDir();
  const threaded = await buildIndex(repo, { cacheDir, workers: 2 });
  const single = await buildIndex(repo, { cacheDir: null, workers: 0 });
  assert.equal(threaded.stats.parsedFiles, 40);
  assert.equal(threaded.stats.workerFiles, 40, "40 files of 8 KiB are parsed by the workers");
  assert.equal(single.stats.workerFiles, 0);
  assert.deepEqual(
    threaded.files.map((f) => [f.path, f.symbols]),
    single.files.map((f) => [f.path, f.symbols]),
  );
});

test("a file that cannot be read (vanished, a directory) becomes a note, not a crash", async () => {
  const dir = tempDir();
  const [gone, isDir] = await processBatch(
    [
      { abs: join(dir, "gone.py"), rel: "gone.py", language: "python", prevHash: null },
      { abs: dir, rel: "pkg.py", language: "python", prevHash: null },
    ],
    null,
    1 << 20,
  );
  assert.deepEqual(gone, { ok: false, notes: ["skipped gone.py: vanished while indexing"] });
  assert.deepEqual(isDir, { ok: false, notes: ["skipped pkg.py: is a directory"] });
});

test("the cache keeps the newest manifests only; objects are shared by checkouts", async () => {
  const { MAX_MANIFESTS } = await import("../../src/index/cache.ts");
  const { readdirSync } = await import("node:fs");
  const cacheDir = tempDir();
  const roots: string[] = [];
  for (let i = 0; i < MAX_MANIFESTS + 2; i++) {
    const repo = tempDir();
    put(repo, "m.py", `def f${i % 3}():\n    pass\n`);
    roots.push(repo);
    await buildIndex(repo, { cacheDir, workers: 0 });
  }
  const [sub] = readdirSync(cacheDir);
  assert.ok(sub);
  assert.equal(readdirSync(join(cacheDir, sub, "roots")).length, MAX_MANIFESTS);
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(join(cacheDir, sub, "objects.sqlite"), { readOnly: true });
  const { n } = db.prepare("SELECT count(*) AS n FROM objects").get() as { n: number };
  db.close();
  assert.equal(n, 3, "three distinct contents");
});
