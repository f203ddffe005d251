import {
  detectProject,
  loadRepoConfig,
  parseRepoConfig,
  type RepoConfig,
  RepoConfigError,
} from "../config/index.ts";
import { linearStrategy } from "./linear.ts";
import type { FixContext, PatchCandidate, PatchStrategy } from "../contract/pipeline.ts";
import { UserError } from "../core/errors.ts";
import { parseTreeSearchConfig, type TreeSearchConfig } from "../config/tree-search.ts";
import { type RunChecksOptions, treeChecksForRun } from "./tree/run-checks.ts";
import { treeStrategy } from "./tree/strategy.ts";

export interface ConfiguredStrategyOptions extends RunChecksOptions {
  /** `--strategy`: wins over the repository configuration; absent = the configuration decides. */
  name?: "linear" | "tree";
  /** Tree parameters from the command line, over the configuration's. */
  tree?: Partial<TreeSearchConfig>;
  patchAttempts?: number;
  /** A ready configuration (the app reads it through the API); default: read from the work tree. */
  config?: RepoConfig;
}

function repoConfig(
  ctx: FixContext,
  opts: ConfiguredStrategyOptions,
): { config: RepoConfig; note: string | null } {
  if (opts.config) return { config: opts.config, note: null };
  // The command line reads the configuration once, before the run; the app hands it over the same way.
  if (ctx.options.repoConfig) return { config: ctx.options.repoConfig, note: null };
  const over = ctx.options.testCmd !== undefined ? { testCommand: ctx.options.testCmd } : {};
  try {
    return { config: loadRepoConfig(ctx.workdir, over), note: null };
  } catch (err) {
    if (!(err instanceof RepoConfigError)) throw err;
    const config = parseRepoConfig(null, detectProject(ctx.workdir));
    if (ctx.options.testCmd !== undefined) {
      config.test = { ...config.test, command: ctx.options.testCmd, source: "cli" };
    }
    return { config, note: `${err.message} (the patch strategy used the defaults)` };
  }
}

/**
 * The patch strategy a run uses: `--strategy` when given, else `strategy:` in `.github/auto-fix.yml`,
 * else linear. The tree search takes its parameters from the configuration, overridden by the command
 * line, and its checks from the reproduce stage and the repository's test command.
 */
export function configuredStrategy(opts: ConfiguredStrategyOptions = {}): PatchStrategy {
  return {
    name: opts.name ?? "as configured",
    async run(ctx: FixContext): Promise<PatchCandidate[]> {
      const { config, note } = repoConfig(ctx, opts);
      if (note) ctx.state.notes = [...(ctx.state.notes ?? []), note];
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
        checks: (c) => treeChecksForRun(c, config, opts),
        fallback: linear,
        protectedGlobs: config.protectedPaths,
      });
      return tree.run(ctx);
    },
  };
}
