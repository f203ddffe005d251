import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { queueContract } from "./support/contract.ts";

queueContract("embedded store", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-jobs-"));
  return {
    open: () =>
      new SqliteJobQueue({ dataDir: dir, pollMs: 20, leaseMs: 5000, heartbeatMs: 50, retryBaseMs: 10 }),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
});
