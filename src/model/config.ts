import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ModelConfigError } from "./errors.ts";
import {
  type Budget,
  DEFAULT_MAX_UNUSABLE_ANSWERS,
  DEFAULT_PRICES,
  formatUsd,
  type PriceTable,
  priceFor,
} from "./usage.ts";

export interface ModelConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Retries after the first attempt on 429/5xx/timeouts/connection errors. */
  maxRetries: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Longest `Retry-After` honoured as given; longer ones are cut to this. */
  maxRetryAfterMs: number;
  /** Ask for `response_format: json_object` when a caller wants JSON (turned off after the endpoint refuses). */
  jsonMode: boolean;
  /** Use streaming responses (some local servers answer faster that way). */
  stream: boolean;
  headers?: Record<string, string>;
  /** Query parameters sent with every request (Azure's `api-version`). */
  query?: Record<string, string>;
}

export interface LoadedModelSettings {
  model: ModelConfig;
  budget: Budget;
  prices: PriceTable;
  /** Unusable answers in a row before the run stops (AUTO_FIX_MAX_UNUSABLE_ANSWERS). */
  maxUnusable: number;
  /** Where the settings came from, for the report (never includes the key). */
  source: string;
  /** Deprecated setting names in use, and the like: printed, never fatal. */
  warnings: string[];
}

/**
 * Settings that used to have other names. The current name is read first; an old one still works, with a
 * warning. When several are set the lowest value counts, so that a rename never loosens a limit.
 */
export const RENAMED_SETTINGS: Record<string, readonly string[]> = {
  AUTO_FIX_MAX_COST_USD_PER_RUN: ["AUTO_FIX_BUDGET_USD", "AUTO_FIX_MAX_COST_USD"],
  AUTO_FIX_MAX_TOKENS_PER_RUN: ["AUTO_FIX_BUDGET_TOKENS"],
};

/** A positive number setting under its current name or an old one (see RENAMED_SETTINGS). */
export function renamedSetting(env: NodeJS.ProcessEnv, name: string, warnings: string[]): number | undefined {
  let value: number | undefined;
  for (const n of [name, ...(RENAMED_SETTINGS[name] ?? [])]) {
    const v = positiveNumber(env, n);
    if (v === undefined) continue;
    if (n !== name) warnings.push(`${n} is deprecated; use ${name} (the same setting)`);
    value = value === undefined ? v : Math.min(value, v);
  }
  return value;
}

const priceSchema = z.object({ input: z.coerce.number().min(0), output: z.coerce.number().min(0) });

/** The config file (JSON or YAML). Every field is optional; environment variables win over it. */
export const configFileSchema = z.object({
  model: z
    .object({
      base_url: z.string().url().optional(),
      api_key: z.string().optional(),
      name: z.string().min(1).optional(),
      timeout_seconds: z.coerce.number().positive().optional(),
      max_retries: z.coerce.number().int().min(0).max(20).optional(),
      json_mode: z.boolean().optional(),
      stream: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      max_unusable_answers: z.coerce.number().int().min(1).optional(),
    })
    .optional(),
  budget: z
    .object({
      usd: z.coerce.number().positive().optional(),
      tokens: z.coerce.number().int().positive().optional(),
    })
    .optional(),
  prices: z.record(z.string(), priceSchema).optional(),
});

export const CONFIG_FILE_NAMES = ["auto-fix.config.json", "auto-fix.config.yml", "auto-fix.config.yaml"];

function readConfigFile(path: string): z.infer<typeof configFileSchema> {
  let raw: unknown;
  try {
    const text = readFileSync(path, "utf8");
    raw = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ModelConfigError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  const parsed = configFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new ModelConfigError(`invalid config file ${path}: ${issues}`);
  }
  return parsed.data;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new ModelConfigError(`${name} must be a positive number (got '${v}')`);
  return n;
}

function nonNegativeNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new ModelConfigError(`${name} must be a number of dollars, 0 or more (got '${v}')`);
  return n;
}

/**
 * The model endpoint's base URL, checked: http or https with a host. A URL without a scheme
 * (`localhost:11434/v1`) is refused at once rather than failing after every retry.
 */
export function checkBaseURL(baseURL: string, name = "OPENAI_BASE_URL"): URL {
  let url: URL | null = null;
  try {
    url = new URL(baseURL);
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !url.hostname) {
    const guess = /^[\w.-]+(:\d+)?(\/|$)/.test(baseURL) ? ` (did you mean http://${baseURL}?)` : "";
    throw new ModelConfigError(`${name} must be an http:// or https:// URL, got '${baseURL}'${guess}`);
  }
  return url;
}

/**
 * A dollar budget needs a price: with a model missing from the price table and no price in the settings,
 * the cost cannot be counted, and the run is refused unless a token budget bounds it.
 */
export function checkPricing(model: string, budget: Budget, prices: PriceTable): void {
  if (budget.usd === undefined || budget.tokens !== undefined || priceFor(prices, model)) return;
  throw new ModelConfigError(
    `the model '${model}' has no known price, so the dollar budget (${formatUsd(budget.usd, 2)} per run) cannot ` +
      "be enforced. Set its price with AUTO_FIX_PRICE_INPUT_PER_MTOK and AUTO_FIX_PRICE_OUTPUT_PER_MTOK " +
      "(US dollars per million tokens; 0 for a model that costs nothing, such as a local one), or a " +
      "token budget with AUTO_FIX_MAX_TOKENS_PER_RUN.",
  );
}

const flag = (v: string | undefined): boolean | undefined =>
  v === undefined || v === "" ? undefined : /^(1|true|yes|on)$/i.test(v);

