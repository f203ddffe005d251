/**
 * Where GitHub must send the app's webhooks, and whether the URL it has can be right.
 *
 * - Development: `WEBHOOK_PROXY_URL`, a smee.io channel that GitHub posts to and the proxy client (the
 *   app's own, `app/webhook-proxy.ts`, which reconnects when the channel drops) forwards to this
 *   server's webhook path.
 * - Production: `AUTO_FIX_PUBLIC_URL`, the address GitHub reaches this server at; the hook URL is that
 *   plus the webhook path (`WEBHOOK_PATH`, default `/api/github/webhooks`, the only path that answers).
 */

export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

export interface WebhookSettings {
  /** `WEBHOOK_PATH`: where this server answers webhooks. */
  path: string;
  /** `AUTO_FIX_PUBLIC_URL` without a trailing slash, or null. */
  publicUrl: string | null;
  /** `WEBHOOK_PROXY_URL`, or null. */
  proxyUrl: string | null;
  production: boolean;
  /** GitHub's host when it is not github.com (`GHE_HOST`). */
  gheHost: string | null;
}

export interface Problem {
  level: "error" | "warning";
  message: string;
}

export class WebhookSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookSettingsError";
  }
}

const httpUrl = (name: string, value: string): URL => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookSettingsError(
      `${name} is not a URL: '${value}' (expected e.g. https://autofix.example.com)`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new WebhookSettingsError(`${name} must be an http(s) URL, not '${value}'`);
  }
  if (url.username || url.password) {
    throw new WebhookSettingsError(`${name} must not carry a user or password: GitHub would show it`);
  }
  return url;
};

/** Reads and validates the settings; throws `WebhookSettingsError` for a value that is not a URL at all. */
export function readWebhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const path = env.WEBHOOK_PATH?.trim() || DEFAULT_WEBHOOK_PATH;
  if (!path.startsWith("/")) {
    throw new WebhookSettingsError(`WEBHOOK_PATH must start with '/': '${path}'`);
  }
  let publicUrl: string | null = null;
  const rawPublic = env.AUTO_FIX_PUBLIC_URL?.trim();
  if (rawPublic) {
    const url = httpUrl("AUTO_FIX_PUBLIC_URL", rawPublic);
    if (url.search || url.hash) {
      throw new WebhookSettingsError(`AUTO_FIX_PUBLIC_URL must not have a query or fragment: '${rawPublic}'`);
    }
    if (url.pathname.replace(/\/+$/, "").endsWith(path)) {
      throw new WebhookSettingsError(
        `AUTO_FIX_PUBLIC_URL is the server's address without the webhook path (it is added): use '${rawPublic.slice(0, rawPublic.lastIndexOf(path))}'`,
      );
    }
    publicUrl = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  }
  const rawProxy = env.WEBHOOK_PROXY_URL?.trim();
  const proxyUrl = rawProxy ? httpUrl("WEBHOOK_PROXY_URL", rawProxy).href : null;
  return {
    path,
    publicUrl,
    proxyUrl,
    production: env.NODE_ENV === "production",
    gheHost: env.GHE_HOST?.trim() || null,
  };
}

/** The URL the app registers for its webhooks, or null when none can be right (see `setupProblem`). */
export function hookUrlFor(settings: WebhookSettings, requestBaseUrl?: string): string | null {
  if (settings.proxyUrl) return settings.proxyUrl;
  if (settings.publicUrl) return `${settings.publicUrl}${settings.path}`;
  if (requestBaseUrl) {
    // The setup page opened through a public name (a reverse proxy, a tunnel): that name reaches us.
    const base = new URL(requestBaseUrl);
    if (!unreachable(base.hostname, settings)) return `${base.origin}${settings.path}`;
  }
  return null;
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, "").toLowerCase();

/** localhost, 127.0.0.0/8, ::1, 0.0.0.0, `*.localhost`. */
export function isLoopback(hostname: string): boolean {
  const h = stripBrackets(hostname);
  return (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    h === "::1" ||
    h === "0.0.0.0" ||
    h === "::" ||
    h === "::ffff:127.0.0.1"
  );
}

/** Loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local, or a bare name without a dot. */
export function isLocalHost(hostname: string): boolean {
  const h = stripBrackets(hostname);
  if (isLoopback(h)) return true;
  if (/^10\.\d+\.\d+\.\d+$/.test(h) || /^192\.168\.\d+\.\d+$/.test(h) || /^169\.254\.\d+\.\d+$/.test(h)) {
    return true;
  }
  const m = /^172\.(\d+)\.\d+\.\d+$/.exec(h);
  if (m && Number(m[1]) >= 16 && Number(m[1]) <= 31) return true;
  if (/^f[cd][0-9a-f]{2}:/.test(h) || h.startsWith("fe80:")) return true;
  return !h.includes(".") && !h.includes(":");
}

/**
 * Whether GitHub can reach `host`: github.com reaches only public addresses; a GitHub Enterprise server
 * may sit in the same private network (and one on loopback reaches loopback: a server on this machine).
 */
