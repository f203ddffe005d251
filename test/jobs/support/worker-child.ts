/**
 * A real worker process for the crash tests: runs the shared worker loop with a handler that goes through
 * three stages with side effects recorded in a log file, skipping stages its checkpoint says are done.
 * Usage: node worker-child.ts '<json options>'
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createJobQueue } from "../../../src/jobs/create-queue.ts";
import { runWorkerProcess } from "../../../src/jobs/worker-process.ts";
import type { Job, JobContext } from "../../../src/jobs/types.ts";

interface ChildOptions {
  dataDir: string;
  redisUrl?: string;
  prefix?: string;
  logFile: string;
  /** Hang (until killed or told to stop) right after checkpointing this stage. */
  hangAfter?: string;
  /** With hangAfter: instead of waiting for a signal, continue once this file exists. */
  resumeFile?: string;
  /** Each job first waits until jobs have started in this many distinct worker processes. */
  barrier?: number;
  concurrency?: number;
  leaseMs?: number;
  graceMs?: number;
  maxAttempts?: number;
}

const opts = JSON.parse(process.argv[2] ?? "{}") as ChildOptions;
const STAGES = ["cloned", "pushed", "pr-opened"];

function record(event: Record<string, unknown>): void {
  appendFileSync(opts.logFile, `${JSON.stringify({ ...event, pid: process.pid })}\n`);
}

function startedPids(): number {
  const pids = new Set<number>();
  for (const line of readFileSync(opts.logFile, "utf8").split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line) as { event: string; pid: number };
    if (e.event === "start") pids.add(e.pid);
  }
  return pids.size;
}

async function until(check: () => boolean, signal: AbortSignal): Promise<void> {
  while (!check()) {
    if (signal.aborted) throw signal.reason;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function handler(job: Job, ctx: JobContext): Promise<void> {
  record({ event: "start", job: job.id, stage: job.stage, attempts: job.attempts });
  if (opts.barrier) await until(() => startedPids() >= (opts.barrier ?? 0), ctx.signal);
  for (const stage of STAGES) {
    if (job.checkpoint[stage] === true) continue;
    record({ event: "stage", job: job.id, stage });
    await ctx.checkpoint(stage, { [stage]: true });
    if (opts.hangAfter === stage) {
      record({ event: "hanging", job: job.id, stage });
      const resumeFile = opts.resumeFile;
      if (resumeFile) await until(() => existsSync(resumeFile), ctx.signal);
      else {
        await new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
        );
      }
    }
  }
  record({ event: "completed", job: job.id });
}

const queue = createJobQueue({
  dataDir: opts.dataDir,
  ...(opts.redisUrl !== undefined && { redisUrl: opts.redisUrl }),
  ...(opts.prefix !== undefined && { prefix: opts.prefix }),
  leaseMs: opts.leaseMs ?? 2000,
  ...(opts.maxAttempts !== undefined && { maxAttempts: opts.maxAttempts }),
  pollMs: 20,
  log: (m, f) => process.stderr.write(`${m} ${JSON.stringify(f ?? {})}\n`),
});
record({ event: "ready" });
await runWorkerProcess({
  queue,
  handler,
  concurrency: opts.concurrency ?? 1,
  graceMs: opts.graceMs ?? 100,
  log: (line) => process.stderr.write(`${line}\n`),
});
record({ event: "exit" });
