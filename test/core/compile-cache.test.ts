import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Worker } from "node:worker_threads";
import { COMPILE_CACHE_FOLDER, workerCompileCacheDir, workerEnv } from "../../src/core/compile-cache.ts";

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "af-compile-cache-"));
  made.push(d);
  return d;
}

const BIN = new URL("../../bin/auto-fix.js", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/repos/python", import.meta.url).pathname;

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

test("the command line keeps compiled code in auto-fix's own cache folder, never in a shared one", () => {
  const cache = tempDir();
  const env: NodeJS.ProcessEnv = { ...process.env, AUTO_FIX_CACHE_DIR: cache };
  delete env.NODE_COMPILE_CACHE;
  const run = spawnSync(process.execPath, [BIN, "index", FIXTURE, "--json"], { env, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(
    filesUnder(join(cache, COMPILE_CACHE_FOLDER)).length > 10,
    "the sources' compiled code is kept there",
  );
  // The second run reads it back and gives the same answer.
  const again = spawnSync(process.execPath, [BIN, "index", FIXTURE, "--json"], { env, encoding: "utf8" });
  assert.equal(again.status, 0, again.stderr);
  const counts = (s: string) => {
    const { seconds: _s, cache: _c, ...rest } = JSON.parse(s) as Record<string, unknown>;
    return rest;
  };
  assert.deepEqual(counts(again.stdout), counts(run.stdout));
});

test("a parse worker is given the compile cache folder; without one it keeps the process's environment", async () => {
  const cache = tempDir();
  const dir = workerCompileCacheDir(cache);
  assert.equal(dir, join(cache, COMPILE_CACHE_FOLDER), "this test process has no compile cache of its own");
  assert.equal(workerCompileCacheDir(null), null);
  assert.equal(workerEnv(null), process.env);
  const worker = new Worker(
    "require('node:worker_threads').parentPort.postMessage(require('node:module').getCompileCacheDir() ?? null)",
    { eval: true, env: workerEnv(dir) },
  );
  const seen = await new Promise<unknown>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  assert.equal(typeof seen, "string");
  assert.ok((seen as string).startsWith(`${dir}/`), `the worker's cache is under ${dir}: ${String(seen)}`);
});
