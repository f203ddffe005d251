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

/** Largest batch handed to one worker at a time (by file bytes). */
const BATCH_BYTES = 256 * 1024;

/**
 * A pool of worker threads that read, hash and parse files (node:worker_threads). `run()` queues one
 * file; an idle worker takes whatever has queued up as one batch. A worker that dies fails its batch
 * (the caller may process those files itself) and is not replaced.
 */
export class ParsePool {
  private readonly queue: Pending[] = [];
  private readonly idle: Worker[] = [];
  private readonly inFlight = new Map<Worker, Pending[]>();
  private readonly workers: Worker[] = [];
  private nextId = 1;

  constructor(size: number, init: WorkerInit) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL("./parse-worker.ts", import.meta.url), { workerData: init });
      w.on("message", (msg: ParseReply) => this.onReply(w, msg));
      w.on("error", (err: unknown) => this.onDeath(w, err instanceof Error ? err : new Error(String(err))));
      w.on("exit", (code) => {
        if (this.inFlight.has(w)) this.onDeath(w, new Error(`parse worker exited with code ${code}`));
      });
      this.workers.push(w);
      this.idle.push(w);
    }
  }

  run(job: FileJob, size: number): Promise<FileOutcome> {
    return new Promise((resolve, reject) => {
      if (this.workers.length === 0) {
        reject(new Error("no parse worker is left"));
        return;
      }
      this.queue.push({ job, size, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop()!;
      // Split what is queued evenly among idle workers, within the batch limit.
      const share = Math.max(1, Math.ceil(this.queue.length / (this.idle.length + 1)));
      const batch: Pending[] = [];
      let bytes = 0;
      while (this.queue.length > 0 && batch.length < share && (batch.length === 0 || bytes < BATCH_BYTES)) {
        const p = this.queue.shift()!;
        batch.push(p);
        bytes += p.size;
      }
      this.inFlight.set(w, batch);
      w.postMessage({ id: this.nextId++, jobs: batch.map((p) => p.job) } satisfies ParseRequest);
    }
  }

  private onReply(w: Worker, msg: ParseReply): void {
    const batch = this.inFlight.get(w) ?? [];
    this.inFlight.delete(w);
    batch.forEach((p, i) => {
      const r = msg.results[i];
      if (r) p.resolve(r);
      else p.reject(new Error("no result from parse worker"));
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
    const j = this.idle.indexOf(w);
    if (j >= 0) this.idle.splice(j, 1);
    if (this.workers.length === 0) {
      for (const p of this.queue.splice(0)) p.reject(err);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
