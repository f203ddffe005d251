/**
 * Behaviour every JobQueue implementation must show; run against the embedded store and against Redis.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { JobCancelledError, JobFailure, JobShutdownError } from "../../../src/jobs/errors.ts";
import type { Job, JobQueue } from "../../../src/jobs/types.ts";
import { RetryableError } from "../../../src/core/errors.ts";
import { spec } from "./specs.ts";
import { deferred, waitFor } from "./wait.ts";

/** A fresh, empty store; `open` may be called again for a second handle on the same store. */
export type QueueFactory = () => Promise<{ open: () => JobQueue; dispose: () => Promise<void> }>;

async function withStore(make: QueueFactory, fn: (open: () => JobQueue) => Promise<void>): Promise<void> {
  const store = await make();
  const opened: JobQueue[] = [];
  try {
    await fn(() => {
      const q = store.open();
      opened.push(q);
      return q;
    });
  } finally {
    for (const q of opened) {
      await q.stop(0).catch(() => {});
      await q.close?.();
    }
    await store.dispose();
  }
}

async function finalState(q: JobQueue, id: string, state: Job["state"]): Promise<Job> {
  return waitFor(`job ${id} to be ${state}`, async () => {
    const j = await q.get(id);
    return j?.state === state ? j : undefined;
  });
}

