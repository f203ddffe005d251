import OpenAI from "openai";
import { quoteForMessage } from "../core/terminal-text.ts";
import { versionHint } from "./endpoint-check.ts";
import { ContextLengthExceeded, ModelRequestRejected, ModelUnavailable, NonJsonAnswer } from "./errors.ts";
import type { ArtifactRecorder } from "./recorder.ts";
import type { ModelConfig } from "./config.ts";
import { trimHistory } from "./trim.ts";
import type { ChatMessage, ChatOptions, ChatResult, ModelPort } from "./types.ts";
import type { UsageMeter } from "./usage.ts";

export interface OpenAIModelDeps {
  meter: UsageMeter;
  recorder?: ArtifactRecorder;
  /** Waits between retries; tests pass one that records the delays instead of sleeping. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** 0..1, for backoff jitter. */
  random?: () => number;
  /** Where each retry is told (one line); the run's artifacts record them as well. */
  log?: (line: string) => void;
}

/** The error for an answer that is not the API's JSON, with a hint when the base URL lacks `/v1`. */
function nonJson(
  baseURL: string,
  status: number | null,
  contentType: string | null,
  body: string,
): NonJsonAnswer {
  const kind =
    /html/i.test(contentType ?? "") || /^\s*</.test(body) ? "a web page (HTML)" : "text that is not JSON";
  return new NonJsonAnswer(
    `the model endpoint answered with ${kind} instead of the API's JSON (HTTP ${status ?? "?"}` +
      `${contentType ? `, ${contentType}` : ""}): "${quoteForMessage(body, 160)}".${versionHint(baseURL)}`,
    status,
    contentType,
    body.slice(0, 64 * 1024),
  );
}

type Failure =
  | { kind: "context"; message: string; status: number | null }
  | { kind: "json-unsupported"; message: string; status: number | null }
  | { kind: "param-unsupported"; param: "temperature" | "max_tokens"; message: string; status: number | null }
  | { kind: "retry"; message: string; status: number | null; retryAfterMs: number | null }
  | { kind: "fatal"; message: string; status: number | null };

const CONTEXT_RE =
  /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|input is too long|reduce the length|exceeds? the (model'?s? )?(maximum|max)|n_ctx|tokens? (limit|exceed)/i;
const JSON_MODE_RE = /response_format|json_object|json mode/i;

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

/** Reads `retry-after-ms` / `retry-after` (seconds or an HTTP date) from a response's headers. */
/** A token count as reported, when it is one: a finite whole number, zero or more. */
function tokenCount(x: unknown): number | null {
  return typeof x === "number" && Number.isSafeInteger(x) && x >= 0 ? x : null;
}

export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get("retry-after");
  if (!ra) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Sorts an error from the endpoint into what to do about it. */
export function classifyError(err: unknown): Failure {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return { kind: "retry", message: "the model endpoint timed out", status: null, retryAfterMs: null };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return {
      kind: "retry",
      message: `cannot reach the model endpoint: ${err.message}`,
      status: null,
      retryAfterMs: null,
    };
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? null;
    const message = err.message;
    const code = String(err.code ?? "");
    if (
      code === "context_length_exceeded" ||
      ((status === 400 || status === 413) && CONTEXT_RE.test(message))
    ) {
      return { kind: "context", message, status };
    }
    if (status === 400 && JSON_MODE_RE.test(message)) return { kind: "json-unsupported", message, status };
    // Some models (reasoning models, some local servers) refuse sampling settings: drop them, not the run.
    if (
      status === 400 &&
      /temperature/i.test(message) &&
      /unsupported|not support|only the default/i.test(message)
    ) {
      return { kind: "param-unsupported", param: "temperature", message, status };
    }
    if (
      status === 400 &&
      /max_tokens/.test(message) &&
      /unsupported|not support|max_completion_tokens/i.test(message)
    ) {
      return { kind: "param-unsupported", param: "max_tokens", message, status };
    }
    if (status === 429 || status === 408 || status === 409 || (status !== null && status >= 500)) {
      return { kind: "retry", message, status, retryAfterMs: retryAfterMs(err.headers) };
    }
    return { kind: "fatal", message, status };
  }
  return { kind: "fatal", message: err instanceof Error ? err.message : String(err), status: null };
}

