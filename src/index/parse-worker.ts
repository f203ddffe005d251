/** Worker-thread entry: parses batches of files and returns their symbols (see pool.ts). */
import { parentPort } from "node:worker_threads";
import { extractSymbols } from "./extract.ts";
import type { ParseItem, ParseReply, ParseRequest } from "./pool.ts";

const port = parentPort;
if (!port) throw new Error("parse-worker.ts must run in a worker thread");

let chain: Promise<void> = Promise.resolve();
port.on("message", (msg: ParseRequest) => {
  chain = chain.then(async () => {
    const results: ParseReply["results"] = [];
    for (const item of msg.items) results.push(await parseOne(item));
    port.postMessage({ id: msg.id, results } satisfies ParseReply);
  });
});

async function parseOne(item: ParseItem): Promise<ParseReply["results"][number]> {
  try {
    return { ok: true, result: await extractSymbols(item.language, item.text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message ?? String(err) };
  }
}