export function queueContract(name: string, make: QueueFactory): void {
  test(`${name}: a held delivery survives a new handle until released; one taker claims it`, async () => {
    await withStore(make, async (open) => {
      const payload = { action: "created", comment: { body: "/cancel", id: 7 }, labels: [], n: null };
      await open().holdDelivery({ deliveryId: "d-1", event: "issue_comment.created", payload });
      await open().holdDelivery({ deliveryId: "d-2", event: "issues.labeled", payload: { a: 1 } });
      assert.deepEqual(await open().takeHeldDeliveries(60_000), [], "nothing is old enough yet");
      const a = open();
      const b = open();
      const taken = await a.takeHeldDeliveries(0);
      assert.deepEqual(
        taken.map((h) => h.deliveryId).sort(),
        ["d-1", "d-2"],
        "a new handle on the same store sees both",
      );
      const one = taken.find((h) => h.deliveryId === "d-1");
      assert.deepEqual(one, { deliveryId: "d-1", event: "issue_comment.created", payload });
      assert.deepEqual(await b.takeHeldDeliveries(1_000), [], "claimed: another process leaves them alone");
      await b.releaseDelivery("d-1");
      await new Promise((r) => setTimeout(r, 20));
      const left = await open().takeHeldDeliveries(10);
      assert.deepEqual(
        left.map((h) => h.deliveryId),
        ["d-2"],
      );
      await open().releaseDelivery("d-2");
      await open().releaseDelivery("never-held");
      assert.deepEqual(await open().takeHeldDeliveries(0), []);
    });
  });

  test(`${name}: a job is stored before enqueue resolves and survives a new handle`, async () => {
    await withStore(make, async (open) => {
      const s = spec({ guidance: "look at parse()", data: { cloneUrl: "http://127.0.0.1/x.git" } });
      const out = await open().enqueue(s);
      assert.equal(out.status, "queued");
      const job = await open().get(out.jobId);
      assert.equal(job?.state, "queued");
      assert.deepEqual(job?.spec, s);
      assert.equal(job?.attempts, 0);
      assert.equal(job?.stage, null);
      assert.deepEqual(job?.checkpoint, {});
      assert.equal(await open().get("no-such-job"), null);
    });
  });

  test(`${name}: a repeated delivery and a second trigger for the same issue give one job`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const first = spec({ issueNumber: 42 });
      const a = await q.enqueue(first);
      assert.equal(a.status, "queued");
      assert.deepEqual(await q.enqueue(first), { status: "duplicate", jobId: a.jobId });
      const second = spec({ issueNumber: 42, owner: "OCTO", repo: "Widgets" });
      assert.deepEqual(await q.enqueue(second), { status: "active", jobId: a.jobId });
      assert.deepEqual(await q.enqueue(second), { status: "duplicate", jobId: a.jobId });
      const other = await q.enqueue(spec({ issueNumber: 43 }));
      assert.equal(other.status, "queued");
      assert.notEqual(other.jobId, a.jobId);

      const runs: string[] = [];
      q.start(async (job) => {
        runs.push(job.id);
      });
      await finalState(q, a.jobId, "done");
      await finalState(q, other.jobId, "done");
      assert.deepEqual(runs.sort(), [a.jobId, other.jobId].sort());
      // Once finished, a new trigger starts a new run; the old delivery stays a duplicate.
      assert.deepEqual(await q.enqueue(first), { status: "duplicate", jobId: a.jobId });
      const again = await q.enqueue(spec({ issueNumber: 42, kind: "retry" }));
      assert.equal(again.status, "queued");
      assert.notEqual(again.jobId, a.jobId);
    });
  });

  test(`${name}: concurrent repeats of a delivery and concurrent triggers for one issue store one job`, async () => {
    await withStore(make, async (open) => {
      const a = open();
      const b = open();
      const same = spec({ issueNumber: 77 });
      const outcomes = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).enqueue(same)),
        ...Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).enqueue(spec({ issueNumber: 77 }))),
      ]);
      const queued = outcomes.filter((o) => o.status === "queued");
      assert.equal(queued.length, 1);
      assert.ok(outcomes.every((o) => o.jobId === queued[0]?.jobId));
      const counts = await a.counts?.();
      if (counts) assert.equal(counts.queued, 1);
    });
  });

  test(`${name}: a malformed job is refused with a clear message and nothing is stored`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      await assert.rejects(
        q.enqueue({ ...spec(), issueNumber: -1, deliveryId: "" }),
        (err: Error) =>
          err.name === "UserError" && /issueNumber/.test(err.message) && /deliveryId/.test(err.message),
      );
      const counts = await q.counts?.();
      if (counts)
        assert.equal(
          Object.values(counts).reduce((a, b) => a + b, 0),
          0,
        );
    });
  });

  test(`${name}: checkpoints merge their data and the cleanup hook sees the finished job`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const out = await q.enqueue(spec());
      const cleaned: Job[] = [];
      q.start(
        async (job, ctx) => {
          assert.equal(job.attempts, 1);
          assert.equal(job.state, "running");
          await ctx.checkpoint("cloned", { dir: "/work/1" });
          await ctx.checkpoint("pushed", { branch: "auto-fix/issue-1" });
        },
        { cleanup: async (job) => void cleaned.push(job) },
      );
      const done = await finalState(q, out.jobId, "done");
      assert.equal(done.stage, "pushed");
      assert.deepEqual(done.checkpoint, { dir: "/work/1", branch: "auto-fix/issue-1" });
      await waitFor("cleanup", () => cleaned.length === 1);
      assert.equal(cleaned[0]?.state, "done");
      const counts = await q.counts?.();
      if (counts) assert.equal(counts.done, 1);
    });
  });

  test(`${name}: cancelling a queued job means it never runs; cancelling nothing says so`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const doomed = await q.enqueue(spec({ issueNumber: 7 }));
      assert.equal(await q.cancel("octo", "widgets", 7), true);
      assert.equal(await q.cancel("octo", "widgets", 7), false);
      assert.equal(await q.cancel("octo", "widgets", 999), false);
      assert.equal((await q.get(doomed.jobId))?.state, "cancelled");
      const kept = await q.enqueue(spec({ issueNumber: 8 }));
      const runs: string[] = [];
      q.start(async (job) => void runs.push(job.id));
      await finalState(q, kept.jobId, "done");
      assert.deepEqual(runs, [kept.jobId]);
      assert.equal((await q.get(doomed.jobId))?.state, "cancelled");
      // The issue is free again after a cancel.
      assert.equal((await q.enqueue(spec({ issueNumber: 7 }))).status, "queued");
    });
  });

  test(`${name}: cancelling a running job aborts its handler and cleans up`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const out = await q.enqueue(spec({ issueNumber: 5 }));
      const running = deferred();
      let reason: unknown;
      let lateCheckpoint: unknown;
      const cleaned: Job[] = [];
      q.start(
        async (_job, ctx) => {
          await ctx.checkpoint("cloned", { dir: "/tmp/w" });
          running.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          reason = ctx.signal.reason;
          await ctx.checkpoint("patched").catch((err: unknown) => {
            lateCheckpoint = err;
          });
          throw ctx.signal.reason;
        },
        { cleanup: async (job) => void cleaned.push(job) },
      );
      await running.promise;
      assert.equal(await q.cancel("octo", "widgets", 5), true);
      await waitFor("cleanup after cancel", () => cleaned.length === 1);
      assert.ok(reason instanceof JobCancelledError);
      assert.ok(lateCheckpoint instanceof JobCancelledError);
      const job = await q.get(out.jobId);
      assert.equal(job?.state, "cancelled");
      assert.equal(job?.stage, "cloned");
      assert.equal(cleaned[0]?.id, out.jobId);
      assert.equal(cleaned[0]?.state, "cancelled");
    });
  });

  test(`${name}: a cancel from another process's handle reaches the running job`, async () => {
    await withStore(make, async (open) => {
      const worker = open();
      const webhook = open();
      const out = await webhook.enqueue(spec({ issueNumber: 6 }));
      const running = deferred();
      let reason: unknown;
      const cleaned: Job[] = [];
      worker.start(
        async (_job, ctx) => {
          await ctx.checkpoint("cloned");
          running.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          reason = ctx.signal.reason;
          throw ctx.signal.reason;
        },
        { cleanup: async (job) => void cleaned.push(job) },
      );
      await running.promise;
      assert.equal(await webhook.cancel("octo", "widgets", 6), true);
      await waitFor("the worker to clean up", () => cleaned.length === 1);
      assert.ok(reason instanceof JobCancelledError);
      assert.equal((await webhook.get(out.jobId))?.state, "cancelled");
    });
  });

  test(`${name}: retryable failures run again; others fail with their reason`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const flaky = await q.enqueue(spec());
      const broken = await q.enqueue(spec());
      const seen = new Map<string, number>();
      const cleaned: Job[] = [];
      q.start(
        async (job) => {
          seen.set(job.id, (seen.get(job.id) ?? 0) + 1);
          if (job.id === flaky.jobId && job.attempts === 1) throw new RetryableError("rate limited");
          if (job.id === broken.jobId) throw new JobFailure("budget", "the run would exceed its budget");
        },
        { cleanup: async (job) => void cleaned.push(job) },
      );
      const ok = await finalState(q, flaky.jobId, "done");
      assert.equal(ok.attempts, 2);
      const bad = await finalState(q, broken.jobId, "failed");
      assert.equal(bad.reason, "budget");
      assert.match(bad.error ?? "", /exceed its budget/);
      assert.equal(seen.get(broken.jobId), 1);
      await waitFor("both cleanups", () => cleaned.length === 2);
    });
  });

  test(`${name}: stop lets a running stage finish within the grace period`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const out = await q.enqueue(spec());
      const running = deferred();
      const release = deferred();
      q.start(async (_job, ctx) => {
        running.resolve();
        await release.promise;
        await ctx.checkpoint("finished");
      });
      await running.promise;
      const stopped = q.stop(60_000);
      release.resolve();
      await stopped;
      const job = await q.get(out.jobId);
      assert.equal(job?.state, "done");
    });
  });

  test(`${name}: stop past the grace period aborts, requeues, and a new start resumes at the checkpoint`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const out = await q.enqueue(spec());
      const running = deferred();
      let reason: unknown;
      q.start(async (_job, ctx) => {
        await ctx.checkpoint("pushed", { branch: "auto-fix/issue-3" });
        running.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        reason = ctx.signal.reason;
        throw ctx.signal.reason;
      });
      await running.promise;
      await q.stop(10);
      assert.ok(reason instanceof JobShutdownError);
      const parked = await q.get(out.jobId);
      assert.equal(parked?.state, "queued");
      assert.equal(parked?.stage, "pushed");
      assert.equal(parked?.attempts, 0);

      const q2 = open();
      const resumed: Job[] = [];
      q2.start(async (job, ctx) => {
        resumed.push(structuredClone(job));
        await ctx.checkpoint("pr-opened", { pr: 12 });
      });
      const done = await finalState(q2, out.jobId, "done");
      assert.equal(resumed.length, 1);
      assert.equal(resumed[0]?.stage, "pushed");
      assert.deepEqual(resumed[0]?.checkpoint, { branch: "auto-fix/issue-3" });
      assert.deepEqual(done.checkpoint, { branch: "auto-fix/issue-3", pr: 12 });
      assert.equal(done.attempts, 1);
    });
  });

  test(`${name}: a handler that returns early on a shutdown abort is requeued, not marked done`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const out = await q.enqueue(spec());
      const running = deferred();
      q.start(async (_job, ctx) => {
        await ctx.checkpoint("cloned");
        running.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      });
      await running.promise;
      await q.stop(10);
      const job = await q.get(out.jobId);
      assert.equal(job?.state, "queued");
      assert.equal(job?.stage, "cloned");
    });
  });

  test(`${name}: jobs run side by side up to the concurrency`, async () => {
    await withStore(make, async (open) => {
      const q = open();
      const a = await q.enqueue(spec());
      const b = await q.enqueue(spec());
      const c = await q.enqueue(spec());
      let inFlight = 0;
      let peak = 0;
      const both = deferred();
      q.start(
        async () => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          if (inFlight === 2) both.resolve();
          // The first two jobs finish only once both run at the same time.
          await both.promise;
          inFlight -= 1;
        },
        { concurrency: 2 },
      );
      for (const j of [a, b, c]) await finalState(q, j.jobId, "done");
      assert.equal(peak, 2);
    });
  });
}