/** The tokens a text is counted as when the endpoint reports none (about four characters a token). */
export const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** A ModelPort over any OpenAI-compatible chat-completions endpoint, through the official client. */
export class OpenAIModel implements ModelPort {
  private readonly client: OpenAI;
  private readonly config: ModelConfig;
  private readonly deps: OpenAIModelDeps;
  private jsonModeSupported: boolean;
  /** Request fields the endpoint refused once; never sent again. */
  private readonly refused = new Set<"temperature" | "max_tokens">();
  private calls = 0;

  constructor(config: ModelConfig, deps: OpenAIModelDeps) {
    this.config = config;
    this.deps = deps;
    this.jsonModeSupported = config.jsonMode;
    this.client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeout: config.timeoutMs,
      maxRetries: 0,
      ...(config.headers ? { defaultHeaders: config.headers } : {}),
      ...(config.query ? { defaultQuery: config.query } : {}),
    });
  }

  async chat(input: ChatMessage[], opts: ChatOptions): Promise<ChatResult> {
    this.deps.meter.check();
    const callId = ++this.calls;
    const started = Date.now();
    let messages = input;
    let trimmed = 0;
    let trims = 0;
    let attempts = 0;
    let retries = 0;
    const retried: string[] = [];
    let useJson = Boolean(opts.json) && this.jsonModeSupported;
    const sleep = this.deps.sleep ?? defaultSleep;
    const random = this.deps.random ?? Math.random;
    for (;;) {
      attempts++;
      try {
        const raw = await this.request(messages, opts, useJson);
        // A count the endpoint reports that is not a whole number of tokens (negative, fractional, a
        // string) would lower the run's spend and break its budget: it is estimated instead.
        const reportedPrompt = tokenCount(raw.promptTokens);
        const reportedCompletion = tokenCount(raw.completionTokens);
        const estimated = reportedPrompt === null || reportedCompletion === null;
        const promptTokens = reportedPrompt ?? approxTokens(messages.map((m) => m.content).join("\n"));
        const completionTokens = reportedCompletion ?? raw.texts.reduce((s, t) => s + approxTokens(t), 0);
        const cost = this.deps.meter.cost(this.config.model, promptTokens, completionTokens);
        this.deps.meter.add(opts.stage, promptTokens, completionTokens, cost);
        const texts = raw.texts.length > 0 ? raw.texts : [""];
        const result: ChatResult = {
          texts,
          content: texts[0] ?? "",
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            cost_usd: cost,
            estimated,
          },
          model: this.config.model,
          finishReason: raw.finishReason,
          trimmed,
          callId,
          judge: (v) => this.deps.meter.judge({ ...v, stage: opts.stage, text: texts[0] ?? "" }),
        };
        this.deps.recorder?.recordCall({
          callId,
          opts,
          model: this.config.model,
          messages,
          result,
          retries: retried,
          attempts,
          ms: Date.now() - started,
        });
        return result;
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const f = classifyError(err);
        let next: Error | null = null;
        const html =
          err instanceof OpenAI.APIError && f.kind === "fatal" && /^\s*(\d+\s+)?</.test(err.message)
            ? nonJson(
                this.config.baseURL,
                f.status,
                err.headers?.get("content-type") ?? null,
                err.message.replace(/^\s*\d+\s+/, ""),
              )
            : null;
        if (err instanceof NonJsonAnswer || html) {
          next = html ?? (err as NonJsonAnswer);
        } else if (f.kind === "context") {
          const t = trimHistory(messages);
          if (t && trims < 12) {
            messages = t.messages;
            trimmed += t.dropped;
            trims++;
            continue;
          }
          next = new ContextLengthExceeded(
            `the conversation does not fit the model's context window even after trimming: ${f.message}`,
          );
        } else if (f.kind === "param-unsupported" && !this.refused.has(f.param)) {
          this.refused.add(f.param);
          continue;
        } else if (f.kind === "json-unsupported" && useJson) {
          this.jsonModeSupported = false;
          useJson = false;
          continue;
        } else if (f.kind === "retry" && retries < this.config.maxRetries) {
          const backoff = Math.min(
            this.config.maxBackoffMs,
            this.config.baseBackoffMs * 2 ** retries * (0.75 + 0.5 * random()),
          );
          const wait =
            f.retryAfterMs !== null ? Math.min(f.retryAfterMs, this.config.maxRetryAfterMs) : backoff;
          retries++;
          const line =
            `model call ${callId} (${opts.stage}): attempt ${attempts} failed (${quoteForMessage(f.message, 200)}); ` +
            `retry ${retries} of ${this.config.maxRetries} in ${(wait / 1000).toFixed(1)} s`;
          retried.push(line);
          this.deps.log?.(line);
          await sleep(wait, opts.signal);
          continue;
        } else if (f.kind === "retry") {
          next = new ModelUnavailable(
            `the model endpoint failed ${attempts} time(s); last error: ${f.message}`,
            f.status,
            attempts,
            err,
          );
        } else {
          next = new ModelRequestRejected(`the model endpoint rejected the request: ${f.message}`, f.status);
        }
        this.deps.recorder?.recordCall({
          callId,
          opts,
          model: this.config.model,
          messages,
          error: next.message,
          ...(next instanceof NonJsonAnswer ? { answerBody: next.body } : {}),
          retries: retried,
          attempts,
          ms: Date.now() - started,
        });
        throw next;
      }
    }
  }

  private async request(
    messages: ChatMessage[],
    opts: ChatOptions,
    json: boolean,
  ): Promise<{
    texts: string[];
    promptTokens: number | null;
    completionTokens: number | null;
    finishReason: string | null;
  }> {
    const base = {
      model: this.config.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      ...(opts.n && opts.n > 1 ? { n: opts.n } : {}),
      ...(opts.temperature !== undefined && !this.refused.has("temperature")
        ? { temperature: opts.temperature }
        : {}),
      ...(opts.maxTokens !== undefined && !this.refused.has("max_tokens")
        ? { max_tokens: opts.maxTokens }
        : {}),
      ...(json ? { response_format: { type: "json_object" as const } } : {}),
    };
    const reqOpts = opts.signal ? { signal: opts.signal } : {};
    if (!this.config.stream) {
      const { data, response } = await this.client.chat.completions.create(base, reqOpts).withResponse();
      const res = data as unknown as OpenAI.Chat.Completions.ChatCompletion | string;
      if (typeof res === "string" || !Array.isArray(res?.choices)) {
        const body = typeof res === "string" ? res : JSON.stringify(res);
        throw nonJson(this.config.baseURL, response.status, response.headers.get("content-type"), body);
      }
      const texts = [...res.choices].sort((a, b) => a.index - b.index).map((c) => c.message.content ?? "");
      return {
        texts,
        promptTokens: res.usage?.prompt_tokens ?? null,
        completionTokens: res.usage?.completion_tokens ?? null,
        finishReason: res.choices[0]?.finish_reason ?? null,
      };
    }
    const { data: stream, response } = await this.client.chat.completions
      .create({ ...base, stream: true, stream_options: { include_usage: true } }, reqOpts)
      .withResponse();
    const type = response.headers.get("content-type");
    if (type && !/event-stream|json/i.test(type)) {
      const body = await response.text().catch(() => "");
      throw nonJson(this.config.baseURL, response.status, type, body);
    }
    const texts: string[] = [];
    let finishReason: string | null = null;
    let promptTokens: number | null = null;
    let completionTokens: number | null = null;
    for await (const chunk of stream) {
      for (const c of chunk.choices) {
        texts[c.index] = (texts[c.index] ?? "") + (c.delta?.content ?? "");
        if (c.index === 0 && c.finish_reason) finishReason = c.finish_reason;
      }
      if (chunk.usage) {
        promptTokens = chunk.usage.prompt_tokens;
        completionTokens = chunk.usage.completion_tokens;
      }
    }
    return { texts: Array.from(texts, (t) => t ?? ""), promptTokens, completionTokens, finishReason };
  }
}
