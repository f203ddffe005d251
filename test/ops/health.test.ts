import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { healthReport, type OpsDeps } from "../../src/ops/http.ts";
import { MetricsRegistry } from "../../src/ops/metrics.ts";
import { readSettings } from "../../src/issue-run/settings.ts";
import { createReadiness } from "../../src/ops/readiness.ts";
import { startFakeGitHub } from "../support/fake-github.ts";
import { tempDir } from "../support/temp.ts";
import { startApp } from "./support/app-process.ts";

/** A local model: no price in the table, so it is given one (it costs nothing). */
const MODEL = {
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  AUTO_FIX_MODEL: "qwen2.5-coder:7b",
  AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
  AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
  PATH: process.env.PATH,
};

async function report(env: NodeJS.ProcessEnv, over: Partial<OpsDeps> = {}) {
  const queue = new SqliteJobQueue({ dataDir: tempDir("af-health-") });
  try {
    const cwd = tempDir("af-health-cwd-");
    return await healthReport({
      registry: new MetricsRegistry(),
      queue,
      role: "worker",
      runsJobs: true,
      readiness: createReadiness(env, { cwd, maxCostUsdPerRun: readSettings(env).maxCostUsdPerRun }),
      ...over,
    });
  } finally {
    await queue.close();
  }
}

test("a process that runs jobs is not ok without a model, and says what to set", async () => {
  const r = await report({ PATH: process.env.PATH });
  assert.equal(r.status, "unavailable");
  assert.equal(r.model?.ok, false);
  assert.match(r.model?.detail ?? "", /no model configured: set AUTO_FIX_MODEL/);
  assert.ok(
    r.problems.some((p) => p.startsWith("model: no model configured")),
    r.problems.join("\n"),
  );
});

test("a model whose dollar budget cannot be enforced (no known price) is not ok, naming the settings", async () => {
  const r = await report({ ...MODEL, AUTO_FIX_PRICE_INPUT_PER_MTOK: "", AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "" });
  assert.equal(r.status, "unavailable");
  assert.match(r.model?.detail ?? "", /has no known price.*AUTO_FIX_PRICE_INPUT_PER_MTOK/);
  const tokens = await report({
    ...MODEL,
    AUTO_FIX_PRICE_INPUT_PER_MTOK: "",
    AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "",
    AUTO_FIX_MAX_TOKENS_PER_RUN: "200000",
  });
  assert.ok(
    !tokens.problems.some((p) => /price/.test(p)),
    `a token budget is enforceable without a price: ${tokens.problems.join("; ")}`,
  );
  assert.match(
    tokens.model?.reachable?.detail ?? "",
    /cannot reach the model endpoint/,
    "and the endpoint is asked",
  );
});

