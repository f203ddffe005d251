/** Real processes on the embedded store: kill -9 in the middle of a run, SIGTERM with a grace period. */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { type Child, readEvents, reap, spawnWorker } from "./support/children.ts";
import { spec } from "./support/specs.ts";
import { waitFor } from "./support/wait.ts";

test("embedded store: a worker killed with SIGKILL mid-run is taken up after restart; each stage runs once", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-crash-"));
  const logFile = join(dir, "events.jsonl");
  const q = new SqliteJobQueue({ dataDir: dir });
  let first: Child | undefined;
  let second: Child | undefined;
  try {
    const out = await q.enqueue(spec());
    first = spawnWorker({ dataDir: dir, logFile, hangAfter: "pushed", leaseMs: 60_000 });
    await waitFor("the first worker to reach 'pushed'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    first.proc.kill("SIGKILL");
    assert.equal((await first.exited).signal, "SIGKILL");
    const held = await q.get(out.jobId);
    assert.equal(held?.state, "running");
    assert.equal(held?.stage, "pushed");

    // The lease (60 s) has not expired, but its holder is dead: the restarted worker takes the job at once.
    second = spawnWorker({ dataDir: dir, logFile, leaseMs: 60_000 });
    const done = await waitFor("the job to complete", async () => {
      const j = await q.get(out.jobId);
      return j?.state === "done" ? j : undefined;
    });
    second.proc.kill("SIGTERM");
    assert.equal((await second.exited).code, 0, second.stderr());

    const events = readEvents(logFile).filter((e) => e.job === out.jobId);
    const stages = events.filter((e) => e.event === "stage").map((e) => e.stage);
    assert.deepEqual(stages, ["cloned", "pushed", "pr-opened"], "no stage repeated");
    assert.equal(events.filter((e) => e.event === "completed").length, 1);
    const starts = events.filter((e) => e.event === "start");
    assert.equal(starts.length, 2);
    assert.equal(starts[1]?.stage, "pushed", "the second run resumed from the checkpoint");
    assert.notEqual(starts[0]?.pid, starts[1]?.pid);
    assert.equal(done.attempts, 2);
    assert.deepEqual(done.checkpoint, { cloned: true, pushed: true, "pr-opened": true });
  } finally {
    await reap(first);
    await reap(second);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("embedded store: SIGTERM past the grace period requeues the job at its checkpoint and exits cleanly", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-term-"));
  const logFile = join(dir, "events.jsonl");
  const q = new SqliteJobQueue({ dataDir: dir });
  let child: Child | undefined;
  try {
    const out = await q.enqueue(spec());
    child = spawnWorker({ dataDir: dir, logFile, hangAfter: "cloned", graceMs: 50 });
    await waitFor("the worker to reach 'cloned'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    child.proc.kill("SIGTERM");
    assert.equal((await child.exited).code, 0, child.stderr());
    assert.ok(readEvents(logFile).some((e) => e.event === "exit"));
    const job = await q.get(out.jobId);
    assert.equal(job?.state, "queued");
    assert.equal(job?.stage, "cloned");
    assert.equal(job?.attempts, 0);
  } finally {
    await reap(child);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("embedded store: a job whose worker dies more often than allowed fails with lease-expired, not a loop", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-loop-"));
  const logFile = join(dir, "events.jsonl");
  const q = new SqliteJobQueue({ dataDir: dir });
  let first: Child | undefined;
  let second: Child | undefined;
  try {
    const out = await q.enqueue(spec());
    const later = await q.enqueue(spec());
    first = spawnWorker({ dataDir: dir, logFile, hangAfter: "cloned", maxAttempts: 1 });
    await waitFor("the worker to reach 'cloned'", () =>
      readEvents(logFile).some((e) => e.event === "hanging"),
    );
    first.proc.kill("SIGKILL");
    await first.exited;
    second = spawnWorker({ dataDir: dir, logFile, maxAttempts: 1 });
    await waitFor("the next job to complete", async () => (await q.get(later.jobId))?.state === "done");
    const job = await q.get(out.jobId);
    assert.equal(job?.state, "failed");
    assert.equal(job?.reason, "lease-expired");
    assert.match(job?.error ?? "", /stopped responding 1 times/);
    assert.equal(readEvents(logFile).filter((e) => e.job === out.jobId && e.event === "start").length, 1);
  } finally {
    await reap(first);
    await reap(second);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});
