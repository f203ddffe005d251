/**
 * `npm start`: without APP_ID/PRIVATE_KEY it serves the setup page, which registers the app on GitHub
 * (GHE_HOST/GHE_PROTOCOL select a GitHub Enterprise server) with a webhook URL GitHub can reach; with
 * them it serves webhooks, `/health` and `/metrics`, and runs the jobs (the embedded store) or only
 * enqueues them (REDIS_URL). SIGTERM/SIGINT: done within AUTO_FIX_SHUTDOWN_GRACE_SECONDS (30).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { getPrivateKey } from "@probot/get-private-key";
import { Probot, run, Server } from "probot";
import { AutoFixOctokit } from "./octokit.ts";
import { stageWaitMs } from "../jobs/runner.ts";
import { checkModelAtStart } from "../model/endpoint-check.ts";
import { createLog } from "../ops/log.ts";
import { createReadiness } from "../ops/readiness.ts";
import {
  readWebhookSettings,
  settingsProblems,
  type WebhookSettings,
  WebhookSettingsError,
} from "../ops/webhook-url.ts";
import { createAutoFixApp } from "./app.ts";
import { createCliPipeline } from "../issue-run/cli-pipeline.ts";
import { createAppQueue } from "./queue.ts";
import { githubBaseUrl } from "./server.ts";
import { readSettings } from "../issue-run/settings.ts";
import { createSetupHandler, updateDotEnv } from "./setup-page.ts";
import { startWebhookProxy, type WebhookProxy } from "./webhook-proxy.ts";

const fail = (message: string, code = 1): never => {
  process.stderr.write(`auto-fix: ${message}\n`);
  process.exit(code);
};

// `.env` in the working directory, as Probot reads it (its values win over the environment's).
const dotenv = join(process.cwd(), ".env");
if (existsSync(dotenv)) {
  try {
    Object.assign(process.env, parseEnv(readFileSync(dotenv, "utf8")));
  } catch (err) {
    fail(`cannot read ${dotenv}: ${(err as Error).message}`);
  }
}
const env = process.env;
let webhook: WebhookSettings;
try {
  webhook = readWebhookSettings(env);
} catch (err) {
  if (!(err instanceof WebhookSettingsError)) throw err;
  webhook = fail(err.message, 2);
}
const log = await createLog(env);
for (const p of settingsProblems(webhook))
  log[p.level === "error" ? "error" : "warn"](`webhooks: ${p.message}`);

let hasKey = false;
try {
  hasKey = Boolean(getPrivateKey({ env }));
} catch (err) {
  fail(`the GitHub App's private key is unusable: ${(err as Error).message}`);
}
const credentials = Boolean(env.APP_ID) && hasKey;

// Said at once, while registering too: settings under old names, and the model (settings, price, one
// GET /models) when something would make every run fail.
const startSettings = readSettings(env);
for (const w of startSettings.warnings) process.stderr.write(`auto-fix: warning: ${w}\n`);
// The setup page and setup-mode /health name the same problems.
const startProblems: string[] = [];
void checkModelAtStart(env, process.cwd(), startSettings.maxCostUsdPerRun).then((r) => {
  for (const n of r.notes) process.stderr.write(`auto-fix: warning: ${n}\n`);
  for (const p of r.problems) process.stderr.write(`auto-fix: runs will fail: ${p}\n`);
  startProblems.push(...r.problems);
});

if (!credentials) await setup();
else await serve();

/** Setup mode: the registration page (and, in development, a webhook proxy channel made for it). */
async function setup(): Promise<void> {
  if (webhook.production) {
    fail("APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) are required in production (NODE_ENV=production)");
  }
  if (!webhook.proxyUrl && !webhook.publicUrl && env.NO_SMEE_SETUP !== "true") {
    webhook = { ...webhook, proxyUrl: await createProxyChannel() };
  }
  const port = Number(env.PORT) || 3000;
  const host = env.HOST || "localhost";
  const server = new Server({
    host,
    port,
    log,
    webhookPath: webhook.path,
    Probot: Probot.defaults({ appId: 1, privateKey: "unused until the app is registered", log }),
  });
  await server.load((_app, { addHandler }) => {
    addHandler(
      createSetupHandler({
        env,
        webhook,
        dir: process.cwd(),
        log,
        baseUrl: githubBaseUrl(env),
        problems: () => startProblems,
      }),
    );
  });
  try {
    await server.start();
  } catch (err) {
    fail(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
  }
  log.info(
    `auto-fix is not registered yet: open http://${host}:${server.port}/probot to register it on GitHub`,
  );
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void server.stop().finally(() => process.exit(0));
    });
  }
}

