import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readSettings } from "../../src/issue-run/settings.ts";
import { checkBaseURL, checkPricing, loadModelSettings } from "../../src/model/config.ts";
import { ModelConfigError } from "../../src/model/errors.ts";
import { formatUsd, UsageMeter } from "../../src/model/usage.ts";

/** One empty folder (no config file in it) for every test here, removed at the end. */
const folder = mkdtempSync(join(tmpdir(), "auto-fix-names-"));
after(() => rmSync(folder, { recursive: true, force: true }));
const empty = () => folder;
const base = { AUTO_FIX_MODEL: "m", OPENAI_API_KEY: "k" };

test("the per-run dollar budget has one name; the two old ones still work, with a warning", () => {
  const now = loadModelSettings({ ...base, AUTO_FIX_MAX_COST_USD_PER_RUN: "2" }, empty());
  assert.deepEqual(now.budget, { usd: 2 });
  assert.deepEqual(now.warnings, []);
  for (const old of ["AUTO_FIX_BUDGET_USD", "AUTO_FIX_MAX_COST_USD"]) {
    const s = loadModelSettings({ ...base, [old]: "0.7" }, empty());
    assert.deepEqual(s.budget, { usd: 0.7 });
    assert.deepEqual(s.warnings, [
      `${old} is deprecated; use AUTO_FIX_MAX_COST_USD_PER_RUN (the same setting)`,
    ]);
  }
  // Both set (an old setting kept next to the new default): the lower limit holds, never the looser.
  const both = loadModelSettings(
    { ...base, AUTO_FIX_MAX_COST_USD_PER_RUN: "2", AUTO_FIX_BUDGET_USD: "0.25" },
    empty(),
  );
  assert.deepEqual(both.budget, { usd: 0.25 });
  const tokens = loadModelSettings({ ...base, AUTO_FIX_BUDGET_TOKENS: "5000" }, empty());
  assert.deepEqual(tokens.budget, { tokens: 5000 });
  assert.match(
    tokens.warnings.join(),
    /AUTO_FIX_BUDGET_TOKENS is deprecated; use AUTO_FIX_MAX_TOKENS_PER_RUN/,
  );
});

test("the app reads the same name and the old ones, lowest first, with warnings", () => {
  assert.equal(readSettings({ AUTO_FIX_MAX_COST_USD_PER_RUN: "1.5" }).maxCostUsdPerRun, 1.5);
  const old = readSettings({ AUTO_FIX_MAX_COST_USD_PER_RUN: "2", AUTO_FIX_BUDGET_USD: "0.5" });
  assert.equal(old.maxCostUsdPerRun, 0.5);
  assert.match(old.warnings.join(), /AUTO_FIX_BUDGET_USD is deprecated/);
  assert.equal(readSettings({}).maxCostUsdPerRun, 2);
  assert.deepEqual(readSettings({}).warnings, []);
});

test("a base URL must be http(s): one without a scheme is refused at once, with the likely fix", () => {
  for (const bad of [
    "localhost:11434/v1",
    "127.0.0.1:8000/v1",
    "ftp://example.com/v1",
    "file:///etc/passwd",
  ]) {
    assert.throws(
      () => loadModelSettings({ ...base, OPENAI_BASE_URL: bad }, empty()),
      (err: unknown) =>
        err instanceof ModelConfigError &&
        /OPENAI_BASE_URL must be an http:\/\/ or https:\/\/ URL/.test(err.message),
      bad,
    );
  }
  assert.throws(() => checkBaseURL("localhost:11434/v1"), /did you mean http:\/\/localhost:11434\/v1\?/);
  assert.equal(checkBaseURL("http://127.0.0.1:8000/v1").port, "8000");
});

test("a model without a price: a dollar budget is refused, naming the settings; a price or a token budget lets it run", () => {
  const s = loadModelSettings({ ...base, AUTO_FIX_MODEL: "qwen2.5-coder:32b" }, empty());
  assert.throws(
    () => checkPricing("qwen2.5-coder:32b", { usd: 0.0001 }, s.prices),
    (err: unknown) =>
      err instanceof ModelConfigError &&
      err.exitCode === 2 &&
      /'qwen2.5-coder:32b' has no known price/.test(err.message) &&
      /AUTO_FIX_PRICE_INPUT_PER_MTOK and AUTO_FIX_PRICE_OUTPUT_PER_MTOK/.test(err.message) &&
      /AUTO_FIX_MAX_TOKENS_PER_RUN/.test(err.message),
  );
  checkPricing("qwen2.5-coder:32b", { usd: 1, tokens: 10_000 }, s.prices);
  checkPricing("gpt-4o-mini", { usd: 1 }, s.prices);
  const priced = loadModelSettings(
    {
      ...base,
      AUTO_FIX_MODEL: "qwen2.5-coder:32b",
      AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
      AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0.5",
    },
    empty(),
  );
  checkPricing("qwen2.5-coder:32b", { usd: 1 }, priced.prices);
  assert.deepEqual(priced.prices["qwen2.5-coder:32b"], { input: 0, output: 0.5 });
  assert.throws(
    () => loadModelSettings({ ...base, AUTO_FIX_PRICE_INPUT_PER_MTOK: "1" }, empty()),
    /set both AUTO_FIX_PRICE_INPUT_PER_MTOK and AUTO_FIX_PRICE_OUTPUT_PER_MTOK/,
  );
});

test("an unknown cost stays unknown in the totals: shown as 'unknown', never as $0", () => {
  const m = new UsageMeter({ budget: { tokens: 1000 }, prices: {} });
  m.add("search", 100, 50, m.cost("local-model", 100, 50));
  assert.equal(m.totals().cost_usd, null);
  assert.equal(m.byStage().search?.cost_usd, null);
  assert.equal(formatUsd(m.totals().cost_usd), "unknown");
  assert.equal(formatUsd(0.5), "$0.5000");
  // The token budget still holds.
  m.add("patch", 900, 0, null);
  assert.throws(() => m.check(), /model budget reached: 1050 of 1000 tokens/);
});
