import { randomUUID } from "node:crypto";
import type {
  EnqueueOutcome,
  HeldDelivery,
  HeldSummary,
  Job,
  JobHandler,
  JobQueue,
  JobSpec,
  JobStartOptions,
} from "./types.ts";

/**
 * An in-process `JobQueue`: jobs live in this object only (a restart loses them), which suits a single
 * process and the tests. Same contract as the durable implementations: delivery ids are deduplicated, one
 * active job per issue, cancellation aborts the running job's signal.
 */
export class MemoryJobQueue implements JobQueue {
  readonly #jobs = new Map<string, Job>();
  readonly #byDelivery = new Map<string, string>();
  readonly #pending: string[] = [];
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #handler: JobHandler | null = null;
  #cleanup: JobStartOptions["cleanup"];
  #concurrency = 1;
  #stopped = false;
  readonly #now: () => number;
  readonly #held = new Map<string, { held: HeldDelivery; at: number }>();

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async holdDelivery(held: HeldDelivery): Promise<void> {
    this.#held.set(held.deliveryId, { held: structuredClone(held), at: this.#now() });
  }

  async releaseDelivery(deliveryId: string): Promise<void> {
    this.#held.delete(deliveryId);
  }

  async listHeld(): Promise<HeldSummary[]> {
    return [...this.#held.values()].map((e) => ({
      deliveryId: e.held.deliveryId,
      event: e.held.event,
      heldAt: e.at,
    }));
  }

  async takeHeldDeliveries(olderThanMs: number): Promise<HeldDelivery[]> {
    const now = this.#now();
    const out: HeldDelivery[] = [];
    for (const entry of this.#held.values()) {
      if (now - entry.at < olderThanMs) continue;
      entry.at = now;
      out.push(structuredClone(entry.held));
    }
    return out;
  }

  async enqueue(spec: JobSpec): Promise<EnqueueOutcome> {
    const seen = this.#byDelivery.get(spec.deliveryId);
    if (seen) return { status: "duplicate", jobId: seen };
    const active = this.#activeJob(spec.owner, spec.repo, spec.issueNumber);
    if (active) return { status: "active", jobId: active.id };
    const now = this.#now();
    const job: Job = {
      id: randomUUID(),
      spec: structuredClone(spec),
      state: "queued",
      attempts: 0,
      stage: null,
      checkpoint: {},
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    this.#jobs.set(job.id, job);
    this.#byDelivery.set(spec.deliveryId, job.id);
    this.#pending.push(job.id);
    this.#pump();
    return { status: "queued", jobId: job.id };
  }

  async cancel(owner: string, repo: string, issueNumber: number): Promise<boolean> {
    const job = this.#activeJob(owner, repo, issueNumber);
    if (!job) return false;
    if (job.state === "queued") {
      const i = this.#pending.indexOf(job.id);
      if (i >= 0) this.#pending.splice(i, 1);
    }
    this.#update(job, { state: "cancelled" });
    this.#running.get(job.id)?.controller.abort(new Error("cancelled"));
    return true;
  }

  async get(jobId: string): Promise<Job | null> {
    const job = this.#jobs.get(jobId);
    return job ? structuredClone(job) : null;
  }

  start(handler: JobHandler, options: JobStartOptions = {}): void {
    this.#handler = handler;
    this.#cleanup = options.cleanup;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#stopped = false;
    this.#pump();
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.#stopped = true;
    const running = [...this.#running.values()];
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(running.map((r) => r.done)), grace]);
    clearTimeout(timer);
    for (const r of this.#running.values()) r.controller.abort(new Error("shutting down"));
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Resolves once no job is queued or running (for tests and orderly shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.length > 0 || this.#running.size > 0) {
      await Promise.all([...this.#running.values()].map((r) => r.done));
      if (this.#running.size === 0 && this.#pending.length > 0 && (this.#stopped || !this.#handler)) return;
    }
  }

  #activeJob(owner: string, repo: string, issueNumber: number): Job | undefined {
    for (const job of this.#jobs.values()) {
      const s = job.spec;
      if (s.owner === owner && s.repo === repo && s.issueNumber === issueNumber) {
        if (job.state === "queued" || job.state === "running") return job;
      }
    }
    return undefined;
  }

  #update(job: Job, changes: Partial<Job>): void {
    Object.assign(job, changes, { updatedAt: this.#now() });
  }

  #pump(): void {
    const handler = this.#handler;
    if (!handler || this.#stopped) return;
    while (this.#running.size < this.#concurrency && this.#pending.length > 0) {
      const id = this.#pending.shift()!;
      const job = this.#jobs.get(id);
      if (job?.state !== "queued") continue;
      const controller = new AbortController();
      this.#update(job, { state: "running", attempts: job.attempts + 1 });
      const done = (async () => {
        try {
          await handler(structuredClone(job), {
            signal: controller.signal,
            checkpoint: async (stage, data) => {
              this.#update(job, { stage, checkpoint: { ...job.checkpoint, ...(data ?? {}) } });
            },
          });
          if (job.state === "running") this.#update(job, { state: "done" });
        } catch (error) {
          if (job.state === "running") {
            this.#update(job, {
              state: "failed",
              error: error instanceof Error ? error.message : String(error),
            });
          }
        } finally {
          await this.#cleanup?.(structuredClone(job)).catch(() => {});
          this.#running.delete(id);
          this.#pump();
        }
      })();
      this.#running.set(id, { controller, done });
    }
  }
}