/**
 * Model settings from the environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AUTO_FIX_MODEL`,
 * `AUTO_FIX_MAX_COST_USD_PER_RUN`, `AUTO_FIX_MAX_TOKENS_PER_RUN`, `AUTO_FIX_PRICE_INPUT_PER_MTOK`,
 * `AUTO_FIX_PRICE_OUTPUT_PER_MTOK`, `AUTO_FIX_MAX_UNUSABLE_ANSWERS`, `AUTO_FIX_MODEL_TIMEOUT`,
 * `AUTO_FIX_MODEL_STREAM`, `AUTO_FIX_JSON_MODE`, `OPENAI_API_VERSION` for Azure) over a config file (`AUTO_FIX_CONFIG`, or `auto-fix.config.{json,yml,yaml}` in
 * `cwd`). Throws ModelConfigError naming exactly what to set when no model is configured.
 */
export function loadModelSettings(env: NodeJS.ProcessEnv, cwd: string): LoadedModelSettings {
  let file: z.infer<typeof configFileSchema> = {};
  let source = "environment";
  const explicit = env.AUTO_FIX_CONFIG;
  if (explicit) {
    const path = isAbsolute(explicit) ? explicit : join(cwd, explicit);
    if (!existsSync(path)) throw new ModelConfigError(`AUTO_FIX_CONFIG names ${path}, which does not exist`);
    file = readConfigFile(path);
    source = `environment + ${path}`;
  } else {
    for (const name of CONFIG_FILE_NAMES) {
      const path = join(cwd, name);
      if (existsSync(path)) {
        file = readConfigFile(path);
        source = `environment + ${path}`;
        break;
      }
    }
  }
  const baseURL = env.OPENAI_BASE_URL || file.model?.base_url || "https://api.openai.com/v1";
  const usingOpenAI = /^https:\/\/api\.openai\.com(\/|$)/.test(baseURL);
  const apiKey = env.OPENAI_API_KEY || file.model?.api_key || "";
  const model = env.AUTO_FIX_MODEL || file.model?.name || "";
  const missing: string[] = [];
  if (!model) missing.push("AUTO_FIX_MODEL (the model name, e.g. gpt-4o or qwen2.5-coder:32b)");
  if (!apiKey && usingOpenAI) {
    missing.push(
      "OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama or vLLM)",
    );
  }
  if (missing.length > 0) {
    throw new ModelConfigError(
      `no model configured: set ${missing.join(" and ")}. ` +
        "A config file (AUTO_FIX_CONFIG, or auto-fix.config.json/.yml in the current directory) may hold the same settings.",
    );
  }
  checkBaseURL(baseURL, env.OPENAI_BASE_URL ? "OPENAI_BASE_URL" : "model.base_url");
  const warnings: string[] = [];
  const timeoutS = positiveNumber(env, "AUTO_FIX_MODEL_TIMEOUT") ?? file.model?.timeout_seconds ?? 180;
  const budget: Budget = {};
  const usd = renamedSetting(env, "AUTO_FIX_MAX_COST_USD_PER_RUN", warnings) ?? file.budget?.usd;
  const tokens = renamedSetting(env, "AUTO_FIX_MAX_TOKENS_PER_RUN", warnings) ?? file.budget?.tokens;
  if (usd !== undefined) budget.usd = usd;
  if (tokens !== undefined) budget.tokens = Math.floor(tokens);
  const maxUnusable =
    positiveNumber(env, "AUTO_FIX_MAX_UNUSABLE_ANSWERS") ??
    file.model?.max_unusable_answers ??
    DEFAULT_MAX_UNUSABLE_ANSWERS;
  // The configured model's price: the settings win over the config file's table and the built-in one.
  const prices: PriceTable = { ...DEFAULT_PRICES, ...(file.prices ?? {}) };
  const priceIn = nonNegativeNumber(env, "AUTO_FIX_PRICE_INPUT_PER_MTOK");
  const priceOut = nonNegativeNumber(env, "AUTO_FIX_PRICE_OUTPUT_PER_MTOK");
  if ((priceIn === undefined) !== (priceOut === undefined)) {
    throw new ModelConfigError(
      "set both AUTO_FIX_PRICE_INPUT_PER_MTOK and AUTO_FIX_PRICE_OUTPUT_PER_MTOK (US dollars per million tokens), or neither",
    );
  }
  if (priceIn !== undefined && priceOut !== undefined) prices[model] = { input: priceIn, output: priceOut };
  const config: ModelConfig = {
    baseURL,
    // Local servers accept any key; the client insists on a non-empty one.
    apiKey: apiKey || "not-needed",
    model,
    timeoutMs: timeoutS * 1000,
    maxRetries: file.model?.max_retries ?? 5,
    baseBackoffMs: 1000,
    maxBackoffMs: 30_000,
    maxRetryAfterMs: 120_000,
    jsonMode: flag(env.AUTO_FIX_JSON_MODE) ?? file.model?.json_mode ?? true,
    stream: flag(env.AUTO_FIX_MODEL_STREAM) ?? file.model?.stream ?? false,
  };
  const headers: Record<string, string> = { ...(file.model?.headers ?? {}) };
  // Azure OpenAI authenticates with an `api-key` header; its v1 endpoint needs no api-version, the
  // deployment-style endpoint does (OPENAI_API_VERSION).
  if (
    /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i.test(
      new URL(baseURL).hostname,
    )
  ) {
    if (apiKey && !headers["api-key"]) headers["api-key"] = apiKey;
  }
  if (Object.keys(headers).length > 0) config.headers = headers;
  if (env.OPENAI_API_VERSION) config.query = { "api-version": env.OPENAI_API_VERSION };
  return {
    model: config,
    budget,
    prices,
    maxUnusable: Math.floor(maxUnusable),
    source,
    warnings,
  };
}
