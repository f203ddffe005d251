import { linearStrategy } from "./linear-strategy.ts";
import type { PatchStrategy } from "./types.ts";

export interface StrategyOptions {
  patchAttempts?: number;
}

/** Patch strategies selectable with `fix --strategy <name>`; each is a factory. */
export const STRATEGIES: Record<string, (opts: StrategyOptions) => PatchStrategy> = {
  linear: (opts) =>
    linearStrategy(opts.patchAttempts !== undefined ? { maxAttempts: opts.patchAttempts } : {}),
};
