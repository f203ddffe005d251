import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A chat-completions request as the server received it. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null }[];
  stream?: boolean;
  n?: number;
  response_format?: { type: string };
  [key: string]: unknown;
}

/** What the scripted model answers to one request. A plain string is `{ content }`. */
export interface ScriptedReply {
  /** The assistant message text (first choice). */
  content?: string;
  /** Extra choices when the request asks for n > 1 (`content` is the first). */
  choices?: string[];
  /** Answer with this HTTP status and `body` (JSON) instead of a completion, e.g. 429 or 500. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (to provoke client timeouts). */
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
}

export type ScriptHandler = (
  req: ChatRequest,
  index: number,
) => ScriptedReply | string | Promise<ScriptedReply | string>;

export interface ScriptedModel {
  /** Base URL for the `openai` client (ends in /v1). */
  baseURL: string;
  /** Every chat request received, in order. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

const approxTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/**
 * An OpenAI-compatible HTTP server on 127.0.0.1 that answers `/v1/chat/completions` from a script:
 * either a list of replies consumed in order or a function of the request. Supports streaming (SSE, with
 * `stream_options.include_usage`), `n`, JSON mode (recorded as sent), usage fields and error statuses.
 * A list that runs out answers 500 with a message naming the request, so a test sees it.
 */
export async function startScriptedModel(
  script: ScriptHandler | (ScriptedReply | string)[],
): Promise<ScriptedModel> {
  const requests: ChatRequest[] = [];
  const handler: ScriptHandler = Array.isArray(script)
    ? (_req, i) =>
        script[i] ?? {
          status: 500,
          body: { error: { message: `scripted model: no reply scripted for request #${i + 1}` } },
        }
    : script;

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? "";
    if (req.method === "GET" && url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] }));
      return;
    }
    if (req.method !== "POST" || !url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
    const index = requests.length;
    requests.push(body);
    const raw = await handler(body, index);
    const reply: ScriptedReply = typeof raw === "string" ? { content: raw } : raw;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: `scripted error ${reply.status}` } }));
      return;
    }
    const n = Math.max(1, body.n ?? 1);
    const texts = [reply.content ?? "", ...(reply.choices ?? [])].slice(0, n);
    while (texts.length < n) texts.push(texts[texts.length - 1] ?? "");
    const promptText = body.messages.map((m) => m.content ?? "").join("\n");
    const usage = reply.usage ?? {
      prompt_tokens: approxTokens(promptText),
      completion_tokens: texts.reduce((s, t) => s + approxTokens(t), 0),
    };
    const usageBody = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const id = `chatcmpl-scripted-${index + 1}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = reply.finishReason ?? "stop";
    if (body.stream) {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        ...reply.headers,
      });
      const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      texts.forEach((text, i) => {
        send({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [{ index: i, delta: { role: "assistant", content: "" }, finish_reason: null }],
        });
        for (let p = 0; p < text.length; p += 16) {
          send({
            id,
            object: "chat.completion.chunk",
            created,
            model: body.model,
            choices: [{ index: i, delta: { content: text.slice(p, p + 16) }, finish_reason: null }],
          });
        }
        send({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [{ index: i, delta: {}, finish_reason: finish }],
        });
      });
      const opts = body.stream_options as { include_usage?: boolean } | undefined;
      if (opts?.include_usage) {
        send({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [],
          usage: usageBody,
        });
      }
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json", ...reply.headers });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: texts.map((text, i) => ({
          index: i,
          message: { role: "assistant", content: text },
          finish_reason: finish,
        })),
        usage: usageBody,
      }),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
