/**
 * The setup flow as a new user goes through it, recorded end to end with real processes: `npm start`
 * without credentials, the setup page fetched, its form posted to GitHub (the fake, which plays GitHub's
 * web side of the manifest flow too), GitHub's redirect back with the code, the `.env` written, the
 * restart, and a webhook delivered to the URL GitHub was given.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { test } from "node:test";
import { parse as parseYaml } from "yaml";
import { startFakeGitHub } from "../support/fake-github.ts";
import { tempDir } from "../support/temp.ts";
import {
  type AppProcess,
  deliverIssues,
  labeledPayload,
  ROOT,
  signature,
  startApp,
  until,
} from "./support/app-process.ts";

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** The setup page's form: where it posts and the manifest it posts. */
function readForm(html: string): { action: string; manifest: Record<string, unknown> } | null {
  const action = /<form action="([^"]+)" method="post">/.exec(html)?.[1];
  const value = /name="manifest" id="manifest" value="([^"]*)"/.exec(html)?.[1];
  if (!action || value === undefined) return null;
  return {
    action: unescapeHtml(action),
    manifest: JSON.parse(unescapeHtml(value)) as Record<string, unknown>,
  };
}

/** What a browser does with the form: POST it to GitHub, follow GitHub's redirect back to the app. */
async function register(form: { action: string; manifest: Record<string, unknown> }): Promise<Response> {
  const atGitHub = await fetch(form.action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ manifest: JSON.stringify(form.manifest) }).toString(),
    redirect: "manual",
  });
  assert.equal(atGitHub.status, 302, await atGitHub.clone().text());
  const back = atGitHub.headers.get("location")!;
  return await fetch(back, { redirect: "manual" });
}

const appYml = parseYaml(await readFile(join(ROOT, "app.yml"), "utf8")) as Record<string, unknown>;

test("production: the manifest registers <public URL>/api/github/webhooks, and a delivery there is served after the restart", async () => {
  const github = await startFakeGitHub();
  const cwd = tempDir("auto-fix-setup-");
  const ghe = { GHE_HOST: github.host, GHE_PROTOCOL: "http" };
  const setup = await startApp({ ...ghe, AUTO_FIX_PUBLIC_URL: "https://autofix.example.com/" }, { cwd });
  let served: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    const page = await (await fetch(`${setup.url}/probot`)).text();
    const form = readForm(page);
    assert.ok(form, page);
    assert.match(form.action, new RegExp(`^http://${github.host}/settings/apps/new\\?state=[0-9a-f]{32}$`));
    const { manifest } = form;
    assert.deepEqual(manifest.hook_attributes, {
      url: "https://autofix.example.com/api/github/webhooks",
      active: true,
    });
    assert.equal(manifest.redirect_url, `${setup.url}/probot/setup`);
    assert.deepEqual(manifest.default_events, appYml.default_events);
    assert.deepEqual(manifest.default_permissions, appYml.default_permissions);
    assert.equal(manifest.name, appYml.name);
    assert.equal(manifest.public, false);

    const done = await register(form);
    assert.equal(done.status, 302);
    assert.equal(done.headers.get("location"), `http://${github.host}/apps/auto-fix/installations/new`);
    assert.equal(github.registrations.length, 1);
    const reg = github.registrations[0]!;
    assert.deepEqual(reg.manifest, manifest, "GitHub received the manifest the page showed");

    const dotenv = join(cwd, ".env");
    const written = parseEnv(await readFile(dotenv, "utf8"));
    assert.equal(written.APP_ID, String(reg.id));
    assert.equal(written.PRIVATE_KEY, reg.pem.trim());
    assert.equal(written.WEBHOOK_SECRET, reg.secret);
    assert.equal(written.AUTO_FIX_PUBLIC_URL, "https://autofix.example.com");
    assert.equal(statSync(dotenv).mode & 0o777, 0o600, "the private key is readable by its owner only");

    // The one-time code cannot be used twice, nor a code without this page's state.
    const again = await fetch(`${setup.url}/probot/setup?code=abc&state=${form.action.split("state=")[1]}`, {
      redirect: "manual",
    });
    assert.equal(again.status, 409);
    assert.equal((await fetch(`${setup.url}/probot/setup?code=abc&state=x`)).status, 400);
    await setup.stop();

    // Restarted with the `.env` only: it checks GitHub's webhook URL and serves the path it names.
    served = await startApp(ghe, { cwd });
    const app = served;
    await until("the webhook check", () =>
      app.logs().some((l) => /^webhooks: GitHub delivers to /.test(String(l.msg))),
    );
    const health = (await (await fetch(`${app.url}/health`)).json()) as {
      webhook: { ok: boolean; url: string };
    };
    assert.deepEqual(
      { ok: health.webhook.ok, url: health.webhook.url },
      { ok: true, url: "https://autofix.example.com/api/github/webhooks" },
      app.output(),
    );
    const path = new URL(github.hookConfig.url!).pathname;
    const payload = labeledPayload(1, "http://127.0.0.1:9/o/r.git", "auto-fix", "stranger");
    const res = await deliverIssues(`${app.url}${path}`, reg.secret, "d-setup", payload);
    assert.equal(res.status, 200, app.output());
    // The URL Probot's own setup page registers (`<host>/`) answers nothing.
    const wrong = await deliverIssues(`${app.url}/`, reg.secret, "d-root", payload);
    assert.equal(wrong.status, 404);
  } finally {
    await setup.stop();
    await served?.stop();
    await github.close();
  }
});

