import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { spec } from "../jobs/support/specs.ts";
import { tempDir } from "../support/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../src/ops/backup-job-store.ts", import.meta.url));

test("the job store is backed up while the app holds it open, WAL included, and never over a file", async () => {
  const data = tempDir("af-backup-data-");
  const out = tempDir("af-backup-out-");
  const queue = new SqliteJobQueue({ dataDir: data });
  try {
    for (let i = 0; i < 5; i++) await queue.enqueue(spec());
    // The jobs are committed but may still sit in the write-ahead log, not in jobs.sqlite itself.
    assert.ok(existsSync(join(data, "jobs.sqlite-wal")));
    const dest = join(out, "jobs-backup.sqlite");
    const run = spawnSync(process.execPath, [SCRIPT, data, dest], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^backed up 5 jobs to /);
    const copy = new DatabaseSync(dest, { readOnly: true });
    const states = copy.prepare("SELECT state, count(*) AS n FROM jobs GROUP BY state").all();
    copy.close();
    assert.deepEqual(JSON.parse(JSON.stringify(states)), [{ state: "queued", n: 5 }]);

    const again = spawnSync(process.execPath, [SCRIPT, data, dest], { encoding: "utf8" });
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists: a backup never overwrites a file/);
    const none = spawnSync(process.execPath, [SCRIPT, join(data, "nope"), join(out, "x.sqlite")], {
      encoding: "utf8",
    });
    assert.match(none.stderr, /no job store at .*nope\/jobs\.sqlite/);
  } finally {
    await queue.close();
  }
});
