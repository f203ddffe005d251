import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createRunLedger } from "../../src/jobs/create-queue.ts";
import { RedisRunLedger, SqliteRunLedger } from "../../src/jobs/run-ledger.ts";
import { type RedisServer, startRedis } from "./support/redis-server.ts";

let redis: RedisServer;
let dir: string;

before(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), "af-ledger-"));
});
after(async () => {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

const DAY = 24 * 3600 * 1000;

for (const kind of ["embedded", "redis"] as const) {
  test(`${kind} run ledger: counts runs in a sliding window, per repository, shared by every handle`, async () => {
    const open = () =>
      kind === "redis"
        ? createRunLedger({ redisUrl: redis.url, dataDir: dir, prefix: "ledger-test" })
        : createRunLedger({ dataDir: dir });
    const a = open();
    const b = open();
    try {
      assert.ok(kind === "redis" ? a instanceof RedisRunLedger : a instanceof SqliteRunLedger);
      const now = Date.UTC(2026, 0, 10, 12);
      await a.record("Octo/Widgets", now - 2 * DAY);
      await a.record("octo/widgets", now - DAY + 1000);
      await b.record("octo/widgets", now - 1000);
      await b.record("octo/widgets", now - 1000);
      await b.record("octo/other", now);
      assert.equal(await b.countSince("octo/widgets", now - DAY), 3);
      assert.equal(await a.countSince("OCTO/widgets", now - 3 * DAY), 4);
      assert.equal(await a.countSince("octo/other", now - DAY), 1);
      assert.equal(await a.countSince("nobody/none", now - DAY), 0);
      // Entries older than a week are dropped when new ones are recorded.
      await a.record("octo/widgets", now + 8 * DAY);
      assert.equal(await a.countSince("octo/widgets", 0), 1);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

for (const kind of ["embedded", "redis"] as const) {
  test(`${kind} run ledger: concurrent reservations from several handles never exceed the limit`, async () => {
    const open = () =>
      kind === "redis"
        ? createRunLedger({ redisUrl: redis.url, dataDir: dir, prefix: "reserve-test" })
        : createRunLedger({ dataDir: dir });
    const handles = [open(), open(), open()];
    try {
      const now = Date.UTC(2026, 2, 1, 12);
      await handles[0]!.record("octo/busy", now - 2 * DAY);
      await handles[0]!.record("octo/busy", now - 1000);
      // 12 admissions at once for the last 3 slots of a limit of 4 per day.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => handles[i % 3]!.reserve("octo/busy", now + i, DAY, 4)),
      );
      assert.equal(results.filter((r) => r.allowed).length, 3);
      assert.deepEqual(
        results
          .filter((r) => r.allowed)
          .map((r) => r.count)
          .sort(),
        [1, 2, 3],
        "each granted slot saw the ones granted before it",
      );
      assert.ok(results.filter((r) => !r.allowed).every((r) => r.count === 4));
      assert.equal(await handles[1]!.countSince("octo/busy", now - DAY), 4);
    } finally {
      for (const h of handles) await h.close();
    }
  });
}
