import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { copyFixture, tempDir } from "../index/helpers.ts";

async function cli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), env });
  return { code, out, err };
}

test("auto-fix index --json prints the fixed fields and reports cache hits", async () => {
  const repo = copyFixture("python");
  const env = { AUTO_FIX_CACHE_DIR: tempDir() };
  const first = await cli(["index", repo, "--json"], env);
  assert.equal(first.code, 0, first.err);
  const a = JSON.parse(first.out) as Record<string, unknown>;
  assert.deepEqual(Object.keys(a), ["files", "bytes", "classes", "functions", "methods", "seconds", "cache"]);
  assert.equal(a.files, 10);
  assert.equal(a.cache, "miss");
  const second = JSON.parse((await cli(["index", repo, "--json"], env)).out) as Record<string, unknown>;
  assert.equal(second.cache, "hit");
  assert.equal(second.classes, a.classes);
});

test("auto-fix search prints the model's text, or JSON with every match", async () => {
  const repo = copyFixture("python");
  const env = { AUTO_FIX_CACHE_DIR: tempDir() };
  const text = await cli(["search", repo, "search_method_in_class", "checkout", "Cart"], env);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /<file>shop\/services\/cart.py<\/file> <class>Cart<\/class> <func>checkout<\/func>/);
  assert.match(text.out, /async def checkout/);
  const json = await cli(["search", repo, "search_method", "save", "--json", "--include-tests"], env);
  const r = JSON.parse(json.out) as { ok: boolean; text: string; results: unknown[] };
  assert.equal(r.ok, true);
  assert.equal(r.results.length, 4, "every match, not cut to the display limit of 3");
  assert.deepEqual(Object.keys(r), ["ok", "text", "results"]);
  const miss = await cli(["search", repo, "search_class", "Nope", "--json"], env);
  assert.equal(miss.code, 1);
  assert.equal((JSON.parse(miss.out) as { ok: boolean }).ok, false);
});

test("bad input: missing directory, unknown API, empty repository", async () => {
  const env = { AUTO_FIX_CACHE_DIR: tempDir() };
  const missing = await cli(["index", "/nonexistent/repo", "--json"], env);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no such directory: \/nonexistent\/repo/);
  const api = await cli(["search", tempDir(), "find_bug", "x"], env);
  assert.equal(api.code, 2);
  assert.match(api.err, /unknown search API 'find_bug'/);
  const empty = tempDir();
  const idx = await cli(["index", empty, "--json"], env);
  assert.equal(idx.code, 0);
  assert.equal((JSON.parse(idx.out) as { files: number }).files, 0);
  assert.match(idx.err, /no source files of the supported languages/);
  const s = await cli(["search", empty, "search_class", "A"], env);
  assert.equal(s.code, 1);
  assert.match(s.out, /has no indexed source files/);
});