function unreachable(host: string, settings: WebhookSettings): string | null {
  if (settings.gheHost) {
    const ghe = settings.gheHost.replace(/:\d+$/, "");
    if (isLoopback(host) && !isLoopback(ghe)) {
      return `${host} is this machine's loopback address, which ${settings.gheHost} cannot reach`;
    }
    return null;
  }
  if (isLoopback(host)) return `${host} is this machine's loopback address, which GitHub cannot reach`;
  if (isLocalHost(host)) return `${host} is a private address, which github.com cannot reach`;
  return null;
}

const HOW =
  "set AUTO_FIX_PUBLIC_URL to the https address GitHub reaches this server at (production), or " +
  "WEBHOOK_PROXY_URL to a smee.io channel (development, see docs/deploying.md)";

/** Problems with the settings alone (no GitHub call): checked at start. */
export function settingsProblems(settings: WebhookSettings): Problem[] {
  const problems: Problem[] = [];
  if (settings.publicUrl) {
    const url = new URL(settings.publicUrl);
    const why = unreachable(url.hostname, settings);
    if (why) problems.push({ level: "error", message: `AUTO_FIX_PUBLIC_URL cannot be right: ${why}` });
    if (settings.production && url.protocol !== "https:") {
      problems.push({
        level: "error",
        message: `AUTO_FIX_PUBLIC_URL must be https in production (NODE_ENV=production): webhook bodies carry issue text and the signature alone does not hide them (got ${settings.publicUrl})`,
      });
    }
  }
  if (settings.proxyUrl && settings.production) {
    problems.push({
      level: "warning",
      message:
        "WEBHOOK_PROXY_URL is set in production: a smee.io channel is public and drops deliveries while this server is disconnected; use AUTO_FIX_PUBLIC_URL",
    });
  }
  if (settings.proxyUrl && settings.publicUrl) {
    problems.push({
      level: "warning",
      message: "both WEBHOOK_PROXY_URL and AUTO_FIX_PUBLIC_URL are set: the app is registered with the proxy",
    });
  }
  return problems;
}

/**
 * Problems with the webhook URL GitHub actually has for the app (`GET /app/hook/config`), compared with
 * what these settings say it must be.
 */
export function registeredHookProblems(
  registered: string | null | undefined,
  settings: WebhookSettings,
): Problem[] {
  if (!registered) {
    return [
      { level: "error", message: `the GitHub App has no webhook URL, so GitHub sends nothing: ${HOW}` },
    ];
  }
  let url: URL;
  try {
    url = new URL(registered);
  } catch {
    return [{ level: "error", message: `the GitHub App's webhook URL is not a URL: '${registered}'` }];
  }
  const problems: Problem[] = [];
  const expected = hookUrlFor(settings);
  if (expected && !sameUrl(expected, registered)) {
    const which = settings.proxyUrl ? "WEBHOOK_PROXY_URL" : "AUTO_FIX_PUBLIC_URL + WEBHOOK_PATH";
    problems.push({
      level: "error",
      message: `GitHub sends this app's webhooks to ${registered}, but ${which} says ${expected}: change the webhook URL in the app's settings on GitHub (or the setting here)`,
    });
    return problems;
  }
  if (!expected && /(^|\.)smee\.io$/i.test(url.hostname)) {
    problems.push({
      level: "error",
      message: `GitHub sends this app's webhooks to the proxy channel ${registered}, but WEBHOOK_PROXY_URL is not set, so nothing forwards them here`,
    });
    return problems;
  }
  const why = unreachable(url.hostname, settings);
  if (why) {
    problems.push({
      level: "error",
      message: `GitHub sends this app's webhooks to ${registered}: ${why}; ${HOW}`,
    });
  }
  // The webhook middleware ignores trailing slashes on both sides.
  const trim = (p: string) => p.replace(/\/+$/, "") || "/";
  if (!settings.proxyUrl && trim(url.pathname) !== trim(settings.path)) {
    problems.push({
      level: "error",
      message: `GitHub sends this app's webhooks to ${registered}, whose path ${url.pathname} is not the one this server answers (${settings.path}): set the app's webhook URL to ${url.origin}${settings.path}`,
    });
  }
  if (settings.production && url.protocol !== "https:") {
    problems.push({
      level: "error",
      message: `GitHub sends this app's webhooks over plain http (${registered}); production needs https`,
    });
  }
  return problems;
}

function sameUrl(a: string, b: string): boolean {
  const norm = (s: string) => {
    const u = new URL(s);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "") || "/"}${u.search}`;
  };
  try {
    return norm(a) === norm(b);
  } catch {
    return false;
  }
}

/**
 * Why the setup page cannot register the app yet (no hook URL that GitHub could reach), or null.
 * The message is shown on the page instead of the registration button.
 */
export function setupProblem(settings: WebhookSettings, requestBaseUrl: string): string | null {
  if (!hookUrlFor(settings, requestBaseUrl)) {
    return `GitHub cannot deliver webhooks to ${requestBaseUrl}: ${HOW}, then restart.`;
  }
  const errors = settingsProblems(settings).filter((p) => p.level === "error");
  return errors.length > 0 ? `${errors.map((p) => p.message).join("; ")}. Fix it, then restart.` : null;
}