test("development: a proxy channel is made at setup, registered as the hook URL, and forwards deliveries after the restart", async () => {
  // A smee-style channel server: HEAD /new redirects to a new channel; GET <channel> is an event stream.
  const streams: ServerResponse[] = [];
  const smee = createServer((req, res) => {
    if (req.method === "HEAD" && req.url === "/new") {
      res
        .writeHead(307, { location: `http://127.0.0.1:${(smee.address() as AddressInfo).port}/chan-1` })
        .end();
      return;
    }
    if (req.method === "GET" && req.url === "/chan-1") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("event: ready\ndata: {}\n\n");
      streams.push(res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => smee.listen(0, "127.0.0.1", r));
  const smeeBase = `http://127.0.0.1:${(smee.address() as AddressInfo).port}`;
  const github = await startFakeGitHub();
  const cwd = tempDir("auto-fix-setup-dev-");
  const env = { GHE_HOST: github.host, GHE_PROTOCOL: "http" };
  const setup = await startApp({ ...env, WEBHOOK_PROXY_NEW_CHANNEL_URL: `${smeeBase}/new` }, { cwd });
  let served: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    const form = readForm(await (await fetch(`${setup.url}/probot`)).text());
    assert.ok(form, setup.output());
    assert.deepEqual(form.manifest.hook_attributes, { url: `${smeeBase}/chan-1`, active: true });
    assert.equal((await register(form)).status, 302);
    const written = parseEnv(await readFile(join(cwd, ".env"), "utf8"));
    assert.equal(written.WEBHOOK_PROXY_URL, `${smeeBase}/chan-1`);
    await setup.stop();

    served = await startApp(env, { cwd });
    const app = served;
    await until("the proxy client to connect", () => streams.length > 0);
    const secret = github.registrations[0]!.secret;
    const body = JSON.parse(labeledPayload(1, "http://127.0.0.1:9/o/r.git", "auto-fix", "stranger"));
    const raw = JSON.stringify(body);
    const event = {
      "x-github-event": "issues",
      "x-github-delivery": "d-proxied",
      "x-hub-signature-256": signature(secret, raw),
      body,
      query: {},
    };
    // Sent on the channel until the app has it (the client may still be opening or reconnecting when
    // the first one goes out; a repeated delivery id is answered as a duplicate, never run twice).
    let sent = 0;
    await until("the proxied delivery to be handled", () => {
      if (app.logs().some((l) => l.deliveryId === "d-proxied" && typeof l.outcome === "string")) return true;
      if (sent++ % 40 === 0)
        for (const s of streams) if (!s.writableEnded) s.write(`data: ${JSON.stringify(event)}\n\n`);
      return false;
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${app.output()}`);
    });
    await until("the webhook check", () =>
      app.logs().some((l) => /^webhooks: GitHub delivers to /.test(String(l.msg))),
    );
    const health = (await (await fetch(`${app.url}/health`)).json()) as { webhook: { ok: boolean } };
    assert.equal(health.webhook.ok, true, "GitHub delivers to the proxy channel this server listens on");
  } finally {
    await setup.stop();
    await served?.stop();
    for (const s of streams) s.end();
    smee.closeAllConnections();
    await new Promise<void>((r) => smee.close(() => r()));
    await github.close();
  }
});

test("without a proxy or a public URL the setup page names what to set instead of registering localhost", async () => {
  const app = await startApp({ NO_SMEE_SETUP: "true" }, { cwd: tempDir("auto-fix-setup-none-") });
  try {
    const html = await (await fetch(`${app.url}/probot`)).text();
    assert.equal(readForm(html), null, "no registration form");
    assert.match(html, /GitHub cannot deliver webhooks to http:\/\/127\.0\.0\.1:\d+/);
    assert.match(html, /AUTO_FIX_PUBLIC_URL/);
    assert.match(html, /WEBHOOK_PROXY_URL/);
    // Opened through a public name (a reverse proxy in front): that name is the one GitHub reaches.
    const proxied = await fetch(`${app.url}/probot`, {
      headers: { "x-forwarded-host": "autofix.example.com", "x-forwarded-proto": "https" },
    });
    const form = readForm(await proxied.text());
    assert.deepEqual(form?.manifest.hook_attributes, {
      url: "https://autofix.example.com/api/github/webhooks",
      active: true,
    });
  } finally {
    await app.stop();
  }
});

test("a registered app whose webhook URL cannot reach this server is reported at start and by /health", async () => {
  const github = await startFakeGitHub();
  // What Probot's own setup page registers: the server's local address, at a path nothing answers.
  github.hookConfig.url = "http://localhost:3000/";
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  const env = {
    APP_ID: "7",
    PRIVATE_KEY: key,
    WEBHOOK_SECRET: "s",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
  };
  const errors = (app: AppProcess) =>
    app
      .logs()
      .filter((l) => l.level === 50 && /^webhooks: /.test(String(l.msg)))
      .map((l) => String(l.msg));
  const app = await startApp(env, { cwd: tempDir("auto-fix-hook-bad-") });
  try {
    await until("the webhook check", () => errors(app).length > 0);
    assert.match(
      errors(app).join("\n"),
      /whose path \/ is not the one this server answers \(\/api\/github\/webhooks\)/,
    );
    const res = await fetch(`${app.url}/health`);
    assert.equal(res.status, 503);
    const health = (await res.json()) as {
      status: string;
      problems: string[];
      webhook: { ok: boolean; url: string };
    };
    assert.equal(health.webhook.ok, false);
    assert.equal(health.webhook.url, "http://localhost:3000/");
    assert.ok(
      health.problems.some((p) => p.startsWith("webhook: ")),
      health.problems.join("\n"),
    );
  } finally {
    await app.stop();
  }
  // Production: the public URL must be https, and GitHub must have been given it.
  const prod = await startApp(
    { ...env, NODE_ENV: "production", AUTO_FIX_PUBLIC_URL: "http://autofix.example.com" },
    { cwd: tempDir("auto-fix-hook-prod-") },
  );
  try {
    await until("the webhook check", () => errors(prod).length > 1);
    const said = errors(prod).join("\n");
    assert.match(said, /AUTO_FIX_PUBLIC_URL must be https in production/);
    assert.match(
      said,
      /GitHub sends this app's webhooks to http:\/\/localhost:3000\/, but AUTO_FIX_PUBLIC_URL \+ WEBHOOK_PATH says http:\/\/autofix\.example\.com\/api\/github\/webhooks/,
    );
  } finally {
    await prod.stop();
    await github.close();
  }
});

test("a public URL that is not a URL stops the start with a message naming the setting", async () => {
  await assert.rejects(
    startApp({ AUTO_FIX_PUBLIC_URL: "autofix.example.com" }, { cwd: tempDir("auto-fix-hook-typo-") }),
    /app exited \(2\): auto-fix: AUTO_FIX_PUBLIC_URL is not a URL: 'autofix\.example\.com'/,
  );
});

test("the setup page and /health say when the webhook proxy channel cannot be reached from this server", async () => {
  // A port nothing listens on any more: the channel refuses every connection.
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, "127.0.0.1", r));
  const channel = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/chan-gone`;
  await new Promise<void>((r) => gone.close(() => r()));
  const app = await startApp({ WEBHOOK_PROXY_URL: channel }, { cwd: tempDir("auto-fix-setup-gone-") });
  try {
    const html = await (await fetch(`${app.url}/probot`)).text();
    assert.ok(readForm(html), "the form is still offered: the channel may come back");
    const problem = /<p class="problem" id="proxy-problem">([^<]*)<\/p>/.exec(html)?.[1];
    assert.ok(problem, html);
    assert.match(
      unescapeHtml(problem),
      new RegExp(`the webhook proxy ${channel} cannot be reached from this server \\(ECONNREFUSED\\)`),
    );
    const health = await fetch(`${app.url}/health`);
    assert.equal(health.status, 503);
    assert.match(await health.text(), /cannot be reached from this server/);
  } finally {
    await app.stop();
  }
});
