/**
 * The floor under any tree-sitter index of a set of files on this machine: a fresh process starts one
 * worker thread per core, each loads the grammars as the index does (src/languages/), then
 * reads and parses files handed out largest first, and does nothing else: no hashing, no extraction, no
 * cache, no results sent back. Wall and CPU seconds (all threads) from the first worker's start to the
 * last parse, as one JSON line.
 *
 *   node bench/support/parse-floor.ts <file list, one "language<TAB>path" per line> [workers]
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { type LanguageId, parseSource } from "../../src/languages/index.ts";

type Job = [LanguageId, string];
const BATCH = 8;

if (isMainThread) {
  const [listPath, workersArg] = process.argv.slice(2);
  if (!listPath) {
    console.error("usage: node bench/support/parse-floor.ts <file list> [workers]");
    process.exit(2);
  }
  const jobs = readFileSync(listPath, "utf8")
    .split("\n")
    .filter((l) => l.includes("\t"))
    .map((l) => l.split("\t") as Job);
  const sized = jobs
    .map((j) => ({ j, size: readFileSync(j[1]).byteLength }))
    .sort((a, b) => b.size - a.size)
    .map((x) => x.j);
  const n = Math.max(1, Number(workersArg ?? availableParallelism()));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, () => {
      const w = new Worker(new URL(import.meta.url));
      return new Promise<void>((resolve, reject) => {
        w.on("error", reject);
        w.on("message", () => {
          if (next >= sized.length) {
            void w.terminate().then(() => resolve());
            return;
          }
          w.postMessage(sized.slice(next, next + BATCH));
          next += BATCH;
        });
      });
    }),
  );
  const used = process.cpuUsage(cpu0);
  console.log(
    JSON.stringify({
      files: sized.length,
      workers: n,
      s: (performance.now() - t0) / 1000,
      cpu: (used.user + used.system) / 1e6,
    }),
  );
} else {
  const port = parentPort!;
  port.on("message", async (batch: Job[]) => {
    for (const [lang, path] of batch) {
      try {
        (await parseSource(lang, readFileSync(path, "utf8"))).delete();
      } catch {
        // A file the index would skip (unreadable, not text) costs the floor nothing either.
      }
    }
    port.postMessage("more");
  });
  port.postMessage("ready");
}
