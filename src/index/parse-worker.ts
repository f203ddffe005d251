/** Worker-thread entry: reads, hashes and parses batches of files (see pool.ts). */
import { flushCompileCache } from "node:module";
import { parentPort } from "node:worker_threads";
import { IndexCache } from "./cache.ts";
import { extractSymbols } from "./extract.ts";
import type { ParseReply, ParseRequest, PrepareRequest } from "./pool.ts";
import { processBatch } from "./process-file.ts";
import { sniffLanguages } from "./walk.ts";

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
/**
 * Loads the grammars and queries of the languages found in the first folders of `root`, and runs each
 * once, so that the first batch of a build does not wait for them (about 0.1 s for Python). Sent by
 * `startParseWorkers` while the run copies its tree; failures are left for the build to meet.
 */
async function prepare(root: string): Promise<void> {
  for (const lang of sniffLanguages(root).slice(0, MAX_PREPARED)) {
    try {
      await extractSymbols(lang, "");
    } catch {
      // The build parses with this language again and reports what goes wrong.
    }
  }
}

/** Languages loaded ahead at most (each costs tens of milliseconds and some memory). */
const MAX_PREPARED = 3;

port.on("message", (msg: ParseRequest | PrepareRequest) => {
  if ("prepare" in msg) {
    // Never a rejected chain: the batches queued behind it would not run.
    chain = chain.then(() => prepare(msg.prepare)).catch(() => {});
    return;
  }
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
