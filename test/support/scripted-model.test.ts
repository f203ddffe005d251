import assert from "node:assert/strict";
import { test } from "node:test";
import OpenAI from "openai";
import { startScriptedModel } from "./scripted-model.ts";

test("scripted model answers the real openai client, plain and streaming", async () => {
  const model = await startScriptedModel(["first answer", { content: "streamed answer text that is long" }]);
  try {
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const a = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hello" }],
    });
    assert.equal(a.choices[0]?.message.content, "first answer");
    assert.ok((a.usage?.prompt_tokens ?? 0) > 0);
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "again" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage += chunk.usage?.completion_tokens ?? 0;
    }
    assert.equal(text, "streamed answer text that is long");
    assert.ok(usage > 0);
    assert.equal(model.requests.length, 2);
    await assert.rejects(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }),
      /no reply scripted for request #3/,
    );
  } finally {
    await model.close();
  }
});
