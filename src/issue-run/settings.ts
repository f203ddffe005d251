import { z } from "zod";
import { buildScriptGlobs, type RepoConfigFile } from "../config/index.ts";
import { RENAMED_SETTINGS } from "../model/config.ts";

/** Operator settings from the environment (see `.env.example`). Repo config may lower budgets, never raise them. */
export interface AppSettings {
  /** Label that starts a run when a maintainer adds it. */
  label: string;
  maxRunsPerIssue: number;
  maxRunsPerRepoPerDay: number;
  maxCostUsdPerRun: number;
  /** Model spend per repository per UTC day, over every worker (runs reserve their budget from it). */
  maxCostUsdPerRepoPerDay: number;
  /** Where clones and run artifacts go (one directory per job). */
  workDir: string;
  /** Commit author for the app's commits. */
  gitAuthor: { name: string; email: string };
  /** Workers in this process. */
  concurrency: number;
  /** Command the pipeline runs as tests, when the repo config names none. */
  testCommand: string | undefined;
  /**
   * A delivery answered but not finished (its process died before the `/cancel` or label check after
   * the answer) is taken up by a live process once it has been left this long.
   */
  resumeHeldAfterMs: number;
  /** Deprecated setting names in use (printed at start; never fatal). */
  warnings: string[];
  /** Models a repository may pick with `model:` in `.github/auto-fix.yml` (`AUTO_FIX_ALLOWED_MODELS`). */
  allowedModels: string[];
  /**
   * When CI runs on the app's branch unless the repository's `ci:` says otherwise (`AUTO_FIX_CI`): after
   * a maintainer's approval (default) or at once.
   */
  ci: CiMode;
  /** Commands and reviews one person may send per repository per hour before they are dropped unanswered. */
  commandsPerUserPerHour: number;
  /** Commands and reviews per repository per hour, from everyone. */
  commandsPerRepoPerHour: number;
}

export type CiMode = "approval" | "immediate";

const positive = (fallback: number) => z.coerce.number().positive().catch(fallback).default(fallback);

const EnvSchema = z.object({
  AUTO_FIX_LABEL: z.string().trim().min(1).catch("auto-fix").default("auto-fix"),
  AUTO_FIX_MAX_RUNS_PER_ISSUE: positive(5),
  AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY: positive(20),
  AUTO_FIX_MAX_COST_USD_PER_RUN: positive(2),
  AUTO_FIX_MAX_COST_USD_PER_REPO_PER_DAY: positive(20),
  AUTO_FIX_WORK_DIR: z.string().min(1).catch(".auto-fix/work").default(".auto-fix/work"),
  AUTO_FIX_GIT_AUTHOR_NAME: z.string().min(1).catch("auto-fix[bot]").default("auto-fix[bot]"),
  AUTO_FIX_GIT_AUTHOR_EMAIL: z.string().min(1).default("auto-fix[bot]@users.noreply.github.com"),
  AUTO_FIX_CONCURRENCY: positive(1),
  AUTO_FIX_TEST_CMD: z.string().min(1).optional(),
  AUTO_FIX_RESUME_HELD_AFTER_MS: z.coerce.number().min(0).catch(120_000).default(120_000),
  AUTO_FIX_ALLOWED_MODELS: z.string().default(""),
  AUTO_FIX_CI: z.enum(["approval", "immediate"]).catch("approval").default("approval"),
  AUTO_FIX_COMMANDS_PER_USER_PER_HOUR: positive(30),
  AUTO_FIX_COMMANDS_PER_REPO_PER_HOUR: positive(200),
});

/**
 * A setting under its current name or an old one (RENAMED_SETTINGS), with a warning for the old one; the
 * lowest valid value wins, so that a renamed limit is never loosened. Invalid values are ignored.
 */
function renamed(env: NodeJS.ProcessEnv, name: string, warnings: string[]): string | undefined {
  let lowest: number | undefined;
  for (const n of [name, ...(RENAMED_SETTINGS[name] ?? [])]) {
    const v = Number(env[n]);
    if (env[n] === undefined || env[n] === "" || !Number.isFinite(v) || v <= 0) continue;
    if (n !== name) warnings.push(`${n} is deprecated; use ${name} (the same setting)`);
    lowest = lowest === undefined ? v : Math.min(lowest, v);
  }
  return lowest === undefined ? undefined : String(lowest);
}

