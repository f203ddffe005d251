import assert from "node:assert/strict";
import { test } from "node:test";
import { runProxy } from "../../src/agents/proxy-agent.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { TEST_API_SPECS } from "../support/api-specs.ts";

test("prose becomes validated calls and locations in JSON mode", async () => {
  const server = await startScriptedModel([
    JSON.stringify({
      API_calls: ["search_method_in_class('save', \"Model\")", { name: "search_class", args: ["Model"] }],
      bug_locations: [
        { file: "a.py", class: null, method: "save", intended_behavior: "keep the key" },
        { intended_behavior: "nothing named" },
      ],
    }),
  ]);
  try {
    const t = makeTestModel(server.baseURL);
    const r = await runProxy(t.model, "I want to see Model.save", TEST_API_SPECS);
    assert.ok(r.ok);
    assert.deepEqual(
      r.calls.map((c) => c.text),
      ['search_method_in_class("save", "Model")', 'search_class("Model")'],
    );
    assert.deepEqual(r.locations, [{ file: "a.py", method: "save", intended_behavior: "keep the key" }]);
    assert.deepEqual(server.requests[0]?.response_format, { type: "json_object" });
    assert.match(String(server.requests[0]?.messages[1]?.content), /I want to see Model\.save/);
  } finally {
    await server.close();
  }
});

test("garbage, empty text, wrong shape, unknown APIs and wrong counts go back to the model with the reason", async () => {
  const server = await startScriptedModel([
    "I am not JSON at all",
    "",
    '{"API_calls": "search_class(\\"A\\")"}',
    '{"API_calls": ["find_everything(\\"A\\")", "search_method_in_class(\\"f\\")"], "bug_locations": []}',
    'Here you go: {"API_calls": ["search_class(\\"A\\")"], "bug_locations": []}',
  ]);
  try {
    const t = makeTestModel(server.baseURL, { maxUnusable: 100 });
    const r = await runProxy(t.model, "search class A", TEST_API_SPECS);
    assert.ok(r.ok);
    assert.equal(r.tries, 5);
    assert.deepEqual(
      r.calls.map((c) => c.text),
      ['search_class("A")'],
    );
    const feedback = (i: number) => String(server.requests[i]?.messages.at(-1)?.content);
    assert.match(feedback(1), /no valid JSON object/);
    assert.match(feedback(2), /empty/);
    assert.match(feedback(3), /API_calls: /);
    assert.match(feedback(4), /'find_everything' is not one of the search APIs/);
    assert.match(feedback(4), /search_method_in_class takes 2 argument/);
  } finally {
    await server.close();
  }
});

test("five useless answers end in a clear failure", async () => {
  const server = await startScriptedModel(() => "no idea");
  try {
    const t = makeTestModel(server.baseURL, { maxUnusable: 100 });
    const r = await runProxy(t.model, "notes", TEST_API_SPECS);
    assert.equal(r.ok, false);
    assert.equal(server.requests.length, 5);
    assert.match(r.ok ? "" : r.message, /no valid JSON/);
  } finally {
    await server.close();
  }
});
