import { quoteForMessage } from "../core/terminal-text.ts";
import { BudgetExceeded, UnusableAnswers } from "./errors.ts";

/** Dollars per one million tokens. */
export interface Price {
  input: number;
  output: number;
}

/** Prices keyed by model name; a key ending in `*` matches by prefix. An unknown model's cost is unknown (null). */
export type PriceTable = Record<string, Price>;

/** Public list prices (USD per 1M tokens) for common models; override or extend them in the config file. */
export const DEFAULT_PRICES: PriceTable = {
  "gpt-4o-mini*": { input: 0.15, output: 0.6 },
  "gpt-4o*": { input: 2.5, output: 10 },
  "gpt-4.1-mini*": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano*": { input: 0.1, output: 0.4 },
  "gpt-4.1*": { input: 2, output: 8 },
  "o4-mini*": { input: 1.1, output: 4.4 },
  "o3*": { input: 2, output: 8 },
};

export function priceFor(table: PriceTable, model: string): Price | null {
  const exact = table[model];
  if (exact) return exact;
  let best: { len: number; price: Price } | null = null;
  for (const [key, price] of Object.entries(table)) {
    if (!key.endsWith("*")) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.len)) best = { len: prefix.length, price };
  }
  return best?.price ?? null;
}

/** The cost in dollars, or null when the price is unknown (never counted as $0). */
export function costOf(price: Price | null, promptTokens: number, completionTokens: number): number | null {
  if (!price) return null;
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}

/** A dollar amount for people: `$0.0123`, or `unknown` when a price was missing. */
export function formatUsd(usd: number | null, digits = 4): string {
  return usd === null ? "unknown" : `$${usd.toFixed(digits)}`;
}

/** Unusable answers in a row (across search rounds, proxy retries and patch attempts) before a run stops. */
export const DEFAULT_MAX_UNUSABLE_ANSWERS = 3;

/** What a stage made of one model answer: usable, or not (with the answer, for the stop reason). */
export interface AnswerVerdict {
  usable: boolean;
  stage: string;
  /** The answer's text (quoted, made inert and cut, when the run stops). */
  text: string;
  /** Why it could not be used. */
  why?: string;
}

export interface Budget {
  tokens?: number;
  usd?: number;
}

export interface StageUsage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** null once a call's cost was unknown (the model has no price). */
  cost_usd: number | null;
}

export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  /** null once a call's cost was unknown (the model has no price). */
  cost_usd: number | null;
}

/**
 * Token and cost accounting for one run: per call, per stage and in total, with an optional budget, and
 * the count of unusable answers in a row. `check()` throws BudgetExceeded once the budget is spent and
 * UnusableAnswers once the model has given `maxUnusable` unusable answers in a row; the model calls it
 * before each request, so no request is paid for after either.
 */
export class UsageMeter {
  readonly budget: Budget;
  readonly prices: PriceTable;
  readonly maxUnusable: number;
  private readonly stages = new Map<string, StageUsage>();
  private readonly listeners: ((totals: UsageTotals) => void)[] = [];
  private unusable: AnswerVerdict[] = [];

  constructor(opts: { budget?: Budget; prices?: PriceTable; maxUnusable?: number } = {}) {
    this.budget = opts.budget ?? {};
    this.prices = opts.prices ?? DEFAULT_PRICES;
    this.maxUnusable = Math.max(1, opts.maxUnusable ?? DEFAULT_MAX_UNUSABLE_ANSWERS);
  }

  /** A stage's verdict on an answer: a usable one resets the count of unusable answers in a row. */
  judge(verdict: AnswerVerdict): void {
    if (verdict.usable) this.unusable = [];
    else this.unusable.push(verdict);
  }

  /** Unusable answers in a row so far. */
  unusableInARow(): number {
    return this.unusable.length;
  }

  onChange(listener: (totals: UsageTotals) => void): void {
    this.listeners.push(listener);
  }

  cost(model: string, promptTokens: number, completionTokens: number): number | null {
    return costOf(priceFor(this.prices, model), promptTokens, completionTokens);
  }

  add(stage: string, prompt: number, completion: number, cost: number | null): void {
    const s: StageUsage = this.stages.get(stage) ?? {
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
    };
    s.calls += 1;
    s.prompt_tokens += prompt;
    s.completion_tokens += completion;
    s.cost_usd = s.cost_usd === null || cost === null ? null : s.cost_usd + cost;
    this.stages.set(stage, s);
    const totals = this.totals();
    for (const l of this.listeners) l(totals);
  }

  totals(): UsageTotals {
    const t: UsageTotals = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
    for (const s of this.stages.values()) {
      t.prompt_tokens += s.prompt_tokens;
      t.completion_tokens += s.completion_tokens;
      t.cost_usd = t.cost_usd === null || s.cost_usd === null ? null : t.cost_usd + s.cost_usd;
    }
    return t;
  }

  byStage(): Record<string, StageUsage> {
    return Object.fromEntries([...this.stages.entries()].map(([k, v]) => [k, { ...v }]));
  }

  calls(): number {
    let n = 0;
    for (const s of this.stages.values()) n += s.calls;
    return n;
  }

  exceeded(): boolean {
    const t = this.totals();
    const tokens = t.prompt_tokens + t.completion_tokens;
    if (this.budget.tokens !== undefined && tokens >= this.budget.tokens) return true;
    // An unknown cost cannot reach a dollar budget: runs without a price need a token budget (checkPricing).
    if (this.budget.usd !== undefined && t.cost_usd !== null && t.cost_usd >= this.budget.usd) return true;
    return false;
  }

  /** Throws BudgetExceeded when the budget is spent, UnusableAnswers after too many unusable answers. */
  check(): void {
    if (this.unusable.length >= this.maxUnusable) {
      const last = this.unusable[this.unusable.length - 1]!;
      throw new UnusableAnswers(
        this.unusable.length,
        `the model gave ${this.unusable.length} unusable answers in a row (the limit is ${this.maxUnusable}, ` +
          `AUTO_FIX_MAX_UNUSABLE_ANSWERS); the last one (${last.stage}${last.why ? `: ${last.why}` : ""}) was: ` +
          `"${quoteForMessage(last.text) || "(empty)"}"`,
      );
    }
    if (!this.exceeded()) return;
    const t = this.totals();
    throw new BudgetExceeded(this.budget, {
      tokens: t.prompt_tokens + t.completion_tokens,
      usd: t.cost_usd,
    });
  }
}
