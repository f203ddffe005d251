/**
 * A model endpoint reports its own token counts. A negative or fractional count (a hostile or broken
 * endpoint) would lower the run's spend below what it used, slip past its budget, and make a result the
 * contract refuses: such a count is estimated from the text instead, and the call is marked estimated.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

for (const [name, usage] of [
  ["negative", { prompt_tokens: -1_000_000, completion_tokens: -5 }],
  ["fractional", { prompt_tokens: 10.5, completion_tokens: 0.25 }],
] as const) {
  test(`${name} token counts from the endpoint are not believed: the call is estimated`, async () => {
    const server = await startScriptedModel([{ content: "an answer of some length", usage }]);
    try {
      const t = makeTestModel(server.baseURL);
      const r = await t.model.chat([{ role: "user", content: "a question of some length" }], {
        stage: "search",
      });
      assert.equal(r.usage.estimated, true);
      assert.ok(
        Number.isSafeInteger(r.usage.prompt_tokens) && r.usage.prompt_tokens > 0,
        String(r.usage.prompt_tokens),
      );
      assert.ok(Number.isSafeInteger(r.usage.completion_tokens) && r.usage.completion_tokens > 0);
      assert.ok((r.usage.cost_usd ?? -1) > 0, "the call costs something");
      const totals = t.meter.totals();
      assert.equal(totals.prompt_tokens, r.usage.prompt_tokens);
      assert.ok((totals.cost_usd ?? -1) > 0);
    } finally {
      await server.close();
    }
  });
}
