/**
 * The GitHub App end to end with real processes: Probot server, durable queue, git over HTTP, fake GitHub.
 * kill -9 in the middle of a run, repeated deliveries, /health and /metrics.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sample, startWorld } from "./support/app-e2e.ts";
import { waitFor } from "./support/wait.ts";

test("app on the embedded store: a repeated delivery and a second label start one run; kill -9 mid-run, restart, one pull request", async () => {
  const w = await startWorld();
  try {
    const [issue] = w.addIssues(1) as [number];
    const holdFile = join(w.dir, "release");
    const first = await w.start("server", { holdFile });
    const url = first.url!;
    assert.equal(await w.label(url, issue, "delivery-1"), 200);
    assert.equal(await w.label(url, issue, "delivery-1"), 200, "the repeated delivery is acknowledged");
    assert.equal(await w.label(url, issue, "delivery-2"), 200, "a second label while the run is active");
    await waitFor("the run to reach the pipeline", () => w.events().some((e) => e.event === "holding"));

    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.equal(sample(metrics, 'autofix_enqueue_total{outcome="queued"}'), 1);
    assert.equal(sample(metrics, 'autofix_enqueue_total{outcome="duplicate"}'), 1);
    assert.equal(sample(metrics, 'autofix_enqueue_total{outcome="active"}'), 1);
    assert.equal(sample(metrics, 'autofix_jobs{state="running"}'), 1);
    assert.ok((sample(metrics, 'autofix_stage_duration_seconds_count{stage="cloned"}') ?? 0) >= 1);

    first.proc.kill("SIGKILL");
    await first.exited;
    assert.equal(w.repo.pulls.size, 0);
    writeFileSync(holdFile, "");

    const second = await w.start("server");
    await waitFor("the pull request", () => w.repo.pulls.size === 1, 90_000);
    const health = await waitFor(
      "the job to be done",
      async () => {
        const h = (await (await fetch(`${second.url}/health`)).json()) as { jobs: Record<string, number> };
        return h.jobs.done === 1 ? h : undefined;
      },
      60_000,
    );
    assert.deepEqual(health.jobs, { queued: 0, running: 0, done: 1, failed: 0, cancelled: 0 });

    const runs = w.events().filter((e) => e.event === "pipeline");
    assert.equal(runs.length, 2, "the killed run and the resumed one; no other run started");
    assert.notEqual(runs[0]?.pid, runs[1]?.pid);
    const pull = [...w.repo.pulls.values()][0]!;
    assert.equal(pull.head, `auto-fix/issue-${issue}`);
    assert.match(w.git.git("octo-org/calc", ["show", `auto-fix/issue-${issue}:calc.py`]), /return a \+ b/);
    // The status comment was posted once: the resumed run found it through its checkpoint.
    const posts = w.github.calls.filter((c) => c.method === "POST");
    assert.equal(posts.filter((c) => c.path === "/repos/octo-org/calc/pulls").length, 1);
    assert.equal(posts.filter((c) => c.path.endsWith("/reactions")).length, 1);
    const bot = w.github.commentsOn("octo-org", "calc", issue).filter((c) => c.user.type === "Bot");
    const notices = bot.filter((c) => /already in progress/.test(c.body));
    const status = bot.filter((c) => !/already in progress/.test(c.body));
    assert.equal(notices.length, 1, "the second label was told a run is active");
    assert.equal(status.length, 1, "one status comment");
    assert.match(status[0]?.body ?? "", /pull request #\d+/i);

    const metrics2 = await (await fetch(`${second.url}/metrics`)).text();
    assert.equal(sample(metrics2, 'autofix_model_tokens_total{kind="prompt"}'), 1000);
    assert.equal(sample(metrics2, "autofix_model_cost_usd_total"), 0.01);
    assert.equal(sample(metrics2, 'autofix_job_runs_total{outcome="done"}'), 1);
    second.proc.kill("SIGTERM");
    await second.exited;
  } finally {
    await w.close();
  }
});