test("with a model that answers and the bubblewrap sandbox working, health is ok and names both (never the key)", async () => {
  const server = createServer((req, res) => {
    if (req.headers.authorization === "Bearer sk-secret-value" && req.url?.startsWith("/v1/models"))
      res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
    else res.writeHead(401, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  try {
    const r = await report({
      ...MODEL,
      OPENAI_API_KEY: "sk-secret-value",
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    assert.deepEqual(r.problems, []);
    assert.equal(r.status, "ok");
    assert.deepEqual(
      {
        ok: r.model?.ok,
        name: r.model?.name,
        endpoint: r.model?.endpoint,
        reachable: r.model?.reachable?.ok,
      },
      { ok: true, name: "qwen2.5-coder:7b", endpoint: `http://127.0.0.1:${port}/v1`, reachable: true },
    );
    assert.deepEqual({ ok: r.sandbox?.ok, backend: r.sandbox?.backend }, { ok: true, backend: "bwrap" });
    assert.doesNotMatch(JSON.stringify(r), /sk-secret-value/);
    const refused = await report({
      ...MODEL,
      OPENAI_API_KEY: "sk-wrong",
      OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    assert.equal(refused.status, "unavailable");
    assert.ok(
      refused.problems.some((p) => /^model: the model endpoint refused the key \(HTTP 401\)/.test(p)),
      refused.problems.join("\n"),
    );
  } finally {
    server.close();
  }
});

test("no sandbox is not ok unless explicitly allowed; a backend that cannot run says why", async () => {
  const none = await report({ ...MODEL, AUTO_FIX_SANDBOX: "none" });
  assert.equal(none.status, "unavailable");
  assert.match(none.sandbox?.detail ?? "", /explicit opt-in \(AUTO_FIX_ALLOW_NO_SANDBOX=1/);
  const allowed = await report({ ...MODEL, AUTO_FIX_SANDBOX: "none", AUTO_FIX_ALLOW_NO_SANDBOX: "1" });
  assert.ok(!allowed.problems.some((p) => p.startsWith("sandbox")), allowed.problems.join("\n"));
  assert.equal(allowed.sandbox?.backend, "none");
  assert.match(allowed.sandbox?.detail ?? "", /repository code runs unconfined/);
  // No docker daemon answers on this machine's default socket path here.
  const docker = await report({
    ...MODEL,
    AUTO_FIX_SANDBOX: "docker",
    DOCKER_HOST: "unix:///nonexistent/docker.sock",
  });
  assert.equal(docker.status, "unavailable");
  assert.equal(docker.sandbox?.ok, false);
  assert.ok(docker.problems.some((p) => p.startsWith("sandbox: ")));
});

test("a webhook server that only enqueues (Redis) needs neither model nor sandbox; a closed store is not ok", async () => {
  const r = await report(
    { PATH: process.env.PATH, AUTO_FIX_SANDBOX: "none" },
    { runsJobs: false, role: "app" },
  );
  assert.equal(r.status, "ok", r.problems.join("\n"));
  assert.equal(r.model?.required, false);
  assert.equal(r.model?.ok, false, "still shown");
  const queue = new SqliteJobQueue({ dataDir: tempDir("af-health-") });
  await queue.close();
  const closed = await healthReport({ registry: new MetricsRegistry(), queue, role: "app" });
  assert.equal(closed.status, "unavailable");
  assert.ok(
    closed.problems.some((p) => p.startsWith("job store (embedded): ")),
    closed.problems.join("\n"),
  );
});

test("npm start without a model answers /health with 503 and the reason", async () => {
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  const cwd = tempDir("af-health-app-");
  const app = await startApp(
    {
      APP_ID: "7",
      PRIVATE_KEY: key,
      WEBHOOK_SECRET: "s",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
      AUTO_FIX_DATA_DIR: `${cwd}/data`,
    },
    { cwd },
  );
  try {
    const res = await fetch(`${app.url}/health`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { status: string; role: string; problems: string[] };
    assert.equal(body.role, "app");
    assert.ok(
      body.problems.some((p) => /^model: no model configured/.test(p)),
      body.problems.join("\n"),
    );
    // A poller asking again and again: one log line for the state, none per request, no stack trace.
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${app.url}/health`)).status, 503);
    await fetch(`${app.url}/metrics`);
    const said = app.logs().filter((l) => /health/.test(String(l.msg)));
    assert.equal(said.length, 1, app.output());
    assert.match(String(said[0]?.msg), /^health: unavailable: model: no model configured/);
    assert.doesNotMatch(app.output(), /failed with status code 503|GET \/health|at onResFinished/);
  } finally {
    await app.stop();
    await github.close();
  }
});

test("in setup mode, /health, the setup page and the log name the same problems: registration and the model", async () => {
  const cwd = tempDir("af-health-setup-");
  const app = await startApp(
    { NO_SMEE_SETUP: "true", AUTO_FIX_PUBLIC_URL: "https://autofix.example.com" },
    { cwd },
  );
  try {
    // The model check at start is said in the log first.
    const deadline = Date.now() + 10_000;
    while (!/runs will fail: no model configured/.test(app.output()) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    assert.match(app.output(), /runs will fail: no model configured/);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${app.url}/health`);
      assert.equal(res.status, 503);
      const body = (await res.json()) as { role: string; problems: string[] };
      assert.equal(body.role, "setup");
      assert.match(body.problems.join("\n"), /^setup: auto-fix is not registered yet/m);
      assert.match(body.problems.join("\n"), /^model: no model configured: set AUTO_FIX_MODEL/m);
    }
    const page = await (await fetch(`${app.url}/probot`)).text();
    assert.match(page, /<ul class="problem" id="run-problems">\n<li>no model configured: set AUTO_FIX_MODEL/);
    const said = app.logs().filter((l) => /^health: /.test(String(l.msg)));
    assert.equal(said.length, 1, app.output());
    assert.doesNotMatch(app.output(), /failed with status code 503|at onResFinished/);
  } finally {
    await app.stop();
  }
});
