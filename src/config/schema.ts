import { RUNNER_NAMES, type RunnerName } from "../runners/index.ts";
import { linearRegExp } from "../core/linear-regex.ts";
import { REPRODUCER_RUNTIMES } from "../languages/index.ts";
import { z } from "zod";

/** File name of the repository configuration, relative to the repository root. */
export const CONFIG_PATH = ".github/auto-fix.yml";

const seconds = z
  .number({ error: "expected a number of seconds" })
  .positive({ error: "must be more than 0 seconds" })
  .max(24 * 3600, { error: "must be at most 86400 seconds (a day)" });
const count = (max: number) =>
  z
    .number({ error: "expected a whole number" })
    .int({ error: "expected a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(max, { error: `must be at most ${max}` });
const command = z
  .string({ error: "expected a command (a string)" })
  .trim()
  .min(1, { error: "must not be empty" });
const commands = z.union([command.transform((c) => [c]), z.array(command)], {
  error: "expected a command or a list of commands",
});

/** The runtimes of the language folders' reproducers (`python`, `node`, `rust`, ...), and `command`. */
const [firstRuntime = "command", ...moreRuntimes] = [...REPRODUCER_RUNTIMES, "command"];
export const RUNTIMES: [string, ...string[]] = [firstRuntime, ...moreRuntimes];
export type ReproducerRuntime = string;

const reproducerSchema = z
  .object({
    runtime: z.enum(RUNTIMES, { error: `expected one of ${RUNTIMES.join(", ")}` }).optional(),
    /** Command template; `{file}` is replaced by the reproducer's path. Required for runtime `command`. */
    command: command.optional(),
    /** Where the reproducer is written, relative to the repository root. */
    file: z
      .string()
      .regex(/^(?!\/)(?!.*\.\.)[\w./-]+$/, { error: "must be a relative path inside the repository" })
      .optional(),
    /**
     * A regular expression; "reproduced" = an uncaught exception whose `Type: message`, as the runtime
     * reported it, matches (for runtime `command` or a custom command: a non-zero exit and a match in stderr).
     */
    pattern: z
      .string()
      .superRefine((p, ctx) => {
        const r = linearRegExp(p);
        if (!r.ok) ctx.addIssue({ code: "custom", message: r.message });
      })
      .optional(),
    attempts: count(10).optional(),
  })
  .strict()
  .refine((r) => r.runtime !== "command" || r.command !== undefined, {
    error: "runtime `command` needs a `command` template such as 'ruby {file}'",
  });

const treeSchema = z
  .object({
    mode: z.enum(["linear", "tree"], { error: "expected linear or tree" }).optional(),
    /** Exploration weight of the UCB selection (`exploration` is accepted as another name). */
    c: z.number({ error: "expected a number" }).min(0).max(100).optional(),
    exploration: z.number({ error: "expected a number" }).min(0).max(100).optional(),
    branch: count(16).optional(),
    max_expansion: count(16).optional(),
    /** Rollouts of the search (`iterations` is accepted as another name). */
    max_rollout: count(500).optional(),
    iterations: count(500).optional(),
    value_mix: z.number({ error: "expected a number" }).min(0).max(1).optional(),
  })
  .strict();

/** Test runners whose tests can be named one by one (what a targeted run passes them). */
export const TEST_RUNNERS = RUNNER_NAMES;
export type TestRunnerKind = RunnerName;

const validationSchema = z
  .object({
    /** targeted: the tests related to the change first, the rest when the budget allows; full: always all. */
    mode: z.enum(["targeted", "full"], { error: "expected targeted or full" }).optional(),
    /**
     * Seconds a candidate's validation may spend on the tests related to its change (unpatched runs the
     * job still needs included); related tests past it, in rank order, are reported as not run.
     */
    "related-budget": z
      .number({ error: "expected a number of seconds" })
      .min(1, { error: "must be at least 1 second" })
      .max(24 * 3600, { error: "must be at most 86400 seconds (a day)" })
      .optional(),
    /** Seconds a candidate's validation may spend on the rest of the suite after its targeted tests. */
    budget: z
      .number({ error: "expected a number of seconds" })
      .min(0, { error: "must be at least 0 seconds" })
      .max(24 * 3600, { error: "must be at most 86400 seconds (a day)" })
      .optional(),
    /** How the selected tests are named to the runner; detected from the test command otherwise. */
    runner: z.enum(TEST_RUNNERS, { error: `expected one of ${TEST_RUNNERS.join(", ")}` }).optional(),
    /**
     * Whether the related tests are chosen within what the test command runs (the paths, packages or
     * modules it names); false: from the whole repository. Default true.
     */
    "within-command": z.boolean({ error: "expected true or false" }).optional(),
    /** The command that runs only some tests; `{tests}` stands for the selected tests (as arguments). */
    command: command
      .refine((c) => c.includes("{tests}"), {
        error: "must contain {tests} where the selected tests go, e.g. './run-tests.sh {tests}'",
      })
      .optional(),
  })
  .strict();

export const repoConfigFileSchema = z
  .object({
    setup: commands.optional(),
    test: command.optional(),
    /** JUnit XML reports the test command writes (globs), read for per-test results. */
    "test-reports": z
      .union([
        z
          .string()
          .max(1000)
          .transform((s) => [s]),
        z.array(z.string().max(1000)).max(50),
      ])
      .optional(),
    reproducer: reproducerSchema.optional(),
    /** Add a regression test (a new file in the repository's test framework) to each patch; on by default. */
    "regression-test": z.boolean({ error: "expected true or false" }).optional(),
    /** How candidates are validated: `targeted` (default) or `full`, or the detailed settings. */
    validation: z.preprocess((v) => (typeof v === "string" ? { mode: v } : v), validationSchema).optional(),
    timeouts: z
      .object({ setup: seconds.optional(), test: seconds.optional(), reproducer: seconds.optional() })
      .strict()
      .optional(),
    strategy: z
      .union([z.enum(["linear", "tree"], { error: "expected linear or tree" }), treeSchema])
      .optional(),
    budgets: z
      .object({
        "cost-usd": z.number({ error: "expected an amount in US dollars" }).positive().max(1000).optional(),
        "runs-per-issue": count(100).optional(),
        "runs-per-repo-per-day": count(10_000).optional(),
        "review-rounds": count(20).optional(),
        "search-rounds": count(50).optional(),
      })
      .strict()
      .optional(),
    "protected-paths": z
      .array(z.string().min(1).max(1000, { error: "a glob may be at most 1000 characters" }))
      .max(500, { error: "at most 500 globs" })
      .optional(),
    /**
     * Build scripts that run on every build (build.rs, Gradle's files and wrapper, setup.py) are
     * protected unless this says `editable`.
     */
    "build-scripts": z
      .enum(["protected", "editable"], { error: "expected protected or editable" })
      .optional(),
    /**
     * Read by the GitHub App: when the repository's CI runs on the app's branch: after a maintainer's
     * approval (`approval`, the default) or at once (`immediate`).
     */
    ci: z.enum(["approval", "immediate"], { error: "expected approval or immediate" }).optional(),
    label: z.string().trim().min(1).max(50).optional(),
    /** Read by the GitHub App: a model from the operator's `AUTO_FIX_ALLOWED_MODELS`. */
    model: z.string().trim().min(1).max(200).optional(),
    /** Read by the GitHub App: automatic runs after a failing check on its pull request (per person-started run). */
    ci_retries: z.number({ error: "expected a whole number" }).int().min(0).max(10).optional(),
    sandbox: z
      .object({
        backend: z.enum(["auto", "bwrap", "docker"], { error: "expected auto, bwrap or docker" }).optional(),
        image: z.string().min(1).optional(),
        "memory-mb": z.number().int().min(64).max(65536).optional(),
        "max-processes": z.number().int().min(8).max(100_000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type RepoConfigFile = z.infer<typeof repoConfigFileSchema>;
