/**
 * The app started with each part a run needs broken: what /health answers, what /metrics says, and the
 * log line — and the same with the part working, so that a passing check is a real one.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Redis } from "ioredis";
import { RedisJobQueue } from "../../src/jobs/redis-queue.ts";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { freePort } from "../../src/app/server.ts";
import { healthReport } from "../../src/ops/http.ts";
import { MetricsRegistry } from "../../src/ops/metrics.ts";
import { createReadiness } from "../../src/ops/readiness.ts";
import { startRedis } from "../jobs/support/redis-server.ts";
import { startFakeGitHub } from "../support/fake-github.ts";
import { tempDir } from "../support/temp.ts";
import { modelServer } from "./support/model-endpoint.ts";
import { labeledPayload, deliverIssues, startApp, until } from "./support/app-process.ts";

const modelEnv = (baseUrl: string) => ({
  OPENAI_BASE_URL: baseUrl,
  OPENAI_API_KEY: "sk-test",
  AUTO_FIX_MODEL: "local-coder",
  AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
  AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
});

const appKey = () =>
  generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();

type Health = {
  status: string;
  problems: string[];
  warnings: string[];
  model?: { ok: boolean; reachable: { ok: boolean; detail: string } | null };
  sandbox?: { ok: boolean; detail: string };
  github?: { ok: boolean | null; detail: string };
  deliveries?: { held: { deliveryId: string; ageSeconds: number; working: boolean }[]; stuck: number };
};

async function health(url: string): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${url}/health`);
  return { code: res.status, body: (await res.json()) as Health };
}

test("a model endpoint that refuses connections makes /health 503 with the reason; one that answers is ok", async () => {
  const port = await freePort();
  const cwd = tempDir("af-hb-model-");
  const queue = new SqliteJobQueue({ dataDir: tempDir("af-hb-q-") });
  const live = await modelServer();
  try {
    const down = modelEnv(`http://127.0.0.1:${port}/v1`);
    const r = await healthReport({
      registry: new MetricsRegistry(),
      queue,
      role: "worker",
      runsJobs: true,
      readiness: createReadiness({ ...down, PATH: process.env.PATH }, { cwd, maxCostUsdPerRun: 2 }),
    });
    assert.equal(r.status, "unavailable");
    assert.equal(r.model?.ok, false);
    assert.match(r.model?.reachable?.detail ?? "", /cannot reach the model endpoint .*ECONNREFUSED/);
    assert.ok(
      r.problems.some((p) => /^model: cannot reach the model endpoint/.test(p)),
      r.problems.join("\n"),
    );
    const up = await healthReport({
      registry: new MetricsRegistry(),
      queue,
      role: "worker",
      runsJobs: true,
      readiness: createReadiness(
        { ...modelEnv(live.url), PATH: process.env.PATH },
        { cwd, maxCostUsdPerRun: 2 },
      ),
    });
    assert.deepEqual(up.problems, []);
    assert.equal(up.model?.reachable?.ok, true);
    assert.ok(up.disk && up.disk.length > 0 && up.disk.every((d) => d.ok && (d.freeBytes ?? 0) > 0));
  } finally {
    await queue.close();
    await live.close();
  }
});

test("npm start with the model endpoint down: /health 503, /metrics says so, the log says runs will fail", async () => {
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const cwd = tempDir("af-hb-app-");
  const app = await startApp(
    {
      APP_ID: "7",
      PRIVATE_KEY: appKey(),
      WEBHOOK_SECRET: "s",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
      AUTO_FIX_DATA_DIR: `${cwd}/data`,
      ...modelEnv(`http://127.0.0.1:${await freePort()}/v1`),
    },
    { cwd },
  );
  try {
    const { code, body } = await health(app.url);
    assert.equal(code, 503);
    assert.ok(
      body.problems.some((p) => /^model: cannot reach the model endpoint .*ECONNREFUSED/.test(p)),
      body.problems.join("\n"),
    );
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    assert.match(metrics, /^auto_fix_health_status 2$/m);
    assert.match(metrics, /^auto_fix_check_ok\{check="model_endpoint"\} 0$/m);
    assert.match(metrics, /^auto_fix_check_ok\{check="sandbox"\} 1$/m);
    await until("the start-up model check", () =>
      /runs will fail: cannot reach the model endpoint/.test(app.output()),
    );
  } finally {
    await app.stop();
    await github.close();
  }
});

test("npm start with GitHub unreachable: /health 503 naming GitHub, and a log line saying what to check", async () => {
  const cwd = tempDir("af-hb-gh-");
  const live = await modelServer();
  const app = await startApp(
    {
      APP_ID: "7",
      PRIVATE_KEY: appKey(),
      WEBHOOK_SECRET: "s",
      GHE_HOST: `127.0.0.1:${await freePort()}`,
      GHE_PROTOCOL: "http",
      AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
      AUTO_FIX_DATA_DIR: `${cwd}/data`,
      ...modelEnv(live.url),
    },
    { cwd },
  );
  try {
    await until("the GitHub check", async () => (await health(app.url)).body.github?.ok === false);
    const { code, body } = await health(app.url);
    assert.equal(code, 503);
    assert.ok(
      body.problems.some((p) =>
        /^github: cannot reach GitHub's API at http:\/\/127\.0\.0\.1:\d+\/api\/v3/.test(p),
      ),
      body.problems.join("\n"),
    );
    assert.equal(body.model?.ok, true, "the model itself is fine");
    const line = app.logs().find((l) => /^github: cannot reach GitHub's API/.test(String(l.msg)));
    assert.ok(line, app.output());
    assert.match(String(line.msg), /check the network, a proxy, or GHE_HOST/);
  } finally {
    await app.stop();
    await live.close();
  }
});

test("a delivery stuck on a GitHub that does not answer is listed with its age; /metrics counts it", async () => {
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const repo = github.addRepo("o", "r", { cloneUrl: "http://127.0.0.1:9/o/r.git" });
  repo.files.set(".github/auto-fix.yml", "label: needs-fix\n");
  const issue = github.addIssue("o", "r", { title: "t", body: "b" });
  const live = await modelServer();
  const cwd = tempDir("af-hb-stuck-");
  const app = await startApp(
    {
      APP_ID: "7",
      PRIVATE_KEY: appKey(),
      WEBHOOK_SECRET: "s",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
      AUTO_FIX_DATA_DIR: `${cwd}/data`,
      AUTO_FIX_STUCK_DELIVERY_SECONDS: "1",
      ...modelEnv(live.url),
    },
    { cwd },
  );
  let release = () => {};
  try {
    await until("the GitHub check", async () => (await health(app.url)).body.github?.ok === true);
    const before = await health(app.url);
    assert.equal(before.code, 200, before.body.problems.join("\n"));
    assert.equal(before.body.status, "ok", before.body.warnings.join("\n"));
    release = github.holdResponses();
    const payload = labeledPayload(issue.number, repo.cloneUrl, "needs-fix", "mona");
    assert.equal(
      (await deliverIssues(`${app.url}/api/github/webhooks`, "s", "d-stuck", payload)).status,
      200,
    );
    await until(
      "the delivery to be stuck",
      async () => ((await health(app.url)).body.deliveries?.stuck ?? 0) > 0,
    );
    const { code, body } = await health(app.url);
    assert.equal(code, 200, "runs still work: degraded, not unavailable");
    assert.equal(body.status, "degraded");
    const held = body.deliveries?.held.find((h) => h.deliveryId === "d-stuck");
    assert.ok(held?.working && held.ageSeconds >= 1, JSON.stringify(body.deliveries));
    assert.ok(
      body.warnings.some((w) => /not finished after 1 s \(oldest d-stuck, issues\.labeled/.test(w)),
      body.warnings.join("\n"),
    );
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    assert.match(metrics, /^auto_fix_stuck_deliveries 1$/m);
    assert.match(metrics, /^auto_fix_held_deliveries 1$/m);
    release();
    await until(
      "the delivery to finish",
      async () => (await health(app.url)).body.deliveries?.held.length === 0,
    );
    assert.equal((await health(app.url)).body.status, "ok");
  } finally {
    release();
    await app.stop();
    await github.close();
    await live.close();
  }
});

test("a sandbox that cannot start (TMPDIR the sandbox uid cannot traverse) makes /health 503 with its own message", async () => {
  // A folder only root may enter, with the temporary folder below it.
  const locked = tempDir("af-hb-locked-");
  const tmp = join(locked, "tmp");
  mkdirSync(tmp);
  chmodSync(locked, 0o700);
  const live = await modelServer();
  const cwd = tempDir("af-hb-sbx-");
  const queue = new SqliteJobQueue({ dataDir: tempDir("af-hb-q-") });
  const child = await import("node:child_process");
  try {
    // The sandbox reads the process's TMPDIR: checked in a process of its own with it set.
    const script = `
      import { checkSandbox } from ${JSON.stringify(new URL("../../src/ops/readiness.ts", import.meta.url).href)};
      import { openRunSandbox } from ${JSON.stringify(new URL("../../src/sandbox/index.ts", import.meta.url).href)};
      const health = await checkSandbox(process.env);
      const run = await openRunSandbox({ backend: "auto", image: null }, process.env);
      process.stdout.write(JSON.stringify({ health, problem: run.problem }));
    `;
    const out = child.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      encoding: "utf8",
    });
    const { health: h, problem } = JSON.parse(out) as {
      health: { ok: boolean; detail: string };
      problem: string;
    };
    assert.equal(h.ok, false);
    assert.match(h.detail, new RegExp(`the temporary folder ${tmp} is not reachable .*set TMPDIR`));
    assert.equal(problem, h.detail, "a run is told the same sentence (not an internal error)");
    // The same with an ordinary TMPDIR works.
    const ok = JSON.parse(
      child.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { PATH: process.env.PATH, TMPDIR: "/tmp" },
        encoding: "utf8",
      }),
    ) as { health: { ok: boolean }; problem: string | null };
    assert.deepEqual({ ok: ok.health.ok, problem: ok.problem }, { ok: true, problem: null });
  } finally {
    chmodSync(locked, 0o755);
    await queue.close();
    await live.close();
  }
  void cwd;
});

test("npm start whose TMPDIR the sandbox cannot use: /health 503 names the folder and the fix", async () => {
  const locked = tempDir("af-hb-locked2-");
  const tmp = join(locked, "tmp");
  mkdirSync(tmp);
  chmodSync(locked, 0o700);
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const live = await modelServer();
  const cwd = tempDir("af-hb-sbxapp-");
  const app = await startApp(
    {
      APP_ID: "7",
      PRIVATE_KEY: appKey(),
      WEBHOOK_SECRET: "s",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
      AUTO_FIX_DATA_DIR: `${cwd}/data`,
      TMPDIR: tmp,
      ...modelEnv(live.url),
    },
    { cwd },
  );
  try {
    const { code, body } = await health(app.url);
    assert.equal(code, 503);
    assert.ok(
      body.problems.some(
        (p) =>
          p ===
          `sandbox: the temporary folder ${tmp} is not reachable by the sandbox's unprivileged uid; set TMPDIR to a folder whose parents are world-traversable (e.g. /tmp)`,
      ),
      body.problems.join("\n"),
    );
  } finally {
    await app.stop();
    chmodSync(locked, 0o755);
    await github.close();
    await live.close();
  }
});

test("Redis without appendonly: health is degraded and says how to make it durable; with it, ok", async () => {
  const redis = await startRedis();
  const queue = new RedisJobQueue({ redisUrl: redis.url, prefix: "hb" });
  const admin = new Redis(redis.url);
  try {
    const report = () => healthReport({ registry: new MetricsRegistry(), queue, role: "app" });
    const durable = await report();
    assert.equal(durable.status, "ok", durable.warnings.join("\n"));
    assert.deepEqual(durable.queue.durable, { ok: true, detail: "appendonly yes" });
    await admin.config("SET", "appendonly", "no");
    const r = await report();
    assert.equal(r.status, "degraded");
    assert.equal(r.queue.durable?.ok, false);
    assert.ok(
      r.warnings.some((w) =>
        /^job store \(redis\): Redis runs with appendonly no: .*set appendonly yes/.test(w),
      ),
      r.warnings.join("\n"),
    );
  } finally {
    admin.disconnect();
    await queue.stop?.(0);
    await queue.close?.();
    await redis.stop();
  }
});
