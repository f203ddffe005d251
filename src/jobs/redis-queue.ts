/**
 * The scale-out queue: job records and their state transitions live in Redis (Lua scripts, atomic), and
 * BullMQ delivers job ids to worker processes on any number of machines. BullMQ's lock (renewed while the
 * handler runs) is the lease: when a worker dies its job is found stalled and handed to another worker,
 * which resumes it from the checkpoint kept in the job record.
 */
import { randomUUID } from "node:crypto";
import { DelayedError, type Job as BullJob, Queue, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { JobMetrics } from "./metrics.ts";
import { NO_METRICS } from "./metrics.ts";
import { RetryableError } from "../core/errors.ts";
import { errorText, JobCancelledError, JobShutdownError } from "./errors.ts";
import { CANCEL, CLAIM, ENQUEUE, FINISH, FORCE_FAIL, RENEW, TAKE_HELD } from "./redis-scripts.ts";
import { type ActiveRun, type LeaseStatus, type Logger, runJob } from "./runner.ts";
import { issueKey, parseJobSpec, retryDelayMs } from "./spec.ts";
import type {
  EnqueueOutcome,
  HeldDelivery,
  HeldSummary,
  Job,
  JobHandler,
  JobQueue,
  JobSpec,
  JobStartOptions,
  JobState,
} from "./types.ts";
import { JOB_STATES } from "./types.ts";

export interface RedisQueueOptions {
  redisUrl: string;
  /** Key prefix (default "auto-fix"). */
  prefix?: string;
  /** BullMQ lock duration: a dead worker's job is taken up after this (default 60 s). */
  leaseMs?: number;
  /** How often a running job re-reads its record (cancellation that pub/sub missed; default leaseMs / 4). */
  heartbeatMs?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  /** How long a delivery id is remembered (default 30 days). */
  deliveryTtlSeconds?: number;
  /** How long a finished job's record is kept (default 30 days). */
  retainMs?: number;
  /**
   * How long `enqueue` waits for Redis before it fails (default 5 s), so that a webhook is answered with an
   * error (and can be redelivered) rather than acknowledged late or never.
   */
  enqueueTimeoutMs?: number;
  metrics?: JobMetrics;
  log?: Logger;
}

type Script = (...args: Array<string | number>) => Promise<unknown>;
type Scripted = Redis & {
  afEnqueue: Script;
  afClaim: Script;
  afRenew: Script;
  afFinish: Script;
  afCancel: Script;
  afForceFail: Script;
  afTakeHeld: Script;
};

const QUEUE_NAME = "jobs";

export class RedisJobQueue implements JobQueue {
  readonly kind = "redis" as const;
  readonly #url: string;
  readonly #p: string;
  readonly #redis: Scripted;
  readonly #queue: Queue;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #maxAttempts: number;
  readonly #retryBaseMs: number;
  readonly #deliveryTtl: number;
  readonly #retainMs: number;
  readonly #enqueueTimeoutMs: number;
  readonly #metrics: JobMetrics;
  readonly #log: Logger;
  readonly #running = new Map<string, ActiveRun>();
  #worker: Worker | null = null;
  #subscriber: Redis | null = null;
  #cleanup: ((job: Job) => Promise<void>) | null = null;
  #reconciler: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: RedisQueueOptions) {
    this.#url = options.redisUrl;
    const prefix = options.prefix ?? "auto-fix";
    this.#p = `${prefix}:`;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(this.#leaseMs / 4));
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#retryBaseMs = options.retryBaseMs ?? 30_000;
    this.#deliveryTtl = options.deliveryTtlSeconds ?? 30 * 24 * 3600;
    this.#retainMs = options.retainMs ?? 30 * 24 * 3600 * 1000;
    this.#enqueueTimeoutMs = options.enqueueTimeoutMs ?? 5000;
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#log = options.log ?? (() => {});
    this.#redis = new Redis(this.#url, { maxRetriesPerRequest: null }) as Scripted;
    this.#redis.on("error", (err) => this.#log("redis connection error", { error: errorText(err) }));
    this.#redis.defineCommand("afEnqueue", { lua: ENQUEUE, numberOfKeys: 3 });
    this.#redis.defineCommand("afClaim", { lua: CLAIM(this.#retainMs), numberOfKeys: 1 });
    this.#redis.defineCommand("afRenew", { lua: RENEW, numberOfKeys: 1 });
    this.#redis.defineCommand("afFinish", { lua: FINISH(this.#retainMs), numberOfKeys: 1 });
    this.#redis.defineCommand("afCancel", { lua: CANCEL(this.#retainMs), numberOfKeys: 1 });
    this.#redis.defineCommand("afForceFail", { lua: FORCE_FAIL(this.#retainMs), numberOfKeys: 1 });
    this.#redis.defineCommand("afTakeHeld", { lua: TAKE_HELD, numberOfKeys: 2 });
    this.#queue = new Queue(QUEUE_NAME, {
      connection: { url: this.#url, maxRetriesPerRequest: null },
      prefix,
      defaultJobOptions: {
        attempts: 1,
        removeOnComplete: { count: 10_000 },
        removeOnFail: { count: 10_000 },
      },
    });
    this.#queue.on("error", (err) => this.#log("queue connection error", { error: errorText(err) }));
  }

  /** Resolves once Redis answers. */
  async ready(): Promise<void> {
    await this.#redis.ping();
  }

  #jobKey(id: string): string {
    return `${this.#p}job:${id}`;
  }

  async enqueue(input: JobSpec): Promise<EnqueueOutcome> {
    const spec = parseJobSpec(input);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RetryableError(`Redis did not store the job within ${this.#enqueueTimeoutMs} ms`)),
        this.#enqueueTimeoutMs,
      );
    });
    const work = this.#enqueue(spec);
    // If the time limit wins, the enqueue may still finish (or fail) later: never an unhandled rejection.
    work.catch(() => {});
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #enqueue(spec: JobSpec): Promise<EnqueueOutcome> {
    const id = randomUUID();
    const [status, jobId] = (await this.#redis.afEnqueue(
      `${this.#p}delivery:${spec.deliveryId}`,
      `${this.#p}active:${issueKey(spec.owner, spec.repo, spec.issueNumber)}`,
      this.#jobKey(id),
      this.#p,
      id,
      JSON.stringify(spec),
      Date.now(),
      this.#deliveryTtl,
    )) as [EnqueueOutcome["status"], string];
    if (status === "queued") {
      await this.#queue.add("repair", { id }, { jobId: id });
    } else {
      // A previous enqueue may have stored the record and then lost Redis before handing the id to BullMQ;
      // adding it again is a no-op while BullMQ still has it.
      const state = await this.#redis.hget(this.#jobKey(jobId), "state");
      if (state === "queued" && !(await this.#queue.getJob(jobId))) {
        await this.#queue.add("repair", { id: jobId }, { jobId });
      }
    }
    this.#metrics.enqueued(status);
    return { status, jobId };
  }

  async holdDelivery(held: HeldDelivery): Promise<void> {
    const body = JSON.stringify({ event: held.event, payload: held.payload ?? null });
    await this.#redis
      .multi()
      .hset(`${this.#p}held`, held.deliveryId, body)
      .zadd(`${this.#p}held-at`, Date.now(), held.deliveryId)
      .exec();
  }

  async releaseDelivery(deliveryId: string): Promise<void> {
    await this.#redis.multi().hdel(`${this.#p}held`, deliveryId).zrem(`${this.#p}held-at`, deliveryId).exec();
  }

  async listHeld(): Promise<HeldSummary[]> {
    const flat = await this.#redis.zrange(`${this.#p}held-at`, "0", "-1", "WITHSCORES");
    const out: HeldSummary[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const deliveryId = flat[i]!;
      let event = "unknown";
      try {
        const body = JSON.parse((await this.#redis.hget(`${this.#p}held`, deliveryId)) ?? "{}") as {
          event?: unknown;
        };
        if (typeof body.event === "string") event = body.event;
      } catch {
        // shown as unknown; resuming it drops it with a log line
      }
      out.push({ deliveryId, event, heldAt: Number(flat[i + 1]) });
    }
    return out;
  }

  /**
   * Jobs survive a Redis restart only with the append-only file (`appendonly yes`): snapshots alone lose
   * what came after the last one.
   */
  async durability(): Promise<{ ok: boolean | null; detail: string }> {
    try {
      const answer = (await Promise.race([
        this.#redis.config("GET", "appendonly"),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no answer within 2 s")), 2000).unref(),
        ),
      ])) as string[];
      const value = answer[1];
      if (value === "yes") return { ok: true, detail: "appendonly yes" };
      return {
        ok: false,
        detail: `Redis runs with appendonly ${value ?? "(unknown)"}: jobs and held deliveries are lost when it restarts; set appendonly yes in redis.conf (or run redis-cli CONFIG SET appendonly yes and CONFIG REWRITE)`,
      };
    } catch (err) {
      return { ok: null, detail: `could not ask Redis for its appendonly setting: ${errorText(err)}` };
    }
  }

  async takeHeldDeliveries(olderThanMs: number): Promise<HeldDelivery[]> {
    const flat = (await this.#redis.afTakeHeld(
      `${this.#p}held`,
      `${this.#p}held-at`,
      Date.now(),
      Math.max(0, Math.floor(olderThanMs)),
    )) as string[];
    const out: HeldDelivery[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const deliveryId = flat[i]!;
      try {
        const body = JSON.parse(flat[i + 1]!) as { event?: unknown; payload?: unknown };
        if (typeof body.event !== "string") throw new Error("no event name");
        out.push({ deliveryId, event: body.event, payload: body.payload });
      } catch {
        await this.releaseDelivery(deliveryId);
        this.#log("dropped a held delivery whose stored body is unreadable", { deliveryId });
      }
    }
    return out;
  }

  async get(jobId: string): Promise<Job | null> {
    const h = await this.#redis.hgetall(this.#jobKey(jobId));
    if (!h.id || !h.spec || !h.state) return null;
    return {
      id: h.id,
      spec: JSON.parse(h.spec) as JobSpec,
      state: h.state as JobState,
      attempts: Number(h.attempts ?? 0),
      stage: h.stage ?? null,
      checkpoint: JSON.parse(h.checkpoint ?? "{}") as Record<string, unknown>,
      error: h.error ?? null,
      reason: h.reason ?? null,
      createdAt: Number(h.createdAt),
      updatedAt: Number(h.updatedAt),
    };
  }

  async counts(): Promise<Record<JobState, number>> {
    const pipe = this.#redis.pipeline();
    for (const s of JOB_STATES) {
      if (s === "queued" || s === "running") pipe.scard(`${this.#p}state:${s}`);
      else pipe.zcard(`${this.#p}state:${s}`);
    }
    const res = (await pipe.exec()) ?? [];
    return Object.fromEntries(JOB_STATES.map((s, i) => [s, Number(res[i]?.[1] ?? 0)])) as Record<
      JobState,
      number
    >;
  }

  async health(): Promise<{ ok: boolean; detail: string }> {
    try {
      const pong = await Promise.race([
        this.#redis.ping(),
        new Promise<string>((_, reject) =>
          setTimeout(() => reject(new Error("no answer within 2 s")), 2000).unref(),
        ),
      ]);
      return { ok: pong === "PONG", detail: `redis ${redactUrl(this.#url)}` };
    } catch (err) {
      return { ok: false, detail: `redis ${redactUrl(this.#url)}: ${errorText(err)}` };
    }
  }

  async cancel(owner: string, repo: string, issueNumber: number): Promise<boolean> {
    const r = (await this.#redis.afCancel(
      `${this.#p}active:${issueKey(owner, repo, issueNumber)}`,
      this.#p,
      Date.now(),
    )) as [string, string] | null;
    if (!r) return false;
    const [id, previous] = r;
    this.#running.get(id)?.abort(new JobCancelledError());
    if (previous === "queued") {
      // A worker picks the id up, sees the cancellation and runs the cleanup; a delayed retry goes first.
      const bjob = await this.#queue.getJob(id);
      if (bjob && (await bjob.isDelayed())) await bjob.promote().catch(() => {});
    }
    return true;
  }

  start(handler: JobHandler, options?: JobStartOptions): void {
    if (this.#worker) throw new Error("the job queue is already started");
    this.#cleanup = options?.cleanup ?? null;
    const concurrency = Math.max(1, Math.floor(options?.concurrency ?? 1));
    this.#subscriber = new Redis(this.#url, { maxRetriesPerRequest: null });
    this.#subscriber.on("error", (err) => this.#log("redis subscriber error", { error: errorText(err) }));
    this.#subscriber.on("message", (_channel: string, id: string) => {
      this.#running.get(id)?.abort(new JobCancelledError());
    });
    this.#subscriber.subscribe(`${this.#p}cancel`).catch((err: unknown) => {
      this.#log("cannot subscribe to cancellations; relying on heartbeats", { error: errorText(err) });
    });
    const worker = new Worker(
      QUEUE_NAME,
      (job, token) => this.#process(handler, job, token ?? randomUUID()),
      {
        connection: { url: this.#url, maxRetriesPerRequest: null },
        prefix: this.#p.slice(0, -1),
        concurrency,
        lockDuration: this.#leaseMs,
        stalledInterval: Math.max(1000, Math.floor(this.#leaseMs / 2)),
        // Our own attempt count decides when a job that keeps killing workers fails; this is a backstop.
        maxStalledCount: this.#maxAttempts + 2,
        autorun: true,
      },
    );
    worker.on("error", (err) => this.#log("worker connection error", { error: errorText(err) }));
    worker.on("failed", (job, err) => {
      if (!job?.id || err.name === "UnrecoverableError") return;
      // BullMQ gave up on the job itself (stalled too often, or lost): keep the record consistent.
      void (
        this.#redis.afForceFail(
          this.#jobKey(job.id),
          this.#p,
          job.id,
          Date.now(),
          errorText(err),
        ) as Promise<number>
      )
        .then((n) => {
          if (n === 1) this.#metrics.failure("lease-expired");
        })
        .catch(() => {});
    });
    this.#worker = worker;
    void this.reconcile();
    this.#reconciler = setInterval(() => void this.reconcile(), Math.max(5000, this.#leaseMs));
    this.#reconciler.unref();
  }

  /**
   * Hands BullMQ every queued job it does not have: a webhook server that stored a job and then lost Redis
   * before handing it over leaves such a job behind. Returns how many were handed over.
   */
  async reconcile(): Promise<number> {
    try {
      const ids = await this.#redis.smembers(`${this.#p}state:queued`);
      if (ids.length === 0) return 0;
      const pipe = this.#redis.pipeline();
      for (const id of ids) pipe.exists(`${this.#p}${QUEUE_NAME}:${id}`);
      const res = (await pipe.exec()) ?? [];
      let added = 0;
      for (const [i, id] of ids.entries()) {
        if (Number(res[i]?.[1] ?? 1) !== 0) continue;
        await this.#queue.add("repair", { id }, { jobId: id });
        added += 1;
        this.#log("queued job was missing from the work queue; handed over", { jobId: id });
      }
      return added;
    } catch (err) {
      this.#log("reconcile failed", { error: errorText(err) });
      return 0;
    }
  }

  async #process(handler: JobHandler, bjob: BullJob, token: string): Promise<void> {
    const id = String((bjob.data as { id?: unknown }).id ?? bjob.id);
    const claim = (await this.#redis.afClaim(
      this.#jobKey(id),
      this.#p,
      id,
      token,
      Date.now(),
      this.#maxAttempts,
    )) as string;
    if (claim === "exhausted") {
      this.#metrics.failure("lease-expired");
      await this.#cleanupJob(id);
      return;
    }
    if (claim === "cancelled") {
      const job = await this.get(id);
      if (job?.stage) await this.#cleanupJob(id);
      return;
    }
    if (claim !== "claimed") return;
    const job = await this.get(id);
    if (!job) return;
    const renew = async (stage: string, checkpoint: Record<string, unknown>): Promise<LeaseStatus> =>
      (await this.#redis.afRenew(
        this.#jobKey(id),
        token,
        stage,
        JSON.stringify(checkpoint),
        Date.now(),
      )) as LeaseStatus;
    const run = runJob(
      job,
      handler,
      { checkpoint: (stage, data) => renew(stage, data), heartbeat: () => renew("", {}) },
      { heartbeatMs: this.#heartbeatMs, metrics: this.#metrics, log: this.#log },
    );
    this.#running.set(id, run);
    try {
      const result = await run.result;
      const finish = async (state: JobState, error = "", reason = "", refund = false): Promise<string> =>
        (await this.#redis.afFinish(
          this.#jobKey(id),
          this.#p,
          id,
          token,
          state,
          error,
          reason,
          Date.now(),
          refund ? "1" : "0",
        )) as string;
      if (result.kind === "done") {
        const r = await finish("done");
        if (r === "ok") this.#metrics.finished("done", run.seconds());
        if (r === "ok" || r === "cancelled") await this.#cleanupJob(id);
      } else if (result.kind === "failed") {
        this.#metrics.failure(result.reason);
        const retry = result.retryable && job.attempts < this.#maxAttempts;
        const r = await finish(retry ? "queued" : "failed", result.error, result.reason);
        this.#log(retry ? "job failed, will retry" : "job failed", { jobId: id, error: result.error });
        if (r === "ok") this.#metrics.finished(retry ? "requeued" : "failed", run.seconds());
        if (r === "ok" && retry) {
          await bjob.moveToDelayed(
            Date.now() + retryDelayMs(this.#retryBaseMs, job.attempts, result.retryAfterMs),
            token,
          );
          throw new DelayedError();
        }
        if (r === "ok" || r === "cancelled") await this.#cleanupJob(id);
        if (r === "ok") throw new UnrecoverableError(result.error);
      } else if (result.kind === "shutdown") {
        const r = await finish("queued", "", "", true);
        if (r === "ok") {
          this.#metrics.finished("requeued", run.seconds());
          await bjob.moveToWait(token);
          throw new WaitingError();
        }
      } else if (result.kind === "cancelled") {
        this.#metrics.finished("cancelled", run.seconds());
        await this.#cleanupJob(id);
      } else {
        this.#log("lease lost; another worker has the job", { jobId: id });
      }
    } finally {
      this.#running.delete(id);
    }
  }

  async #cleanupJob(id: string): Promise<void> {
    if (!this.#cleanup) return;
    const job = await this.get(id);
    if (!job) return;
    try {
      await this.#cleanup(job);
    } catch (err) {
      this.#log("cleanup failed", { jobId: id, error: errorText(err) });
    }
  }

  async stop(graceMs = 30_000): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    if (this.#reconciler) clearInterval(this.#reconciler);
    this.#reconciler = null;
    const closing = worker.close();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = await Promise.race([
      closing.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (graceOver) {
      for (const run of this.#running.values()) run.abort(new JobShutdownError());
      await closing;
    }
    this.#worker = null;
    if (this.#subscriber) {
      this.#subscriber.disconnect();
      this.#subscriber = null;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.stop(0);
    this.#closed = true;
    await this.#queue.close();
    this.#redis.disconnect();
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable url)";
  }
}
