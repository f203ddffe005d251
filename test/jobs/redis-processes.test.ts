/** Real worker processes on a real redis-server: crash, sharing, Redis restart. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { RedisJobQueue } from "../../src/jobs/redis-queue.ts";
import { type Child, readEvents, reap, spawnWorker } from "./support/children.ts";
import { type RedisServer, startRedis } from "./support/redis-server.ts";
import { spec } from "./support/specs.ts";
import { waitFor } from "./support/wait.ts";

let redis: RedisServer;
let n = 0;

before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

async function setup(): Promise<{ dir: string; logFile: string; prefix: string; q: RedisJobQueue }> {
  n += 1;
  const dir = await mkdtemp(join(tmpdir(), "af-rp-"));
  const prefix = `p${n}`;
  return {
    dir,
    logFile: join(dir, "events.jsonl"),
    prefix,
    q: new RedisJobQueue({ redisUrl: redis.url, prefix }),
  };
}

async function allDone(q: RedisJobQueue, ids: string[], children: Child[] = []): Promise<void> {
  try {
    await waitFor(
      `${ids.length} jobs to be done`,
      async () => {
        for (const id of ids) if ((await q.get(id))?.state !== "done") return false;
        return true;
      },
      30_000,
    );
  } catch (err) {
    const states = await Promise.all(ids.map(async (id) => JSON.stringify(await q.get(id))));
    const logs = children.map((c) => c.stderr()).join("\n---\n");
    throw new Error(`${(err as Error).message}\n${states.join("\n")}\n${logs}`);
  }
}

test("redis: a worker killed with SIGKILL mid-run; another worker finishes the job once, from its checkpoint", async () => {
  const { dir, logFile, prefix, q } = await setup();
  let first: Child | undefined;
  let second: Child | undefined;
  try {
    const out = await q.enqueue(spec());
    const opts = { dataDir: dir, redisUrl: redis.url, prefix, logFile, leaseMs: 1500 };
    first = spawnWorker({ ...opts, hangAfter: "pushed" });
    await waitFor("the first worker to reach 'pushed'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    first.proc.kill("SIGKILL");
    await first.exited;
    assert.equal((await q.get(out.jobId))?.stage, "pushed");
    second = spawnWorker(opts);
    await allDone(q, [out.jobId]);
    second.proc.kill("SIGTERM");
    assert.equal((await second.exited).code, 0, second.stderr());

    const events = readEvents(logFile).filter((e) => e.job === out.jobId);
    assert.deepEqual(
      events.filter((e) => e.event === "stage").map((e) => e.stage),
      ["cloned", "pushed", "pr-opened"],
    );
    assert.equal(events.filter((e) => e.event === "completed").length, 1);
    const starts = events.filter((e) => e.event === "start");
    assert.equal(starts.length, 2);
    assert.equal(starts[1]?.stage, "pushed");
    assert.equal((await q.get(out.jobId))?.attempts, 2);
  } finally {
    await reap(first);
    await reap(second);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("redis: two worker processes share 20 queued jobs and each job runs exactly once", async () => {
  const { dir, logFile, prefix, q } = await setup();
  const workers: Child[] = [];
  try {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await q.enqueue(spec())).jobId);
    const opts = {
      dataDir: dir,
      redisUrl: redis.url,
      prefix,
      logFile,
      concurrency: 2,
      barrier: 2,
      leaseMs: 15_000,
    };
    workers.push(spawnWorker(opts), spawnWorker(opts));
    await allDone(q, ids, workers);
    for (const w of workers) w.proc.kill("SIGTERM");
    for (const w of workers) assert.equal((await w.exited).code, 0, w.stderr());

    const events = readEvents(logFile);
    const completed = events.filter((e) => e.event === "completed");
    assert.deepEqual(completed.map((e) => e.job).sort(), [...ids].sort(), "each job completed exactly once");
    assert.equal(events.filter((e) => e.event === "start").length, 20, "no job started twice");
    const pids = new Set(completed.map((e) => e.pid));
    assert.equal(pids.size, 2, "both workers took jobs");
    const counts = await q.counts();
    assert.equal(counts.done, 20);
    assert.equal(counts.queued + counts.running, 0);
  } finally {
    for (const w of workers) await reap(w);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("redis: a Redis crash and restart during a run loses no job", async () => {
  const { dir, logFile, prefix, q } = await setup();
  let worker: Child | undefined;
  try {
    const resumeFile = join(dir, "resume");
    const running = await q.enqueue(spec());
    worker = spawnWorker({
      dataDir: dir,
      redisUrl: redis.url,
      prefix,
      logFile,
      hangAfter: "cloned",
      resumeFile,
      leaseMs: 10_000,
    });
    await waitFor("the worker to reach 'cloned'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    const waiting: string[] = [];
    for (let i = 0; i < 5; i++) waiting.push((await q.enqueue(spec())).jobId);

    await redis.restart();
    writeFileSync(resumeFile, "");
    await allDone(q, [running.jobId, ...waiting]);
    worker.proc.kill("SIGTERM");
    assert.equal((await worker.exited).code, 0, worker.stderr());

    const events = readEvents(logFile);
    for (const id of [running.jobId, ...waiting]) {
      assert.equal(events.filter((e) => e.job === id && e.event === "completed").length, 1, `job ${id} once`);
    }
    const stages = events.filter((e) => e.job === running.jobId && e.event === "stage").map((e) => e.stage);
    assert.deepEqual(stages, ["cloned", "pushed", "pr-opened"]);
  } finally {
    await reap(worker);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("redis: a job whose worker dies more often than allowed fails with lease-expired", async () => {
  const { dir, logFile, prefix, q } = await setup();
  let first: Child | undefined;
  let second: Child | undefined;
  try {
    const out = await q.enqueue(spec());
    const opts = { dataDir: dir, redisUrl: redis.url, prefix, logFile, leaseMs: 1500, maxAttempts: 1 };
    first = spawnWorker({ ...opts, hangAfter: "cloned" });
    await waitFor("the worker to reach 'cloned'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    first.proc.kill("SIGKILL");
    await first.exited;
    second = spawnWorker(opts);
    const job = await waitFor("the job to fail", async () => {
      const j = await q.get(out.jobId);
      return j?.state === "failed" ? j : undefined;
    });
    assert.equal(job.reason, "lease-expired");
    assert.equal(readEvents(logFile).filter((e) => e.job === out.jobId && e.event === "start").length, 1);
    // The issue is free again: a new trigger queues a new job.
    assert.equal((await q.enqueue(spec({ issueNumber: job.spec.issueNumber }))).status, "queued");
  } finally {
    await reap(first);
    await reap(second);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});
