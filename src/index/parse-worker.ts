/** Worker-thread entry: reads, hashes and parses batches of files (see pool.ts). */
import { flushCompileCache } from "node:module";
import { parentPort } from "node:worker_threads";
import { IndexCache } from "./cache.ts";
import type { ParseReply, ParseRequest } from "./pool.ts";
import { processBatch } from "./process-file.ts";

const port = parentPort;
if (!port) throw new Error("parse-worker.ts must run in a worker thread");

let cacheNotes: string[] = [];
/**
 * The object-store connection of the build being served. Workers only read the store; the thread that
 * builds the index writes and repairs it. A new build (session) closes the previous connection, so a
 * cache folder deleted and made again between builds is always opened afresh.
 */
let current: { session: number; cacheDir: string | null; cache: IndexCache | null } | null = null;

function cacheFor(msg: ParseRequest): IndexCache | null {
  if (current?.session !== msg.session || current.cacheDir !== msg.cacheDir) {
    current?.cache?.close();
    const cache =
      msg.cacheDir === null
        ? null
        : new IndexCache(msg.cacheDir, (n) => cacheNotes.push(n), { repair: false });
    current = { session: msg.session, cacheDir: msg.cacheDir, cache };
  }
  return current.cache;
}

const encoder = new TextEncoder();
let chain: Promise<void> = Promise.resolve();
/**
 * Whether the compile cache (core/compile-cache.ts) has been written: after the first batch every
 * module this worker needs is loaded, and a worker may be stopped without a chance to write it later.
 */
let flushed = false;
port.on("message", (msg: ParseRequest) => {
  chain = chain.then(async () => {
    const results = await processBatch(msg.jobs, cacheFor(msg), msg.maxBytes);
    if (cacheNotes.length > 0 && results.length > 0) {
      results[0]!.notes.push(...cacheNotes);
      cacheNotes = [];
    }
    // Symbols cross as their encoded rows, far cheaper to clone than objects, and as UTF-8 bytes that
    // are handed over, not copied: the manifest is written from them (pool.ts decodes the text).
    const transfer: ArrayBuffer[] = [];
    for (const r of results) {
      if (!r.ok || r.rows === null) continue;
      const bytes = encoder.encode(r.rows);
      r.symbols = null;
      r.rows = null;
      r.rowBytes = bytes;
      transfer.push(bytes.buffer as ArrayBuffer);
    }
    port.postMessage({ id: msg.id, results } satisfies ParseReply, transfer);
    if (!flushed && msg.jobs.length > 0) {
      flushed = true;
      flushCompileCache();
    }
  });
});
