/** Worker-thread entry: reads, hashes and parses batches of files (see pool.ts). */
import { parentPort, workerData } from "node:worker_threads";
import { IndexCache } from "./cache.ts";
import type { ParseReply, ParseRequest, WorkerInit } from "./pool.ts";
import { processFile } from "./process-file.ts";

const port = parentPort;
if (!port) throw new Error("parse-worker.ts must run in a worker thread");
const init = workerData as WorkerInit;
let cacheNotes: string[] = [];
const cache = init.cacheDir === null ? null : new IndexCache(init.cacheDir, (n) => cacheNotes.push(n));

let chain: Promise<void> = Promise.resolve();
port.on("message", (msg: ParseRequest) => {
  chain = chain.then(async () => {
    const results: ParseReply["results"] = [];
    for (const job of msg.jobs) {
      const r = await processFile(job, cache, init.maxBytes);
      if (cacheNotes.length > 0) {
        r.notes.push(...cacheNotes);
        cacheNotes = [];
      }
      results.push(r);
    }
    // This batch's new objects go to the store in one transaction before the reply.
    cache?.flush();
    if (cacheNotes.length > 0 && results.length > 0) {
      results[results.length - 1]!.notes.push(...cacheNotes);
      cacheNotes = [];
    }
    port.postMessage({ id: msg.id, results } satisfies ParseReply);
  });
});
