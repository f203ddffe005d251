import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryJobQueue } from "../../src/jobs/memory-queue.ts";
import type { JobSpec } from "../../src/jobs/types.ts";

const spec = (deliveryId: string, issueNumber = 1): JobSpec => ({
  deliveryId,
  kind: "run",
  installationId: 1,
  owner: "o",
  repo: "r",
  issueNumber,
  sender: "mona",
});

test("memory queue: duplicate deliveries, one active job per issue, checkpoints", async () => {
  const q = new MemoryJobQueue();
  const a = await q.enqueue(spec("d1"));
  assert.equal(a.status, "queued");
  assert.deepEqual(await q.enqueue(spec("d1")), { status: "duplicate", jobId: a.jobId });
  assert.deepEqual(await q.enqueue(spec("d2")), { status: "active", jobId: a.jobId });
  assert.equal((await q.enqueue(spec("d3", 2))).status, "queued");
  const seen: string[] = [];
  const cleaned: string[] = [];
  q.start(
    async (job, ctx) => {
      seen.push(job.spec.deliveryId);
      await ctx.checkpoint("cloned", { commit: "abc" });
    },
    {
      cleanup: async (job) => {
        cleaned.push(`${job.spec.deliveryId}:${job.state}`);
      },
    },
  );
  await q.idle();
  assert.deepEqual(seen, ["d1", "d3"]);
  assert.deepEqual(cleaned, ["d1:done", "d3:done"]);
  const done = await q.get(a.jobId);
  assert.equal(done?.state, "done");
  assert.equal(done?.stage, "cloned");
  assert.deepEqual(done?.checkpoint, { commit: "abc" });
  // Finished jobs no longer block the issue; the delivery id still does.
  assert.equal((await q.enqueue(spec("d4"))).status, "queued");
  assert.equal((await q.enqueue(spec("d1"))).status, "duplicate");
  await q.idle();
  await q.stop();
});

test("memory queue: cancel aborts a running job and drops a queued one; failures are recorded", async () => {
  const q = new MemoryJobQueue();
  let started!: () => void;
  const running = new Promise<void>((r) => {
    started = r;
  });
  q.start(
    async (job, ctx) => {
      if (job.spec.issueNumber === 3) throw new Error("boom");
      started();
      await new Promise<void>((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    },
    { concurrency: 1 },
  );
  const a = await q.enqueue(spec("a", 1));
  const b = await q.enqueue(spec("b", 2));
  await running;
  assert.equal(await q.cancel("o", "r", 2), true, "queued job cancelled");
  assert.equal(await q.cancel("o", "r", 1), true, "running job cancelled");
  assert.equal(await q.cancel("o", "r", 1), false, "nothing left");
  await q.idle();
  assert.equal((await q.get(a.jobId))?.state, "cancelled");
  assert.equal((await q.get(b.jobId))?.state, "cancelled");
  const c = await q.enqueue(spec("c", 3));
  await q.idle();
  const failed = await q.get(c.jobId);
  assert.equal(failed?.state, "failed");
  assert.equal(failed?.error, "boom");
  await q.stop();
});

test("memory queue: stop waits for the grace period, then aborts running jobs", async () => {
  const q = new MemoryJobQueue();
  let aborted = false;
  let started!: () => void;
  const running = new Promise<void>((r) => {
    started = r;
  });
  q.start(async (_job, ctx) => {
    started();
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener("abort", () => {
        aborted = true;
        resolve();
      }),
    );
  });
  await q.enqueue(spec("s"));
  await running;
  await q.stop(10);
  assert.equal(aborted, true);
  assert.equal((await q.enqueue(spec("t"))).status, "queued", "a stopped queue still stores jobs");
});

test("memory queue: held deliveries are taken once old enough, claimed, and gone when released", async () => {
  let now = 1_000;
  const q = new MemoryJobQueue({ now: () => now });
  await q.holdDelivery({ deliveryId: "d", event: "issues.labeled", payload: { label: { name: "x" } } });
  assert.deepEqual(await q.takeHeldDeliveries(500), []);
  now += 500;
  assert.deepEqual(await q.takeHeldDeliveries(500), [
    { deliveryId: "d", event: "issues.labeled", payload: { label: { name: "x" } } },
  ]);
  assert.deepEqual(await q.takeHeldDeliveries(500), [], "claimed by the last take");
  await q.releaseDelivery("d");
  now += 10_000;
  assert.deepEqual(await q.takeHeldDeliveries(0), []);
});
