import { BudgetExceeded } from "./errors.ts";

/** Dollars per one million tokens. */
export interface Price {
  input: number;
  output: number;
}

/** Prices keyed by model name; a key ending in `*` matches by prefix. Unknown models cost 0. */
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

export function costOf(price: Price | null, promptTokens: number, completionTokens: number): number {
  if (!price) return 0;
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}

export interface Budget {
  tokens?: number;
  usd?: number;
}

export interface StageUsage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

/**
 * Token and cost accounting for one run: per call, per stage and in total, with an optional budget.
 * `check()` throws BudgetExceeded once the budget is spent; the model calls it before each request.
 */
export class UsageMeter {
  readonly budget: Budget;
  readonly prices: PriceTable;
  private readonly stages = new Map<string, StageUsage>();
  private readonly listeners: ((totals: UsageTotals) => void)[] = [];

  constructor(opts: { budget?: Budget; prices?: PriceTable } = {}) {
    this.budget = opts.budget ?? {};
    this.prices = opts.prices ?? DEFAULT_PRICES;
  }

  onChange(listener: (totals: UsageTotals) => void): void {
    this.listeners.push(listener);
  }

  cost(model: string, promptTokens: number, completionTokens: number): number {
    return costOf(priceFor(this.prices, model), promptTokens, completionTokens);
  }

  add(stage: string, prompt: number, completion: number, cost: number): void {
    const s = this.stages.get(stage) ?? { calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
    s.calls += 1;
    s.prompt_tokens += prompt;
    s.completion_tokens += completion;
    s.cost_usd += cost;
    this.stages.set(stage, s);
    const totals = this.totals();
    for (const l of this.listeners) l(totals);
  }

  totals(): UsageTotals {
    const t: UsageTotals = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
    for (const s of this.stages.values()) {
      t.prompt_tokens += s.prompt_tokens;
      t.completion_tokens += s.completion_tokens;
      t.cost_usd += s.cost_usd;
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
    if (this.budget.usd !== undefined && t.cost_usd >= this.budget.usd) return true;
    return false;
  }

  /** Throws BudgetExceeded when the budget is spent. */
  check(): void {
    if (!this.exceeded()) return;
    const t = this.totals();
    throw new BudgetExceeded(this.budget, {
      tokens: t.prompt_tokens + t.completion_tokens,
      usd: t.cost_usd,
    });
  }
}
