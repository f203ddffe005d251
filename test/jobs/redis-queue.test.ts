import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Queue } from "bullmq";
import { RedisJobQueue } from "../../src/jobs/redis-queue.ts";
import { queueContract } from "./support/contract.ts";
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

queueContract("redis queue", async () => {
  n += 1;
  const prefix = `t${n}`;
  return {
    open: () =>
      new RedisJobQueue({ redisUrl: redis.url, prefix, leaseMs: 5000, heartbeatMs: 50, retryBaseMs: 10 }),
    dispose: async () => {},
  };
});

test("redis queue: a stored job that never reached the work queue is handed over when workers start", async () => {
  const q = new RedisJobQueue({ redisUrl: redis.url, prefix: "reconcile" });
  const bull = new Queue("jobs", { connection: { url: redis.url }, prefix: "reconcile" });
  try {
    const out = await q.enqueue(spec());
    // As if the server stored the record and then lost Redis before handing the id to BullMQ.
    assert.equal(await bull.remove(out.jobId), 1);
    assert.equal(await bull.getJob(out.jobId), undefined);
    const ran: string[] = [];
    q.start(async (job) => void ran.push(job.id));
    await waitFor("the job to run", async () => (await q.get(out.jobId))?.state === "done");
    assert.deepEqual(ran, [out.jobId]);
    assert.equal(await q.reconcile(), 0, "nothing left to hand over");
  } finally {
    await q.close();
    await bull.close();
  }
});

test("redis queue: finished job records expire after the retention and leave the counts", async () => {
  const q = new RedisJobQueue({ redisUrl: redis.url, prefix: "retain", retainMs: 300 });
  try {
    const a = await q.enqueue(spec());
    q.start(async () => {});
    await waitFor("the first job to finish", async () => (await q.get(a.jobId))?.state === "done");
    assert.equal((await q.counts()).done, 1);
    await waitFor("the first record to expire", async () => (await q.get(a.jobId)) === null);
    const b = await q.enqueue(spec());
    await waitFor("the second job to finish", async () => (await q.get(b.jobId))?.state === "done");
    const counts = await q.counts();
    assert.equal(counts.done, 1, "the expired job left the done index");
    assert.equal(counts.queued + counts.running, 0);
  } finally {
    await q.close();
  }
});

test("redis queue: with Redis down, enqueue fails within its time limit; the job is stored once Redis is back", async () => {
  const own = await startRedis();
  const q = new RedisJobQueue({ redisUrl: own.url, prefix: "down", enqueueTimeoutMs: 300 });
  try {
    await q.ready();
    await own.kill();
    const s = spec();
    await assert.rejects(q.enqueue(s), /Redis did not store the job within 300 ms/);
    await own.start();
    // The delivery comes again (GitHub's redelivery); whatever reached Redis is not stored twice.
    const out = await waitFor("an enqueue to succeed", () => q.enqueue(s).catch(() => undefined));
    assert.ok(out.status === "queued" || out.status === "duplicate");
    assert.equal((await q.counts()).queued, 1);
  } finally {
    await q.close();
    await own.stop();
  }
});
