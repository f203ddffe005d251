import { configuredStrategy } from "./configured.ts";
import { linearStrategy } from "./linear.ts";
import type { PatchStrategy } from "../contract/pipeline.ts";

export interface StrategyOptions {
  patchAttempts?: number;
}

/** Patch strategies selectable with `fix --strategy <name>`; each is a factory. */
export const STRATEGIES: Record<string, (opts: StrategyOptions) => PatchStrategy> = {
  linear: (opts) =>
    linearStrategy(opts.patchAttempts !== undefined ? { maxAttempts: opts.patchAttempts } : {}),
  /** Tree search over patches, with the parameters of `strategy:` in the repository configuration. */
  tree: (opts) =>
    configuredStrategy({
      name: "tree",
      ...(opts.patchAttempts !== undefined ? { patchAttempts: opts.patchAttempts } : {}),
    }),
};
