import { Worker } from "node:worker_threads";
import type { FileJob, FileOutcome } from "./process-file.ts";

export interface ParseRequest {
  id: number;
  /** One index build: a worker keeps its object-store connection for the build and drops it after. */
  session: number;
  cacheDir: string | null;
  maxBytes: number;
  jobs: FileJob[];
}

/** Have the workers load, ahead of a build, the grammars of the languages under `prepare` (a folder). */
export interface PrepareRequest {
  prepare: string;
}

/**
 * A worker's answer. An outcome with symbols comes with `rows: null` and the rows as `rowBytes` (UTF-8,
 * transferred): `onReply` puts the text back in `rows` before anyone sees it.
 */
export interface ParseReply {
  id: number;
  results: FileOutcome[];
}

const utf8 = new TextDecoder("utf-8");

/** What one index build asks of the pool. */
export interface ParseSession {
  id: number;
  cacheDir: string | null;
  maxBytes: number;
}

interface Pending {
  session: ParseSession;
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

/** A pool with nothing to do closes after this long. */
const IDLE_CLOSE_MS = 10 * 60_000;

/**
 * A pool of worker threads that read, hash and parse files (node:worker_threads). `run()` queues one
 * file; a worker with a free slot takes a share of what has queued up as one batch. A worker that dies
 * fails its batches (the caller may process those files itself) and is not replaced.
 *
 * Workers stay up between index builds in one process (a process that indexes more than once), so a
 * later build does not pay for starting threads and compiling the grammars again. (The GitHub App runs
 * each job's pipeline in a process of its own, so there every index is a first build.) An idle pool holds no reference on the
 * event loop, so it never keeps a process alive, and closes itself after IDLE_CLOSE_MS.
 */
export class ParsePool {
  readonly size: number;
  private readonly queue: Pending[] = [];
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private retired = false;
  private closed = false;

  /** `env`: the workers' environment (core/compile-cache.ts gives them the compile cache through it). */
  constructor(size: number, opts: { env?: NodeJS.ProcessEnv } = {}) {
    this.size = size;
    const env = opts.env ?? process.env;
    for (let i = 0; i < size; i++) {
      const execArgv = workerExecArgv(process.execArgv);
      const worker = new Worker(new URL("./parse-worker.ts", import.meta.url), {
        env,
        ...(execArgv ? { execArgv } : {}),
      });
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
    // Idle until the first `run()`: a pool nobody uses never keeps the process alive.
    this.maybeIdle();
  }

  /** Workers still alive, of `size`. */
  get alive(): number {
    return this.slots.length;
  }

  run(session: ParseSession, job: FileJob, size: number): Promise<FileOutcome> {
    return new Promise((resolve, reject) => {
      if (this.slots.length === 0 || this.closed) {
        reject(new Error("no parse worker is left"));
        return;
      }
      this.queue.push({ session, job, size, resolve, reject });
      this.busy();
      this.pump();
    });
  }

  /** Has every worker load the grammars of the languages found in the first folders of `root` (parse-worker.ts). */
  prepare(root: string): void {
    for (const s of this.slots) s.worker.postMessage({ prepare: root } satisfies PrepareRequest);
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
      // Split what is queued evenly among the free slots, within the batch limit; one build per batch.
      const share = Math.max(1, Math.ceil(this.queue.length / free));
      const session = this.queue[0]!.session;
      const batch: Pending[] = [];
      let bytes = 0;
      while (
        this.queue.length > 0 &&
        this.queue[0]!.session === session &&
        batch.length < share &&
        (batch.length === 0 || bytes < BATCH_BYTES)
      ) {
        const p = this.queue.shift()!;
        batch.push(p);
        bytes += p.size;
      }
      const id = this.nextId++;
      slot.batches.set(id, batch);
      slot.worker.postMessage({
        id,
        session: session.id,
        cacheDir: session.cacheDir,
        maxBytes: session.maxBytes,
        jobs: batch.map((p) => p.job),
      } satisfies ParseRequest);
    }
  }

  private onReply(slot: Slot, msg: ParseReply): void {
    const batch = slot.batches.get(msg.id) ?? [];
    slot.batches.delete(msg.id);
    batch.forEach((p, i) => {
      const r = msg.results[i];
      if (r?.ok && r.rowBytes) r.rows = utf8.decode(r.rowBytes);
      if (r) p.resolve(r);
      else p.reject(new Error("no result from parse worker"));
    });
    this.pump();
    this.maybeIdle();
  }

  /** Work is queued: hold the event loop (the caller awaits replies) and cancel the idle close. */
  private busy(): void {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    for (const s of this.slots) s.worker.ref();
  }

  private maybeIdle(): void {
    if (this.queue.length > 0 || this.slots.some((s) => s.batches.size > 0) || this.closed) return;
    if (this.retired) {
      void this.close();
      return;
    }
    for (const s of this.slots) s.worker.unref();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (shared === this) shared = null;
      void this.close();
    }, IDLE_CLOSE_MS);
    this.idleTimer.unref();
  }

  /** Closes once the work already queued is done (a bigger pool has replaced this one). */
  retire(): void {
    this.retired = true;
    this.maybeIdle();
  }

  private onDeath(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    for (const batch of slot.batches.values()) for (const p of batch) p.reject(err);
    slot.batches.clear();
    if (this.slots.length === 0) {
      for (const p of this.queue.splice(0)) p.reject(err);
      if (shared === this) shared = null;
    } else {
      this.pump();
    }
    this.maybeIdle();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (shared === this) shared = null;
    const slots = this.slots.splice(0);
    const err = new Error("the parse pool was closed");
    for (const s of slots) for (const batch of s.batches.values()) for (const p of batch) p.reject(err);
    for (const p of this.queue.splice(0)) p.reject(err);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

/**
 * Node options for a worker when the process's own would stop it: `--input-type`, which a worker
 * refuses at startup (its code is a file), is left out, so that a process run with `node
 * --input-type=module -e …` still gets its parse workers. Undefined otherwise: the worker inherits the
 * process's options as Node passes them (an explicit list is checked, and refused, for options that only
 * a process may have).
 */
export function workerExecArgv(execArgv: readonly string[]): string[] | undefined {
  if (!execArgv.some((a) => a === "--input-type" || a.startsWith("--input-type="))) return undefined;
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!;
    if (a === "--input-type") i++;
    else if (!a.startsWith("--input-type=")) out.push(a);
  }
  return out;
}

let shared: ParsePool | null = null;
let nextSession = 1;

/**
 * The process's parse pool with at least `size` live workers, started if need be. A pool too small
 * (or with dead workers) is replaced; the old one closes when its queued work is done.
 */
export function sharedParsePool(size: number, opts: { env?: NodeJS.ProcessEnv } = {}): ParsePool {
  if (shared && shared.alive >= size) return shared;
  const old = shared;
  shared = new ParsePool(Math.max(size, old?.alive ?? 0), opts);
  old?.retire();
  return shared;
}

/** A new session id for one index build. */
export function newParseSession(cacheDir: string | null, maxBytes: number): ParseSession {
  return { id: nextSession++, cacheDir, maxBytes };
}

/** Stops the shared pool's workers now (a server shutting down; tests). */
export async function closeParsePool(): Promise<void> {
  await shared?.close();
}
