/**
 * Scale-out end to end: the webhook server only enqueues into Redis; `auto-fix worker` processes run the
 * jobs. A worker is killed with SIGKILL in the middle of a run; two other workers finish everything.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import { sample, startWorld } from "./support/app-e2e.ts";
import { type RedisServer, startRedis } from "./support/redis-server.ts";
import { waitFor } from "./support/wait.ts";

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

test("app on Redis: server enqueues, a worker dies mid-run, two workers share the rest; one pull request per issue", async () => {
  const w = await startWorld({ REDIS_URL: redis.url, AUTO_FIX_JOB_LEASE_SECONDS: "2" });
  try {
    const issues = w.addIssues(2);
    const holdFile = join(w.dir, "release");
    const server = await w.start("server");
    const url = server.url!;
    const doomed = await w.start("worker", { holdFile });
    for (const [i, n] of issues.entries()) assert.equal(await w.label(url, n, `redis-delivery-${i}`), 200);
    assert.equal(await w.label(url, issues[0]!, "redis-delivery-0"), 200, "a repeated delivery");
    await waitFor("a run to reach the pipeline", () => w.events().some((e) => e.event === "holding"));
    // With REDIS_URL, Probot spaces GitHub writes through a Bottleneck limiter kept in Redis; a worker
    // killed in the middle of a write would hold the installation's write slot until Bottleneck expires
    // it (minutes). Kill the worker in its pipeline, once no write of its own is in flight.
    const bottleneck = new Redis(redis.url);
    await waitFor("no GitHub write in flight", async () => {
      const running = await bottleneck.hget("b_octokit-write-4242_settings", "running");
      return Number(running ?? 0) === 0;
    }).finally(() => bottleneck.disconnect());
    assert.equal(w.events().filter((e) => e.event === "pipeline").length, 1, "the server itself runs no job");
    doomed.proc.kill("SIGKILL");
    await doomed.exited;
    writeFileSync(holdFile, "");

    const health = (await (await fetch(`${url}/health`)).json()) as {
      status: string;
      queue: { kind: string };
      jobs: Record<string, number>;
    };
    assert.equal(health.status, "ok");
    assert.equal(health.queue.kind, "redis");
    assert.equal((health.jobs.queued ?? 0) + (health.jobs.running ?? 0), 2);

    const workers = [
      await w.start("worker", { barrier: 2, tag: "survivors" }),
      await w.start("worker", { barrier: 2, tag: "survivors" }),
    ];
    await waitFor("two pull requests", () => w.repo.pulls.size === 2, 120_000).catch((err: Error) => {
      const outputs = [server, ...workers].map((c) => c.output().slice(-6000)).join("\n----\n");
      throw new Error(`${err.message}\n${JSON.stringify(w.events())}\n${outputs}`);
    });
    await waitFor(
      "every job done",
      async () => {
        const m = await (await fetch(`${url}/metrics`)).text();
        return sample(m, 'autofix_jobs{state="done"}') === 2;
      },
      60_000,
    );

    const heads = [...w.repo.pulls.values()].map((p) => p.head).sort();
    assert.deepEqual(heads, issues.map((n) => `auto-fix/issue-${n}`).sort(), "one pull request per issue");
    const runs = w.events().filter((e) => e.event === "pipeline");
    assert.equal(runs.length, 3, "two runs plus the one that was killed");
    const survivors = runs.filter((e) => (e as { tag?: string }).tag === "survivors");
    assert.equal(survivors.length, 2);
    assert.equal(new Set(survivors.map((e) => e.pid)).size, 2, "both workers took jobs");
    const killedIssue = runs[0]?.issue;
    assert.equal(runs.filter((e) => e.issue === killedIssue).length, 2, "the killed run was taken up once");
    for (const n of issues) {
      const status = w.github
        .commentsOn("octo-org", "calc", n)
        .filter((c) => c.user.type === "Bot" && !/already in progress/.test(c.body));
      assert.equal(status.length, 1, `issue #${n} has one status comment`);
    }
    const m = await (await fetch(`${url}/metrics`)).text();
    assert.equal(sample(m, 'autofix_enqueue_total{outcome="queued"}'), 2);
    assert.equal(sample(m, 'autofix_enqueue_total{outcome="duplicate"}'), 1);
    for (const worker of workers) worker.proc.kill("SIGTERM");
    for (const worker of workers) await worker.exited;
    assert.equal(w.events().filter((e) => e.event === "exit").length, 2, "workers exit cleanly on SIGTERM");
  } finally {
    await w.close();
  }
});
