import { linearStrategy } from "./linear.ts";
import type { FixContext, PatchCandidate, PatchStrategy } from "../contract/pipeline.ts";
import { UserError } from "../core/errors.ts";
import { parseTreeSearchConfig, type TreeSearchConfig } from "../config/tree-search.ts";
import { treeChecksForRun } from "./tree/run-checks.ts";
import { treeStrategy } from "./tree/strategy.ts";

export interface ConfiguredStrategyOptions {
  /** `--strategy`: wins over the repository configuration; absent = the configuration decides. */
  name?: "linear" | "tree";
  /** Tree parameters from the command line, over the configuration's. */
  tree?: Partial<TreeSearchConfig>;
  patchAttempts?: number;
}

/**
 * The patch strategy a run uses: `--strategy` when given, else `strategy:` in `.github/auto-fix.yml`,
 * else linear. The tree search takes its parameters from the configuration, overridden by the command
 * line, and its checks from the reproduce stage and the repository's test command. The configuration and
 * the sandbox are the run's own (`ctx.config`, `ctx.sandbox`), handed in by the pipeline's caller.
 */
export function configuredStrategy(opts: ConfiguredStrategyOptions = {}): PatchStrategy {
  return {
    name: opts.name ?? "as configured",
    async run(ctx: FixContext): Promise<PatchCandidate[]> {
      const { config } = ctx;
      const linear = linearStrategy(
        opts.patchAttempts !== undefined ? { maxAttempts: opts.patchAttempts } : {},
      );
      const mode = opts.name ?? config.strategy.mode;
      ctx.progress.detail(mode);
      if (mode === "linear") return linear.run(ctx);
      const { mode: _mode, ...fromConfig } = config.strategy;
      const params = parseTreeSearchConfig(opts.tree ?? {}, fromConfig);
      if (!params.ok) throw new UserError(params.message);
      const tree = treeStrategy({
        config: params.config,
        checks: (c) => treeChecksForRun(c),
        fallback: linear,
        protectedGlobs: config.protectedPaths,
      });
      return tree.run(ctx);
    },
  };
}
