/**
 * The setup page `npm start` serves until the app is registered (no APP_ID/PRIVATE_KEY yet): GitHub's
 * manifest flow, with the webhook URL set to where GitHub can really deliver (the proxy channel or
 * `AUTO_FIX_PUBLIC_URL` + the webhook path; never this machine's loopback address).
 *
 * GET /probot            the page: a form that posts the manifest to GitHub's "new app" page
 * GET /probot/setup      GitHub's redirect back with a one-time code: exchanged for the app's id, key and
 *                        secret, written to `.env` (mode 0600), then on to the app's installation page
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { hookUrlFor, setupProblem, type WebhookSettings } from "../ops/webhook-url.ts";
import { healthChangeLog } from "../ops/http.ts";
import { type ProxyCheck, proxyChecker, serveSetupOps } from "./setup-health.ts";

const APP_YML = new URL("../../app.yml", import.meta.url);
const PACKAGE_JSON = new URL("../../package.json", import.meta.url);

export interface AppManifest {
  name: string;
  url: string;
  description?: string;
  public: boolean;
  hook_attributes: { url: string; active: true };
  redirect_url: string;
  default_events: string[];
  default_permissions: Record<string, string>;
}

const AppYmlSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  url: z.string().url(),
  public: z.boolean().default(false),
  default_events: z.array(z.string()),
  default_permissions: z.record(z.string(), z.string()),
});

/** The manifest GitHub registers the app from: `app.yml` plus the URLs only this server knows. */
export function buildManifest(options: {
  hookUrl: string;
  baseUrl: string;
  name?: string | undefined;
  appYml?: string;
}): AppManifest {
  const yml = AppYmlSchema.parse(parseYaml(options.appYml ?? readFileSync(APP_YML, "utf8")));
  return {
    name: options.name?.trim() || yml.name,
    url: yml.url,
    ...(yml.description ? { description: yml.description } : {}),
    public: yml.public,
    hook_attributes: { url: options.hookUrl, active: true },
    redirect_url: `${options.baseUrl}/probot/setup`,
    default_events: yml.default_events,
    default_permissions: yml.default_permissions,
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where GitHub's "register a new app" page is (GHE_HOST/GHE_PROTOCOL, GH_ORG for an organization). */
export function createAppUrl(env: NodeJS.ProcessEnv): string {
  const host = env.GHE_HOST?.trim() || "github.com";
  const protocol = env.GHE_PROTOCOL?.trim() || "https";
  const org = env.GH_ORG?.trim();
  if (org && !/^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/.test(org))
    throw new Error(`GH_ORG is not an organization name: '${org}'`);
  return `${protocol}://${host}${org ? `/organizations/${org}` : ""}/settings/apps/new`;
}

/** The server's address as the browser used it (behind a proxy: X-Forwarded-Proto/Host). */
export function requestBaseUrl(req: IncomingMessage): string {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.split(",")[0]?.trim();
  const proto = first(req.headers["x-forwarded-proto"]) === "https" ? "https" : "http";
  const host = first(req.headers["x-forwarded-host"]) || req.headers.host || "localhost";
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) return "http://localhost";
  return `${proto}://${host}`;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44em;margin:3em auto;padding:0 1em}
code,pre{background:#f3f3f3;padding:.1em .3em;border-radius:3px}pre{padding:.8em;overflow:auto}
.problem{border-left:4px solid #c00;padding:.5em 1em;background:#fff4f4}button{font-size:1em;padding:.5em 1em}</style>
</head><body>${body}</body></html>`;
}

const EnvValue = /^[\x21\x23-\x26\x28-\x5b\x5d-\x7e]{1,512}$/;
const ConversionSchema = z.object({
  id: z.coerce.number().int().positive(),
  pem: z
    .string()
    .regex(/^-----BEGIN [A-Z ]*PRIVATE KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END [A-Z ]*PRIVATE KEY-----\s*$/),
  webhook_secret: z.string().regex(EnvValue).nullable().optional(),
  client_id: z.string().regex(EnvValue).optional(),
  client_secret: z.string().regex(EnvValue).optional(),
  html_url: z
    .string()
    .url()
    .regex(/^https?:\/\//),
  slug: z.string().optional(),
});

/**
 * Merges `values` into the `.env` file in `dir` (other lines kept as they are), mode 0600: it holds the
 * app's private key. Values were validated: no quotes, no newlines except the key's (written as `\n`).
 */
export function updateDotEnv(dir: string, values: Record<string, string>): void {
  const path = join(dir, ".env");
  const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
  const left = new Map(Object.entries(values));
  const format = (k: string, v: string) =>
    v.includes("\n") ? `${k}="${v.replace(/\r?\n/g, "\\n")}"` : `${k}=${v}`;
  const out = lines.map((line) => {
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (key && left.has(key)) {
      const v = left.get(key)!;
      left.delete(key);
      return format(key, v);
    }
    return line;
  });
  while (out.length > 0 && out.at(-1) === "") out.pop();
  for (const [k, v] of left) out.push(format(k, v));
  writeFileSync(path, `${out.join("\n")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The problems runs would meet, as a list on the setup page (nothing when there are none). */
function problemList(problems: readonly string[]): string {
  if (problems.length === 0) return "";
  const items = problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("\n");
  return `\n<p class="problem">Runs will fail until this is fixed (the server's log says the same):</p>\n<ul class="problem" id="run-problems">\n${items}\n</ul>`;
}

export interface SetupOptions {
  env: NodeJS.ProcessEnv;
  webhook: WebhookSettings;
  /** Where `.env` is written (Probot reads it from the working directory). */
  dir: string;
  log: { info(msg: string): void; warn(msg: string): void };
  /** GitHub's REST root (GHE_HOST) for the code exchange; default api.github.com. */
  baseUrl?: string | undefined;
  /** Whether the proxy channel answers (default: one HEAD request to it, at most every 30 s). */
  proxyCheck?: ProxyCheck;
  /** What else the start found that will make runs fail (the model settings), as the log says it. */
  problems?: () => readonly string[];
}

/** The setup handler for Probot's server: answers its paths and returns false for any other request. */
export function createSetupHandler(
  options: SetupOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const state = randomBytes(16).toString("hex");
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version?: string };
  let registered: string | null = null;
  const proxy = options.proxyCheck ?? proxyChecker(options.webhook.proxyUrl);
  const healthLog = healthChangeLog(options.log);
  const html = (res: ServerResponse, status: number, title: string, body: string) => {
    res
      .writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      .end(page(title, body));
    return true;
  };
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const problems = options.problems ?? (() => []);
    const ops = { baseUrl: requestBaseUrl(req), proxy, problems, onReport: healthLog };
    if (await serveSetupOps(req, res, ops)) return true;
    if (req.method !== "GET") return false;
    if (url.pathname === "/") {
      res.writeHead(302, { location: "/probot" }).end();
      return true;
    }
    if (url.pathname === "/probot") {
      const base = requestBaseUrl(req);
      if (registered) {
        return html(
          res,
          200,
          "auto-fix is registered",
          `<h1>auto-fix is registered</h1>
<p>The app's credentials were written to <code>.env</code>. Restart the server (<code>scripts/with-node npm start</code>) to receive webhooks, then <a href="${escapeHtml(registered)}/installations/new">install the app</a> on your repositories.</p>`,
        );
      }
      const problem = setupProblem(options.webhook, base);
      if (problem) {
        return html(
          res,
          200,
          "auto-fix setup: webhook URL needed",
          `<h1>auto-fix setup</h1>
<p class="problem">${escapeHtml(problem)}</p>
<p>Development: create a channel at <a href="https://smee.io/new">smee.io/new</a> and put <code>WEBHOOK_PROXY_URL=https://smee.io/&lt;channel&gt;</code> in <code>.env</code>.
Production: put <code>AUTO_FIX_PUBLIC_URL=https://autofix.example.com</code> (the address GitHub reaches this server at) in <code>.env</code>.
See <code>docs/deploying.md</code>.</p>${problemList(problems())}`,
        );
      }
      const hookUrl = hookUrlFor(options.webhook, base)!;
      const unreachable = await proxy();
      const manifest = buildManifest({ hookUrl, baseUrl: base, name: options.env.AUTO_FIX_APP_NAME });
      const action = `${createAppUrl(options.env)}?state=${state}`;
      return html(
        res,
        200,
        "auto-fix setup",
        `<h1>auto-fix ${escapeHtml(pkg.version ?? "")} setup</h1>
<p>Register auto-fix as a GitHub App. GitHub will send its webhooks to <code id="hook-url">${escapeHtml(hookUrl)}</code>${options.webhook.proxyUrl ? " (the proxy channel, forwarded to this server)" : ""}.</p>${unreachable ? `\n<p class="problem" id="proxy-problem">${escapeHtml(unreachable)}</p>` : ""}${problemList(problems())}
<form action="${escapeHtml(action)}" method="post">
<input type="hidden" name="manifest" id="manifest" value="${escapeHtml(JSON.stringify(manifest))}">
<button type="submit">Register the GitHub App</button>
</form>
<p>Permissions: ${Object.entries(manifest.default_permissions)
          .map(([k, v]) => `${escapeHtml(k)}: ${escapeHtml(v)}`)
          .join(", ")}. Events: ${manifest.default_events.map(escapeHtml).join(", ")}.</p>`,
      );
    }
    if (url.pathname === "/probot/setup") {
      const code = url.searchParams.get("code") ?? "";
      const got = Buffer.from(url.searchParams.get("state") ?? "");
      const want = Buffer.from(state);
      if (got.length !== want.length || !timingSafeEqual(got, want)) {
        return html(
          res,
          400,
          "auto-fix setup",
          '<h1>Not this setup</h1><p>The link does not come from this server\'s setup page. Start again at <a href="/probot">/probot</a>.</p>',
        );
      }
      if (!/^[A-Za-z0-9_-]{1,200}$/.test(code)) {
        return html(
          res,
          400,
          "auto-fix setup",
          "<h1>Missing code</h1><p>GitHub's answer carried no valid code.</p>",
        );
      }
      if (registered)
        return html(res, 409, "auto-fix setup", "<h1>Already registered</h1><p>Restart the server.</p>");
      let data: z.infer<typeof ConversionSchema>;
      try {
        const octokit = new Octokit({
          ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
          request: { timeout: 30_000 },
        });
        const answer = await octokit.request("POST /app-manifests/{code}/conversions", { code });
        data = ConversionSchema.parse(answer.data);
      } catch (err) {
        options.log.warn(`app registration failed: ${(err as Error).message}`);
        return html(
          res,
          502,
          "auto-fix setup",
          `<h1>Registration failed</h1><p class="problem">${escapeHtml((err as Error).message.slice(0, 500))}</p><p><a href="/probot">Try again</a>.</p>`,
        );
      }
      const values: Record<string, string> = { APP_ID: String(data.id), PRIVATE_KEY: data.pem.trim() };
      if (data.webhook_secret) values.WEBHOOK_SECRET = data.webhook_secret;
      if (data.client_id) values.GITHUB_CLIENT_ID = data.client_id;
      if (data.client_secret) values.GITHUB_CLIENT_SECRET = data.client_secret;
      if (options.webhook.proxyUrl) values.WEBHOOK_PROXY_URL = options.webhook.proxyUrl;
      if (options.webhook.publicUrl) values.AUTO_FIX_PUBLIC_URL = options.webhook.publicUrl;
      updateDotEnv(options.dir, values);
      registered = data.html_url.replace(/\/+$/, "");
      options.log.info(
        `registered the GitHub App ${registered} (id ${data.id}); credentials written to ${join(options.dir, ".env")}: restart the server`,
      );
      res.writeHead(302, { location: `${registered}/installations/new` }).end();
      return true;
    }
    return false;
  };
}
