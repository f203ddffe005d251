import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
  assert.match(missing.err, /\/nonexistent\/repo is not a directory/);
  const file = join(tempDir(), "plain.txt");
  writeFileSync(file, "x");
  const notDir = await cli(["index", file], env);
  assert.equal(notDir.code, 2);
  assert.match(notDir.err, /plain.txt is not a directory/);
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

test("auto-fix locate --json resolves a location with its context; unresolved ones say why", async () => {
  const repo = copyFixture("python");
  const env = { AUTO_FIX_CACHE_DIR: tempDir() };
  const ok = await cli(["locate", repo, "--method", "Product.discounted_price", "--json"], env);
  assert.equal(ok.code, 0, ok.err);
  const r = JSON.parse(ok.out) as {
    ok: boolean;
    locations: {
      file: string;
      class: string;
      method: string;
      start: number;
      end: number;
      code: string;
      context: { kind: string }[];
    }[];
    unresolved: unknown[];
  };
  assert.equal(r.ok, true);
  assert.deepEqual(
    r.locations.map((l) => [l.file, l.class, l.method, l.start, l.end]),
    [["shop/models/product.py", "Product", "discounted_price", 22, 24]],
  );
  assert.match(r.locations[0]!.code, /return round\(self.price \* \(1 \+ percent \/ 100\), 2\)/);
  assert.deepEqual(
    r.locations[0]!.context.map((c) => c.kind),
    ["file-head", "enclosing-class"],
  );
  const text = await cli(["locate", repo, "--file", "cart.py", "--intended", "reject zero"], env);
  assert.match(text.out, /Location 1: <file>shop\/services\/cart.py<\/file> \(lines 1-44\)/);
  assert.match(text.out, /Intended behavior: reject zero/);
  const bad = await cli(["locate", repo, "--class", "Nope", "--json"], env);
  assert.equal(bad.code, 1);
  assert.deepEqual(JSON.parse(bad.out), {
    ok: false,
    locations: [],
    unresolved: [{ request: { class: "Nope" }, reason: "no class `Nope` found in the repository" }],
  });
  const none = await cli(["locate", repo, "--json"], env);
  assert.equal(none.code, 2);
  assert.match(none.err, /give at least one of --file, --class, --method/);
});

test("search reads files the index does not parse by exact path", async () => {
  const repo = copyFixture("python");
  const env = { AUTO_FIX_CACHE_DIR: tempDir() };
  const r = await cli(["search", repo, "search_code_in_file", "version = 0.1.0", "setup.cfg", "--json"], env);
  assert.deepEqual((JSON.parse(r.out) as { results: unknown[] }).results, [
    { file: "setup.cfg", class: null, method: null, start: 3, end: 3 },
  ]);
  const outside = await cli(["search", repo, "get_code_around_line", "../../etc/passwd", "1", "1"], env);
  assert.equal(outside.code, 1);
  assert.match(outside.out, /leaves the repository/);
});
