import { quoteForMessage } from "../core/terminal-text.ts";
import { checkPricing, loadModelSettings, type ModelConfig } from "./config.ts";

/** What one `GET <base>/models` showed about the configured endpoint. */
export interface EndpointCheck {
  /** false: the run cannot work with this endpoint (the message says why and what to change). */
  ok: boolean;
  /** One line for people: what was found. */
  message: string;
  /** Worth knowing, not fatal (the model missing from the list, no /models on this server). */
  warnings: string[];
  /** The endpoint could not be reached or failed on its side (rather than a setting being wrong). */
  unreachable: boolean;
  url: string;
  status: number | null;
  contentType: string | null;
  /** The start of a body that was not the JSON expected (saved with the run's artifacts). */
  body: string | null;
  ms: number;
}

const MAX_BODY = 64 * 1024;

/** A hint when a base URL that answers with a web page lacks the API's version path. */
export function versionHint(baseURL: string): string {
  const url = new URL(baseURL);
  if (/\/v\d+(beta)?\/?$/.test(url.pathname) || /\/openai\//.test(url.pathname)) return "";
  const withV1 = `${baseURL.replace(/\/+$/, "")}/v1`;
  return ` OPENAI_BASE_URL has no /v1 at the end: OpenAI-compatible servers usually answer under it (try ${withV1}).`;
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_BODY));
}

/**
 * One cheap request before a run pays for anything: `GET <base>/models`, with the same key, headers and
 * query the chat requests send. A connection failure, a refused key, or an answer that is not JSON (a web
 * page: the URL points at a website or lacks `/v1`) is reported at once, with what came back.
 */
export async function checkModelEndpoint(
  config: ModelConfig,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<EndpointCheck> {
  const started = Date.now();
  const url = new URL(`${config.baseURL.replace(/\/+$/, "")}/models`);
  for (const [k, v] of Object.entries(config.query ?? {})) url.searchParams.set(k, v);
  const shown = `${url.origin}${url.pathname}`;
  const base: Omit<EndpointCheck, "ok" | "message" | "ms"> = {
    warnings: [],
    unreachable: false,
    url: shown,
    status: null,
    contentType: null,
    body: null,
  };
  const done = (ok: boolean, message: string, extra: Partial<EndpointCheck> = {}): EndpointCheck => ({
    ...base,
    ...extra,
    ok,
    message,
    ms: Date.now() - started,
  });
  const signals = [AbortSignal.timeout(opts.timeoutMs ?? 15_000)];
  if (opts.signal) signals.push(opts.signal);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: {
        accept: "application/json",
        authorization: `Bearer ${config.apiKey}`,
        ...(config.headers ?? {}),
      },
      redirect: "manual",
      signal: AbortSignal.any(signals),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === "TimeoutError"
        ? "no answer within the time limit"
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return done(false, `cannot reach the model endpoint ${shown}: ${why}`, { unreachable: true });
  }
  base.status = res.status;
  base.contentType = res.headers.get("content-type");
  const location = res.headers.get("location");
  if (res.status >= 300 && res.status < 400 && location) {
    await res.body?.cancel().catch(() => undefined);
    let target = "another address";
    try {
      const to = new URL(location, url);
      target = `${to.origin}${to.pathname}`;
    } catch {
      // a Location that is not a URL: named generically
    }
    return done(
      false,
      `the model endpoint answered GET ${shown} with a redirect (HTTP ${res.status}) to ${target}: set OPENAI_BASE_URL to the address it redirects to (model requests are not redirected)`,
    );
  }
  const text = await readCapped(res).catch(() => "");
  let isJson = false;
  try {
    JSON.parse(text);
    isJson = true;
  } catch {
    isJson = false;
  }
  if (!isJson) {
    base.body = text;
    const kind = /html/i.test(base.contentType ?? "") || /^\s*</.test(text) ? "a web page (HTML)" : "text";
    const hint = res.status < 500 ? versionHint(config.baseURL) : "";
    return done(
      false,
      `the model endpoint answered GET ${shown} with ${kind}, not JSON (HTTP ${res.status}` +
        `${base.contentType ? `, ${base.contentType}` : ""}): "${quoteForMessage(text, 160)}".${hint}`,
      { unreachable: res.status >= 500 },
    );
  }
  if (res.status === 401 || res.status === 403) {
    return done(
      false,
      `the model endpoint refused the key (HTTP ${res.status}) at ${shown}: check OPENAI_API_KEY`,
    );
  }
  if (res.status >= 500) {
    return done(false, `the model endpoint failed (HTTP ${res.status}) at ${shown}`, { unreachable: true });
  }
  if (res.status >= 300) {
    // Some compatible servers have no /models; the chat endpoint may still work.
    base.warnings.push(`GET ${shown} answered HTTP ${res.status}; the model list was not checked`);
    return done(true, `the model endpoint answers (no model list: HTTP ${res.status})`);
  }
  return done(true, `the model endpoint answers (${Date.now() - started} ms)`);
}

/**
 * What the server checks about the model when it starts (the runs read the same settings): the settings
 * themselves, a price for the dollar budget, and one request to the endpoint. Never throws; `problems`
 * say what will make every run fail, `notes` what merely deserves a look.
 */
export async function checkModelAtStart(
  env: NodeJS.ProcessEnv,
  cwd: string,
  perRunUsd: number,
): Promise<{ ok: boolean; problems: string[]; notes: string[] }> {
  const problems: string[] = [];
  const notes: string[] = [];
  try {
    const s = loadModelSettings(env, cwd);
    notes.push(...s.warnings);
    try {
      checkPricing(s.model.model, { ...s.budget, usd: perRunUsd }, s.prices);
    } catch (err) {
      problems.push((err as Error).message);
    }
    const check = await checkModelEndpoint(s.model);
    notes.push(...check.warnings);
    if (!check.ok) problems.push(check.message);
  } catch (err) {
    problems.push((err as Error).message);
  }
  return { ok: problems.length === 0, problems, notes };
}
