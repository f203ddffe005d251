import { Worker } from "node:worker_threads";
import type { FileJob, FileOutcome } from "./process-file.ts";

export interface WorkerInit {
  cacheDir: string | null;
  maxBytes: number;
}

export interface ParseRequest {
  id: number;
  jobs: FileJob[];
}

export interface ParseReply {
  id: number;
  results: FileOutcome[];
}

interface Pending {
  job: FileJob;
  size: number;
  resolve: (r: FileOutcome) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Batches sent and not yet answered, by request id (a worker answers in order). */
  batches: Map<number, Pending[]>;
}

/** Largest batch handed to one worker at a time (by file bytes). */
const BATCH_BYTES = 256 * 1024;
/**
 * Batches a worker may hold at once: while it parses one, the next is already in its queue, so it
 * never waits for a round trip through a main thread that is itself competing for a core.
 */
const BATCHES_PER_WORKER = 2;

/**
 * A pool of worker threads that read, hash and parse files (node:worker_threads). `run()` queues one
 * file; a worker with a free slot takes a share of what has queued up as one batch. A worker that dies
 * fails its batches (the caller may process those files itself) and is not replaced.
 */
export class ParsePool {
  private readonly queue: Pending[] = [];
  private readonly slots: Slot[] = [];
  private nextId = 1;

  constructor(size: number, init: WorkerInit) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL("./parse-worker.ts", import.meta.url), { workerData: init });
      const slot: Slot = { worker, batches: new Map() };
      worker.on("message", (msg: ParseReply) => this.onReply(slot, msg));
      worker.on("error", (err: unknown) =>
        this.onDeath(slot, err instanceof Error ? err : new Error(String(err))),
      );
      worker.on("exit", (code) => {
        if (this.slots.includes(slot)) this.onDeath(slot, new Error(`parse worker exited with code ${code}`));
      });
      this.slots.push(slot);
    }
  }

  run(job: FileJob, size: number): Promise<FileOutcome> {
    return new Promise((resolve, reject) => {
      if (this.slots.length === 0) {
        reject(new Error("no parse worker is left"));
        return;
      }
      this.queue.push({ job, size, resolve, reject });
      this.pump();
    });
  }

  /**
   * Orders what is still queued by size, largest first: files queued while the walk went on come in
   * directory order, and a big file left for the end would keep one worker busy while the others idle.
   */
  largestFirst(): void {
    this.queue.sort((a, b) => b.size - a.size);
  }

  private pump(): void {
    for (;;) {
      if (this.queue.length === 0) return;
      let slot: Slot | null = null;
      let free = 0;
      for (const s of this.slots) {
        const room = BATCHES_PER_WORKER - s.batches.size;
        if (room <= 0) continue;
        free += room;
        if (!slot || s.batches.size < slot.batches.size) slot = s;
      }
      if (!slot) return;
      // Split what is queued evenly among the free slots, within the batch limit.
      const share = Math.max(1, Math.ceil(this.queue.length / free));
      const batch: Pending[] = [];
      let bytes = 0;
      while (this.queue.length > 0 && batch.length < share && (batch.length === 0 || bytes < BATCH_BYTES)) {
        const p = this.queue.shift()!;
        batch.push(p);
        bytes += p.size;
      }
      const id = this.nextId++;
      slot.batches.set(id, batch);
      slot.worker.postMessage({ id, jobs: batch.map((p) => p.job) } satisfies ParseRequest);
    }
  }

  private onReply(slot: Slot, msg: ParseReply): void {
    const batch = slot.batches.get(msg.id) ?? [];
    slot.batches.delete(msg.id);
    batch.forEach((p, i) => {
      const r = msg.results[i];
      if (r) p.resolve(r);
      else p.reject(new Error("no result from parse worker"));
    });
    this.pump();
  }

  private onDeath(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    for (const batch of slot.batches.values()) for (const p of batch) p.reject(err);
    slot.batches.clear();
    if (this.slots.length === 0) {
      for (const p of this.queue.splice(0)) p.reject(err);
    } else {
      this.pump();
    }
  }

  async close(): Promise<void> {
    const workers = this.slots.splice(0).map((s) => s.worker);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