export function readSettings(env: NodeJS.ProcessEnv): AppSettings {
  const warnings: string[] = [];
  const perRun = renamed(env, "AUTO_FIX_MAX_COST_USD_PER_RUN", warnings);
  const e = EnvSchema.parse({ ...env, AUTO_FIX_MAX_COST_USD_PER_RUN: perRun });
  return {
    label: e.AUTO_FIX_LABEL,
    maxRunsPerIssue: Math.floor(e.AUTO_FIX_MAX_RUNS_PER_ISSUE),
    maxRunsPerRepoPerDay: Math.floor(e.AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY),
    maxCostUsdPerRun: e.AUTO_FIX_MAX_COST_USD_PER_RUN,
    maxCostUsdPerRepoPerDay: e.AUTO_FIX_MAX_COST_USD_PER_REPO_PER_DAY,
    workDir: e.AUTO_FIX_WORK_DIR,
    gitAuthor: { name: e.AUTO_FIX_GIT_AUTHOR_NAME, email: e.AUTO_FIX_GIT_AUTHOR_EMAIL },
    concurrency: Math.floor(e.AUTO_FIX_CONCURRENCY),
    testCommand: e.AUTO_FIX_TEST_CMD,
    resumeHeldAfterMs: Math.floor(e.AUTO_FIX_RESUME_HELD_AFTER_MS),
    warnings,
    allowedModels: [...new Set(e.AUTO_FIX_ALLOWED_MODELS.split(/[\s,]+/).filter(Boolean))],
    ci: e.AUTO_FIX_CI,
    commandsPerUserPerHour: Math.max(1, Math.floor(e.AUTO_FIX_COMMANDS_PER_USER_PER_HOUR)),
    commandsPerRepoPerHour: Math.max(1, Math.floor(e.AUTO_FIX_COMMANDS_PER_REPO_PER_HOUR)),
  };
}

export interface EffectiveConfig {
  label: string;
  maxRunsPerIssue: number;
  maxRunsPerRepoPerDay: number;
  maxCostUsdPerRun: number;
  testCommand: string | undefined;
  /** The model the repository asks for (`model:`), checked against the operator's list at admission. */
  model: string | undefined;
  /** Automatic runs after a failing check on the app's pull request (`ci_retries:`, default 0). */
  ciRetries: number;
  /** The file's `protected-paths` (a run on another ref protects them as well as that ref's own). */
  protectedPaths: string[];
  /** The build scripts the file protects: all of them unless it says `build-scripts: editable`. */
  buildScripts: readonly string[];
  /** When CI runs on the app's branch: the default branch's `ci:`, else the operator's `AUTO_FIX_CI`. */
  ci: CiMode;
}

/**
 * Merges the repository's `.github/auto-fix.yml` (validated with the schema the command line uses:
 * config/schema.ts) under the operator's ceilings: it may lower budgets, never raise them.
 */
export function effectiveConfig(settings: AppSettings, repoConfig: RepoConfigFile | null): EffectiveConfig {
  const c: RepoConfigFile = repoConfig ?? {};
  const lower = (ceiling: number, value: number | undefined) =>
    value === undefined ? ceiling : Math.min(ceiling, value);
  return {
    label: c.label ?? settings.label,
    maxRunsPerIssue: Math.floor(lower(settings.maxRunsPerIssue, c.budgets?.["runs-per-issue"])),
    maxRunsPerRepoPerDay: Math.floor(
      lower(settings.maxRunsPerRepoPerDay, c.budgets?.["runs-per-repo-per-day"]),
    ),
    maxCostUsdPerRun: lower(settings.maxCostUsdPerRun, c.budgets?.["cost-usd"]),
    // The repo's own `test` is read by the pipeline from the clone; the operator's default fills a gap.
    testCommand: c.test === undefined ? settings.testCommand : undefined,
    model: c.model,
    ciRetries: c.ci_retries ?? 0,
    protectedPaths: c["protected-paths"] ?? [],
    buildScripts: buildScriptGlobs(repoConfig),
    ci: c.ci ?? settings.ci,
  };
}
