import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadModelSettings } from "../../src/model/config.ts";
import { ModelConfigError } from "../../src/model/errors.ts";
import { costOf, priceFor, DEFAULT_PRICES } from "../../src/model/usage.ts";
import { tempDir } from "../support/temp.ts";

const empty = () => tempDir("auto-fix-cfg-");

test("no model configured names the variables to set", () => {
  assert.throws(
    () => loadModelSettings({}, empty()),
    (err: unknown) => {
      assert.ok(err instanceof ModelConfigError);
      assert.equal(err.exitCode, 2);
      assert.match(err.message, /AUTO_FIX_MODEL/);
      assert.match(err.message, /OPENAI_API_KEY/);
      return true;
    },
  );
  // A local endpoint needs no key, only the model name.
  assert.throws(
    () => loadModelSettings({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }, empty()),
    (err: unknown) => {
      assert.match(String(err), /AUTO_FIX_MODEL/);
      assert.doesNotMatch(String(err), /OPENAI_API_KEY/);
      return true;
    },
  );
});

test("a local endpoint works without a key; budget and timeout come from the environment", () => {
  const s = loadModelSettings(
    {
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      AUTO_FIX_MODEL: "qwen",
      AUTO_FIX_MAX_COST_USD_PER_RUN: "0.5",
      AUTO_FIX_MODEL_TIMEOUT: "30",
    },
    empty(),
  );
  assert.equal(s.model.baseURL, "http://127.0.0.1:8000/v1");
  assert.equal(s.model.apiKey, "not-needed");
  assert.equal(s.model.timeoutMs, 30_000);
  assert.deepEqual(s.budget, { usd: 0.5 });
  assert.deepEqual(s.warnings, []);
  assert.throws(
    () =>
      loadModelSettings(
        { AUTO_FIX_MODEL: "m", OPENAI_API_KEY: "k", AUTO_FIX_MAX_COST_USD_PER_RUN: "lots" },
        empty(),
      ),
    /AUTO_FIX_MAX_COST_USD_PER_RUN must be a positive number/,
  );
});

test("Azure OpenAI gets its api-key header and api-version", () => {
  const s = loadModelSettings(
    {
      OPENAI_BASE_URL: "https://example.openai.azure.com/openai/v1",
      OPENAI_API_KEY: "azure-key",
      AUTO_FIX_MODEL: "my-deployment",
      OPENAI_API_VERSION: "2024-10-21",
    },
    empty(),
  );
  assert.deepEqual(s.model.headers, { "api-key": "azure-key" });
  assert.deepEqual(s.model.query, { "api-version": "2024-10-21" });
  assert.equal(
    loadModelSettings({ OPENAI_API_KEY: "k", AUTO_FIX_MODEL: "gpt-4o" }, empty()).model.headers,
    undefined,
  );
});

test("a YAML config file supplies the model, prices and budget; the environment wins", () => {
  const dir = empty();
  writeFileSync(
    join(dir, "auto-fix.config.yml"),
    "model:\n  base_url: http://127.0.0.1:9/v1\n  name: local-coder\n  stream: true\nbudget:\n  tokens: 50000\nprices:\n  local-coder: { input: 1, output: 2 }\n",
  );
  const s = loadModelSettings({}, dir);
  assert.equal(s.model.model, "local-coder");
  assert.equal(s.model.stream, true);
  assert.deepEqual(s.budget, { tokens: 50000 });
  assert.deepEqual(s.prices["local-coder"], { input: 1, output: 2 });
  assert.equal(loadModelSettings({ AUTO_FIX_MODEL: "other" }, dir).model.model, "other");
  writeFileSync(join(dir, "bad.yml"), "model:\n  base_url: not a url\n");
  assert.throws(
    () => loadModelSettings({ AUTO_FIX_CONFIG: "bad.yml" }, dir),
    /invalid config file .*model.base_url/,
  );
});

test("prices match exactly or by the longest prefix; an unknown model's cost is unknown, not $0", () => {
  assert.deepEqual(priceFor(DEFAULT_PRICES, "gpt-4o-mini-2024-07-18"), { input: 0.15, output: 0.6 });
  assert.deepEqual(priceFor(DEFAULT_PRICES, "gpt-4o-2024-08-06"), { input: 2.5, output: 10 });
  assert.equal(priceFor(DEFAULT_PRICES, "llama3"), null);
  assert.equal(costOf(null, 1000, 1000), null);
  assert.equal(costOf({ input: 2, output: 8 }, 1_000_000, 500_000), 6);
});
