/**
 * The webhook proxy client (development, `WEBHOOK_PROXY_URL`): reads a smee.io-style channel (Server-Sent
 * Events, one JSON message per delivery: the headers, `body` and `query`) and posts each delivery to this
 * server's webhook path, where its signature is checked like any other delivery.
 *
 * When the channel drops or cannot be reached it tries again with exponential backoff (1 s doubling to
 * 60 s), for as long as the server runs. It logs one line per change of state (connected, dropped or
 * unreachable, reconnected), never one per attempt.
 */

export type ProxyState = "connecting" | "connected" | "down" | "stopped";

export interface WebhookProxyLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface WebhookProxyOptions {
  /** The channel, e.g. https://smee.io/abc. */
  source: string;
  /** This server's webhook URL, e.g. http://127.0.0.1:3000/api/github/webhooks. */
  target: string;
  log: WebhookProxyLog;
  /** The first wait after a failure; doubled after each failed attempt up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface WebhookProxy {
  state(): ProxyState;
  /** Deliveries posted to the target so far (answered, whatever the status). */
  forwarded(): number;
  stop(): Promise<void>;
}

/** A delivery larger than this (GitHub's cap is 25 MB) ends the connection rather than memory. */
const MAX_EVENT_BYTES = 32 * 1024 * 1024;
const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
/** Set by fetch itself, or naming the channel rather than this server. */
const DROPPED_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "transfer-encoding",
  "body",
  "query",
]);

export function startWebhookProxy(options: WebhookProxyOptions): WebhookProxy {
  const { source, target, log } = options;
  const initial = options.initialBackoffMs ?? 1000;
  const max = options.maxBackoffMs ?? 60_000;
  const stopper = new AbortController();
  let state: ProxyState = "connecting";
  let forwarded = 0;
  let everConnected = false;

  const loop = (async () => {
    let failures = 0;
    while (!stopper.signal.aborted) {
      let why: string;
      try {
        const res = await fetch(source, {
          headers: { accept: "text/event-stream", "cache-control": "no-cache" },
          signal: stopper.signal,
        });
        const type = res.headers.get("content-type") ?? "";
        if (!res.ok || !res.body || !/^text\/event-stream\b/i.test(type)) {
          await res.body?.cancel().catch(() => {});
          throw new Error(
            res.ok
              ? `answered ${type || "without a content type"}, not an event stream`
              : `HTTP ${res.status}`,
          );
        }
        // Here the state is connecting (the first time) or down: each connection is a change.
        log.info(
          everConnected
            ? `webhooks: proxy reconnected to ${source} after ${failures} failed attempt${failures === 1 ? "" : "s"}`
            : `webhooks: proxy connected to ${source}, forwarding to ${target}`,
        );
        state = "connected";
        everConnected = true;
        failures = 0;
        for await (const data of readMessages(res.body)) {
          if (await forward(data, target)) forwarded++;
        }
        why = "the channel closed the stream";
      } catch (err) {
        if (stopper.signal.aborted) break;
        why = describe(err);
      }
      if (stopper.signal.aborted) break;
      failures++;
      const wait = Math.min(max, initial * 2 ** Math.min(failures - 1, 30));
      if (state !== "down") {
        log.warn(
          state === "connected"
            ? `webhooks: proxy ${source} dropped (${why}); retrying with backoff (up to ${Math.round(max / 1000)} s between attempts), deliveries sent meanwhile are lost`
            : `webhooks: proxy ${source} cannot be reached (${why}); retrying with backoff (up to ${Math.round(max / 1000)} s between attempts)`,
        );
        state = "down";
      }
      await sleep(wait, stopper.signal);
    }
  })();

  return {
    state: () => state,
    forwarded: () => forwarded,
    async stop() {
      if (state === "stopped") return;
      stopper.abort();
      await loop;
      state = "stopped";
    },
  };
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The `data` of each `message` event of an event stream (other event types, e.g. ping, are skipped). */
export async function* readMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let size = 0;
  let type = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl = buffer.search(/\r\n|\r|\n/);
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? nl + 2 : nl + 1);
      if (line === "") {
        if (data.length > 0 && (type === "" || type === "message")) yield data.join("\n");
        data = [];
        size = 0;
        type = "";
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") {
          data.push(value);
          size += value.length;
        } else if (field === "event") type = value;
      }
      nl = buffer.search(/\r\n|\r|\n/);
    }
    if (size + buffer.length > MAX_EVENT_BYTES) throw new Error("an event larger than 32 MB");
  }
}

/** Posts one channel message to the webhook path; false when it was not a delivery or not answered. */
async function forward(data: string, target: string): Promise<boolean> {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return false;
  }
  if (!message || typeof message !== "object" || Array.isArray(message)) return false;
  const fields = message as Record<string, unknown>;
  if (!("body" in fields)) return false;
  const url = new URL(target);
  if (fields.query && typeof fields.query === "object") {
    for (const [k, v] of Object.entries(fields.query as Record<string, unknown>))
      if (typeof v === "string") url.searchParams.set(k, v);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    const key = name.toLowerCase();
    if (typeof value !== "string" || DROPPED_HEADERS.has(key) || !HEADER_NAME.test(key)) continue;
    if (/[\r\n\0]/.test(value)) continue;
    headers[key] = value;
  }
  headers["content-type"] = "application/json";
  try {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(fields.body),
      signal: AbortSignal.timeout(30_000),
    });
    await res.body?.cancel().catch(() => {});
    return true;
  } catch {
    return false;
  }
}