/**
 * In development, without a proxy or a public URL, a new smee.io channel (as Probot does), written to
 * `.env`: the app is registered with it and the proxy client forwards from it once restarted.
 */
async function createProxyChannel(): Promise<string | null> {
  const newChannelUrl = env.WEBHOOK_PROXY_NEW_CHANNEL_URL || "https://smee.io/new";
  try {
    const { SmeeClient } = await import("smee-client");
    const url = await Promise.race([
      SmeeClient.createChannel({ newChannelUrl }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no answer in 10 s")), 10_000).unref(),
      ),
    ]);
    new URL(url);
    updateDotEnv(process.cwd(), { WEBHOOK_PROXY_URL: url });
    log.info(`webhooks: created the proxy channel ${url} (WEBHOOK_PROXY_URL, written to .env)`);
    return url;
  } catch (err) {
    log.warn(`webhooks: could not create a proxy channel at ${newChannelUrl}: ${(err as Error).message}`);
    return null;
  }
}

/** Registered: webhooks, jobs, /health and /metrics, and a shutdown that fits in the grace period. */
async function serve(): Promise<void> {
  const settings = startSettings;
  const { queue, ledger, limits, runsJobsInProcess, registry, close } = createAppQueue(env);
  let stopping = false;
  const timers = new AbortController();
  let server: Server;
  try {
    server = await run(
      createAutoFixApp({
        queue,
        ledger,
        limits,
        settings,
        pipeline: createCliPipeline({ env }),
        model: env.AUTO_FIX_MODEL ?? "default",
        // With REDIS_URL the server only enqueues; `auto-fix worker` processes run the jobs.
        startWorkers: runsJobsInProcess,
        ops: {
          registry,
          isStopping: () => stopping,
          readiness: createReadiness(env, { maxCostUsdPerRun: settings.maxCostUsdPerRun }),
          webhook,
          githubApi: githubBaseUrl(env) ?? "https://api.github.com",
          ...(Number(env.AUTO_FIX_STUCK_DELIVERY_SECONDS) > 0 && {
            stuckAfterMs: Number(env.AUTO_FIX_STUCK_DELIVERY_SECONDS) * 1000,
          }),
        },
        signal: timers.signal,
      }),
      // The proxy channel is read by this app's own client (below), which reconnects when it drops.
      { log, Octokit: AutoFixOctokit, env: { ...env, WEBHOOK_PROXY_URL: "" } },
    );
  } catch (err) {
    fail(`cannot start: ${(err as Error).message}`);
    return;
  }
  let proxy: WebhookProxy | null = null;
  if (webhook.proxyUrl) {
    const host = server.host === "0.0.0.0" ? "127.0.0.1" : server.host === "[::]" ? "[::1]" : server.host;
    proxy = startWebhookProxy({
      source: webhook.proxyUrl,
      target: `http://${host}:${server.port}${webhook.path}`,
      log,
    });
  }
  const graceMs = 1000 * (Number(env.AUTO_FIX_SHUTDOWN_GRACE_SECONDS) || 30);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, async () => {
      const began = Date.now();
      let clean = false;
      // Whatever still holds the process (a call that ignored its abort) cannot keep it past the grace.
      setTimeout(() => {
        log.error(
          `shutdown: the grace period (${graceMs / 1000} s) is over before everything stopped; exiting`,
        );
        process.exit(clean ? 0 : 1);
      }, graceMs).unref();
      // No new webhooks (health turns 503 first); running jobs finish their stage or go back to the queue.
      stopping = true;
      timers.abort();
      const wait = stageWaitMs(graceMs);
      log.info(
        { signal, graceSeconds: graceMs / 1000 },
        `${signal}: no new webhooks or jobs; running jobs have ${Math.round(wait / 1000)} s to finish their stage, then go back to the queue`,
      );
      await proxy?.stop();
      await Promise.race([server.stop(), new Promise((r) => setTimeout(r, 2000).unref())]);
      await queue.stop(wait);
      await close();
      clean = true;
      const seconds = (Date.now() - began) / 1000;
      log.info({ signal, seconds }, `shutdown done in ${seconds.toFixed(1)} s`);
      process.exit(0);
    });
  }
}
