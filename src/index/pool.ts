import { Worker } from "node:worker_threads";
import type { LanguageId } from "../treesitter/languages.ts";
import type { ExtractResult } from "./types.ts";

export interface ParseItem {
  language: LanguageId;
  text: string;
}

export interface ParseRequest {
  id: number;
  items: ParseItem[];
}

export interface ParseReply {
  id: number;
  results: ({ ok: true; result: ExtractResult } | { ok: false; error: string })[];
}

interface Pending {
  item: ParseItem;
  resolve: (r: ExtractResult) => void;
  reject: (e: Error) => void;
}

/** Largest batch sent to one worker at a time (by characters). */
const BATCH_CHARS = 256 * 1024;

/**
 * A pool of parse workers (node:worker_threads). `parse()` queues one file; idle workers take whatever
 * has queued up as one batch, so the reader thread and the parsers overlap. A worker that dies fails its
 * batch (the caller may parse those files itself) and is not replaced.
 */
export class ParsePool {
  private readonly queue: Pending[] = [];
  private readonly idle: Worker[] = [];
  private readonly inFlight = new Map<Worker, Pending[]>();
  private readonly workers: Worker[] = [];
  private nextId = 1;

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL("./parse-worker.ts", import.meta.url));
      w.on("message", (msg: ParseReply) => this.onReply(w, msg));
      w.on("error", (err: unknown) => this.onDeath(w, err instanceof Error ? err : new Error(String(err))));
      w.on("exit", (code) => {
        if (this.inFlight.has(w)) this.onDeath(w, new Error(`parse worker exited with code ${code}`));
      });
      this.workers.push(w);
      this.idle.push(w);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  parse(item: ParseItem): Promise<ExtractResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop()!;
      const batch: Pending[] = [];
      let chars = 0;
      while (this.queue.length > 0 && (batch.length === 0 || chars < BATCH_CHARS)) {
        const p = this.queue.shift()!;
        batch.push(p);
        chars += p.item.text.length;
      }
      this.inFlight.set(w, batch);
      w.postMessage({ id: this.nextId++, items: batch.map((p) => p.item) } satisfies ParseRequest);
    }
  }

  private onReply(w: Worker, msg: ParseReply): void {
    const batch = this.inFlight.get(w) ?? [];
    this.inFlight.delete(w);
    batch.forEach((p, i) => {
      const r = msg.results[i];
      if (r?.ok) p.resolve(r.result);
      else p.reject(new Error(r?.error ?? "no result from parse worker"));
    });
    this.idle.push(w);
    this.pump();
  }

  private onDeath(w: Worker, err: Error): void {
    const batch = this.inFlight.get(w) ?? [];
    this.inFlight.delete(w);
    for (const p of batch) p.reject(err);
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    if (this.workers.length === 0) {
      for (const p of this.queue.splice(0)) p.reject(err);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
