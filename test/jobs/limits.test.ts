import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createLimitStore } from "../../src/jobs/create-queue.ts";
import { type LimitStore, limitKeys, SqliteLimitStore } from "../../src/jobs/limits.ts";
import { RedisLimitStore } from "../../src/jobs/redis-limits.ts";
import { type RedisServer, startRedis } from "./support/redis-server.ts";
import { waitFor } from "./support/wait.ts";

let redis: RedisServer;
let dir: string;
let n = 0;

before(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), "af-limits-"));
});
after(async () => {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

const kinds: Array<[string, () => LimitStore]> = [
  ["embedded", () => new SqliteLimitStore({ dataDir: dir })],
  ["redis", () => new RedisLimitStore({ redisUrl: redis.url, prefix: "limits-test" })],
];

for (const [kind, open] of kinds) {
  test(`${kind} limits: takes up to the limit, refuses beyond it, and the refusal changes nothing`, async () => {
    const store = open();
    try {
      n += 1;
      const key = limitKeys.issueRuns("Octo", "Widgets", n);
      for (let i = 1; i <= 3; i++) {
        const d = await store.take(key, 1, 3, 60_000);
        assert.equal(d.allowed, true);
        assert.equal(d.value, i);
      }
      const refused = await store.take(key, 1, 3, 60_000);
      assert.equal(refused.allowed, false);
      assert.equal(refused.value, 3);
      assert.ok(refused.resetAt > Date.now());
      assert.equal(await store.get(key), 3);
      assert.equal(
        await store.get(limitKeys.issueRuns("octo", "widgets", n)),
        3,
        "names are case-insensitive",
      );
    } finally {
      await store.close();
    }
  });

  test(`${kind} limits: spend adds up in dollars and a budget check sees it`, async () => {
    const store = open();
    try {
      n += 1;
      const key = limitKeys.spend(`job-${n}`);
      assert.equal(await store.add(key, 0.25, 60_000), 0.25);
      assert.equal(await store.add(key, 0.5, 60_000), 0.75);
      assert.equal((await store.take(key, 0.3, 1, 60_000)).allowed, false);
      assert.equal((await store.take(key, 0.25, 1, 60_000)).allowed, true);
      assert.ok(Math.abs((await store.get(key)) - 1) < 1e-9);
      await assert.rejects(store.add(key, -1, 60_000), RangeError);
      await assert.rejects(store.take(key, Number.NaN, 1, 60_000), RangeError);
    } finally {
      await store.close();
    }
  });

  test(`${kind} limits: a reservation given back counts what was used, never below zero`, async () => {
    const store = open();
    try {
      n += 1;
      const key = limitKeys.repoSpendPerDay("Octo", `spend-${n}`);
      assert.equal((await store.take(key, 2, 5, 60_000)).allowed, true, "a run reserves its budget");
      assert.equal((await store.take(key, 2, 5, 60_000)).allowed, true);
      assert.equal((await store.take(key, 2, 5, 60_000)).allowed, false, "a third would pass the limit");
      assert.ok(Math.abs((await store.give(key, 1.6)) - 2.4) < 1e-9, "the first used 0.40 of its 2");
      assert.equal((await store.take(key, 2, 5, 60_000)).allowed, true, "now there is room again");
      assert.equal(await store.give(key, 100), 0);
      assert.equal(await store.give(`never-taken-${n}`, 1), 0);
      assert.equal(await store.get(`never-taken-${n}`), 0, "giving back creates no counter");
      await assert.rejects(store.give(key, -1), RangeError);
    } finally {
      await store.close();
    }
  });

  test(`${kind} limits: a window ends and the counter starts again`, async () => {
    const store = open();
    try {
      n += 1;
      const key = `runs:window-${n}`;
      assert.equal((await store.take(key, 1, 1, 150)).allowed, true);
      assert.equal((await store.take(key, 1, 1, 150)).allowed, false);
      await waitFor("the window to end", async () => (await store.get(key)) === 0);
      assert.equal((await store.take(key, 1, 1, 150)).allowed, true);
    } finally {
      await store.close();
    }
  });

  test(`${kind} limits: concurrent takes through two handles never pass the limit`, async () => {
    const a = open();
    const b = open();
    try {
      n += 1;
      const key = limitKeys.repoRunsPerDay("octo", `repo-${n}`);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(key, 1, 5, limitKeys.DAY_MS)),
      );
      assert.equal(results.filter((r) => r.allowed).length, 5);
      assert.equal(await a.get(key), 5);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

test("createLimitStore picks Redis when a URL is given and the embedded store otherwise", async () => {
  const r = createLimitStore({ redisUrl: redis.url, dataDir: dir, prefix: "pick" });
  const s = createLimitStore({ dataDir: dir });
  try {
    assert.ok(r instanceof RedisLimitStore);
    assert.ok(s instanceof SqliteLimitStore);
  } finally {
    await r.close();
    await s.close();
  }
});
