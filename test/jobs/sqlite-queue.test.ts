import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { queueContract } from "./support/contract.ts";
import { spec } from "./support/specs.ts";
import { waitFor } from "./support/wait.ts";

queueContract("embedded store", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-jobs-"));
  return {
    open: () =>
      new SqliteJobQueue({ dataDir: dir, pollMs: 20, leaseMs: 5000, heartbeatMs: 50, retryBaseMs: 10 }),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
});

test("embedded store: old finished jobs and delivery ids are pruned; active ones stay", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-prune-"));
  const q = new SqliteJobQueue({ dataDir: dir, pollMs: 20, retainMs: 60_000 });
  try {
    const finished = await q.enqueue(spec());
    q.start(async () => {});
    await waitFor("the job to finish", async () => (await q.get(finished.jobId))?.state === "done");
    await q.stop();
    const waiting = await q.enqueue(spec());
    assert.equal(q.prune(Date.now()), 0, "nothing is old yet");
    assert.equal(q.prune(Date.now() + 120_000), 1);
    assert.equal(await q.get(finished.jobId), null);
    assert.equal((await q.get(waiting.jobId))?.state, "queued");
    const again = await q.get(waiting.jobId);
    assert.equal(
      (await q.enqueue(again!.spec)).status,
      "duplicate",
      "an active job's delivery is remembered",
    );
  } finally {
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});
