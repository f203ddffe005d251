import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import {
  BudgetExceeded,
  ContextLengthExceeded,
  ModelRequestRejected,
  ModelUnavailable,
} from "../../src/model/errors.ts";
import { extractJson } from "../../src/model/json.ts";
import { retryAfterMs } from "../../src/model/openai-model.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

const user = (content: string) => ({ role: "user" as const, content });

test("a plain call returns the text, counts usage and cost, and records a readable artifact", async () => {
  const server = await startScriptedModel([
    { content: "hello there", usage: { prompt_tokens: 1000, completion_tokens: 500 } },
  ]);
  try {
    const t = makeTestModel(server.baseURL);
    const r = await t.model.chat([{ role: "system", content: "be brief" }, user("hi")], {
      stage: "search",
      label: "round-01",
    });
    assert.equal(r.content, "hello there");
    assert.equal(r.usage.prompt_tokens, 1000);
    assert.equal(r.usage.completion_tokens, 500);
    // gpt-4o-mini: $0.15 / $0.60 per 1M tokens.
    assert.ok(Math.abs((r.usage.cost_usd ?? Number.NaN) - (1000 * 0.15 + 500 * 0.6) / 1e6) < 1e-12);
    assert.deepEqual(t.meter.byStage().search, {
      calls: 1,
      prompt_tokens: 1000,
      completion_tokens: 500,
      cost_usd: r.usage.cost_usd,
    });
    assert.equal(server.requests[0]?.response_format, undefined);
    const md = readFileSync(join(t.dir, "model-calls/001-search-round-01.md"), "utf8");
    assert.match(md, /## system\n\nbe brief/);
    assert.match(md, /## response\n\nhello there/);
    const json = JSON.parse(readFileSync(join(t.dir, "model-calls/001-search-round-01.json"), "utf8"));
    assert.equal(json.texts[0], "hello there");
  } finally {
    await server.close();
  }
});

test("streaming responses are assembled, with usage from the final chunk, and n choices", async () => {
  const server = await startScriptedModel([
    {
      content: "a fairly long streamed answer, more than sixteen chars",
      choices: ["second choice"],
      usage: { prompt_tokens: 7, completion_tokens: 9 },
    },
  ]);
  try {
    const t = makeTestModel(server.baseURL, { config: { stream: true } });
    const r = await t.model.chat([user("go")], { stage: "patch", n: 2 });
    assert.deepEqual(r.texts, ["a fairly long streamed answer, more than sixteen chars", "second choice"]);
    assert.equal(r.usage.prompt_tokens, 7);
    assert.equal(r.usage.estimated, false);
    assert.equal(server.requests[0]?.stream, true);
    assert.equal(server.requests[0]?.n, 2);
  } finally {
    await server.close();
  }
});

test("JSON mode is requested, and dropped for good when the endpoint refuses it", async () => {
  const server = await startScriptedModel([
    {
      status: 400,
      body: { error: { message: "response_format json_object is not supported by this model" } },
    },
    '{"a": 1}',
    '{"b": 2}',
  ]);
  try {
    const t = makeTestModel(server.baseURL);
    const r = await t.model.chat([user("json please")], { stage: "proxy", json: true });
    assert.equal(r.content, '{"a": 1}');
    assert.deepEqual(server.requests[0]?.response_format, { type: "json_object" });
    assert.equal(server.requests[1]?.response_format, undefined);
    await t.model.chat([user("again")], { stage: "proxy", json: true });
    assert.equal(server.requests[2]?.response_format, undefined);
  } finally {
    await server.close();
  }
});

test("a model that refuses a temperature setting gets the request again without it", async () => {
  const server = await startScriptedModel([
    {
      status: 400,
      body: {
        error: {
          message:
            "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
        },
      },
    },
    "ok",
    "ok again",
  ]);
  try {
    const t = makeTestModel(server.baseURL);
    const r = await t.model.chat([user("x")], { stage: "proxy", temperature: 0 });
    assert.equal(r.content, "ok");
    assert.equal(server.requests[0]?.temperature, 0);
    assert.equal(server.requests[1]?.temperature, undefined);
    await t.model.chat([user("y")], { stage: "proxy", temperature: 0 });
    assert.equal(server.requests[2]?.temperature, undefined, "not sent again");
  } finally {
    await server.close();
  }
});

test("429 honours Retry-After, 5xx backs off exponentially, then the call succeeds", async () => {
  const server = await startScriptedModel([
    { status: 429, headers: { "retry-after": "7" }, body: { error: { message: "rate limited" } } },
    { status: 503, body: { error: { message: "overloaded" } } },
    { status: 500 },
    "finally",
  ]);
  try {
    const t = makeTestModel(server.baseURL);
    const r = await t.model.chat([user("x")], { stage: "search" });
    assert.equal(r.content, "finally");
    assert.deepEqual(t.sleeps, [7000, 2000, 4000]);
    assert.equal(server.requests.length, 4);
  } finally {
    await server.close();
  }
});

test("a persistently failing endpoint ends in ModelUnavailable after the retries, recorded on disk", async () => {
  const server = await startScriptedModel(() => ({ status: 500, body: { error: { message: "boom" } } }));
  try {
    const t = makeTestModel(server.baseURL, { config: { maxRetries: 2 } });
    await assert.rejects(t.model.chat([user("x")], { stage: "search" }), (err: unknown) => {
      assert.ok(err instanceof ModelUnavailable);
      assert.equal(err.status, 500);
      assert.equal(err.attempts, 3);
      return true;
    });
    assert.equal(server.requests.length, 3);
    const rec = JSON.parse(readFileSync(join(t.dir, "model-calls/001-search.json"), "utf8"));
    assert.match(rec.error, /failed 3 time/);
  } finally {
    await server.close();
  }
});

test("a timeout is retried like a connection error", async () => {
  // The first request hangs far past the timeout; every later one answers at once (a loaded machine may
  // still let one of those time out too, so the count of retries is at least one, not exactly one).
  const server = await startScriptedModel((_req, i) =>
    i === 0 ? { content: "late", delayMs: 5000 } : "on time",
  );
  try {
    const t = makeTestModel(server.baseURL, { config: { timeoutMs: 300 } });
    const r = await t.model.chat([user("x")], { stage: "search" });
    assert.equal(r.content, "on time");
    assert.ok(t.sleeps.length >= 1);
    assert.equal(server.requests.length, t.sleeps.length + 1);
  } finally {
    await server.close();
  }
});

test("an authentication error is not retried", async () => {
  const server = await startScriptedModel(() => ({ status: 401, body: { error: { message: "bad key" } } }));
  try {
    const t = makeTestModel(server.baseURL);
    await assert.rejects(t.model.chat([user("x")], { stage: "search" }), ModelRequestRejected);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test("a context-length error trims the history instead of retrying blindly", async () => {
  const tooLong = {
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 8192 tokens",
        code: "context_length_exceeded",
      },
    },
  };
  const server = await startScriptedModel((req) => (req.messages.length > 5 ? tooLong : "fits now"));
  try {
    const t = makeTestModel(server.baseURL);
    const history = [
      { role: "system" as const, content: "sys" },
      user("the issue"),
      ...Array.from({ length: 8 }, (_, i) => ({
        role: (i % 2 ? "user" : "assistant") as "user" | "assistant",
        content: `turn ${i}`,
      })),
    ];
    const r = await t.model.chat(history, { stage: "search" });
    assert.equal(r.content, "fits now");
    assert.ok(r.trimmed > 0);
    assert.equal(t.sleeps.length, 0, "no backoff for a context error");
    const last = server.requests.at(-1)!;
    assert.equal(last.messages[0]?.content, "sys");
    assert.equal(last.messages[1]?.content, "the issue");
    assert.equal(last.messages.at(-1)?.content, "turn 7");
    assert.match(String(last.messages[2]?.content), /removed to fit the context window/);
  } finally {
    await server.close();
  }
});

test("a context error that trimming cannot fix ends in ContextLengthExceeded", async () => {
  const server = await startScriptedModel(() => ({
    status: 400,
    body: { error: { message: "prompt is too long: 300000 tokens > 200000 maximum" } },
  }));
  try {
    const t = makeTestModel(server.baseURL);
    await assert.rejects(t.model.chat([user("short")], { stage: "search" }), ContextLengthExceeded);
  } finally {
    await server.close();
  }
});

test("the budget stops the run before the next call", async () => {
  const server = await startScriptedModel(() => ({
    content: "ok",
    usage: { prompt_tokens: 600, completion_tokens: 100 },
  }));
  try {
    const t = makeTestModel(server.baseURL, { budget: { tokens: 1000 } });
    await t.model.chat([user("1")], { stage: "search" });
    await t.model.chat([user("2")], { stage: "search" });
    await assert.rejects(t.model.chat([user("3")], { stage: "search" }), (err: unknown) => {
      assert.ok(err instanceof BudgetExceeded);
      assert.equal(err.spent.tokens, 1400);
      return true;
    });
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test("Retry-After as seconds, milliseconds and HTTP date", () => {
  assert.equal(retryAfterMs(new Headers({ "retry-after": "3" })), 3000);
  assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "250" })), 250);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  assert.equal(retryAfterMs(new Headers({})), null);
});

test("JSON is extracted from prose, fences and sloppy trailing commas, and validated", () => {
  const schema = z.object({ a: z.number() });
  assert.deepEqual(extractJson('{"a": 1}', schema), { ok: true, value: { a: 1 } });
  assert.deepEqual(extractJson('Sure!\n```json\n{"a": 2,}\n```\nDone.', schema), {
    ok: true,
    value: { a: 2 },
  });
  assert.deepEqual(extractJson('Here: {"note": "}"} and {"a": 3}', schema), { ok: true, value: { a: 3 } });
  const bad = extractJson('{"a": "x"}', schema);
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? "" : bad.message, /required shape: a:/);
  const none = extractJson("I think the bug is in foo", schema);
  assert.match(none.ok ? "" : none.message, /no valid JSON/);
  assert.match(extractJson("  ", schema).ok ? "" : "empty", /empty/);
});
