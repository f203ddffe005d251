import {
  detectProject,
  loadRepoConfig,
  parseRepoConfig,
  type RepoConfig,
  RepoConfigError,
} from "../config/index.ts";
import type { FixContext, ReviewOutcome } from "../contract/pipeline.ts";
import { isFatal, type Reproduction } from "../reproduce/index.ts";
import {
  createSandbox,
  type SandboxOptions,
  type SandboxPort,
  SandboxUnavailableError,
  sandboxKindFromEnv,
  truncateMiddle,
} from "../sandbox/index.ts";
import {
  changedFilesOfDiff,
  compareRuns,
  TreeStates,
  testRunKey,
  type ValidationResult,
  validateCandidate,
} from "../validate/index.ts";
import type { ReviewLoopOutcome } from "./review-loop.ts";

export interface ReproduceReviewOptions {
  /** A ready sandbox (tests, the app's worker); default: the one the repository configuration asks for. */
  sandbox?: SandboxPort;
  /** A ready configuration (the app reads it through the API); default: read from the work tree. */
  config?: RepoConfig;
  env?: NodeJS.ProcessEnv;
  /** Opt-in for running without a sandbox (`AUTO_FIX_ALLOW_NO_SANDBOX=1`). */
  sandboxOptions?: SandboxOptions;
  /** Run the reproduce and review stages (default true); validation and selection run regardless. */
  reproduce?: boolean;
}

/** Per-run state of the reproduce, review and validation stages. */
export interface RunState {
  config: RepoConfig;
  sandbox: SandboxPort | null;
  states: TreeStates | null;
  problem: string | null;
  reproduction: Reproduction | null;
  validations: Map<string, Promise<ValidationResult>>;
  reviews: Map<string, ReviewLoopOutcome>;
  reviewedDiffs: Map<string, ReviewOutcome>;
}

/** The review loop that reviewed this candidate (as the original or as one of its rewrites). */
export function findLoop(r: RunState, id: string): ReviewLoopOutcome | null {
  const direct = r.reviews.get(id);
  if (direct) return direct;
  for (const loop of r.reviews.values()) if (loop.rounds.some((x) => x.patchId === id)) return loop;
  return null;
}

/**
 * Reads the configuration (a bad file is reported and detection used instead), makes the sandbox (an
 * unavailable one is reported: nothing from the repository runs), copies the work tree and runs setup.
 */
export async function prepareRunState(ctx: FixContext, opts: ReproduceReviewOptions): Promise<RunState> {
  const env = opts.env ?? process.env;
  let config: RepoConfig;
  let problem: string | null = null;
  try {
    config =
      opts.config ??
      loadRepoConfig(
        ctx.workdir,
        ctx.options.testCmd !== undefined ? { testCommand: ctx.options.testCmd } : {},
      );
  } catch (err) {
    if (!(err instanceof RepoConfigError)) throw err;
    problem = err.message;
    ctx.recorder.write("config-error.txt", `${err.message}\n`);
    // The run goes on with what detection finds; the report says the file was ignored and why.
    config = parseRepoConfig(null, detectProject(ctx.workdir));
    problem = `${problem}\n(the file was ignored; settings were detected instead)`;
  }
  if (ctx.options.testCmd !== undefined && opts.config) {
    config = { ...config, test: { ...config.test, command: ctx.options.testCmd, source: "cli" } };
  }
  ctx.recorder.writeJson("config.json", config);
  let sandbox: SandboxPort | null = opts.sandbox ?? null;
  if (!sandbox) {
    const envKind = sandboxKindFromEnv(env);
    const kind = envKind !== "auto" ? envKind : config.sandbox.backend;
    try {
      sandbox = await createSandbox(kind, {
        ...opts.sandboxOptions,
        image: env.AUTO_FIX_SANDBOX_IMAGE ?? config.sandbox.image ?? undefined,
        allowUnsandboxed: opts.sandboxOptions?.allowUnsandboxed ?? env.AUTO_FIX_ALLOW_NO_SANDBOX === "1",
        warn: (m) => ctx.progress.detail(m),
      });
    } catch (err) {
      if (!(err instanceof SandboxUnavailableError)) throw err;
      problem = `${problem ? `${problem}\n` : ""}no sandbox: ${err.message}; nothing from the repository was run`;
    }
  }
  let states: TreeStates | null = null;
  if (sandbox) {
    ctx.progress.detail(config.setup.length > 0 ? "setup" : "preparing trees");
    try {
      // The job's trees: the tree search, when it runs, gets the same ones (setup runs once per job).
      states = await TreeStates.forJob({ sandbox, config, source: ctx.workdir });
    } catch (err) {
      if (isFatal(err)) throw err;
      problem = `${problem ? `${problem}\n` : ""}could not prepare the work trees: ${(err as Error).message}`;
    }
    if (states && states.setup.length > 0) {
      ctx.recorder.writeJson(
        "setup.json",
        states.setup.map((s) => ({
          command: s.command,
          ok: s.ok,
          exitCode: s.exec.exitCode,
          limit: s.exec.limit,
          stdout: truncateMiddle(s.exec.stdout, 4000),
          stderr: truncateMiddle(s.exec.stderr, 4000),
        })),
      );
    }
    // With `validation: full` the whole unpatched suite is needed anyway: it starts now and runs while the
    // model searches. Targeted validation runs only what candidates select, once per job.
    if (states?.setupOk && config.test.command && config.validation.mode === "full") {
      states.baseline().catch(() => null);
    }
    // The tree search checks its candidates on the same set-up tree and the same unpatched results.
    if (states?.setupOk) ctx.job = { ...ctx.job, trees: states };
    if (states && !states.setupOk) {
      const failed = states.setup.find((s) => !s.ok)!;
      problem = `${problem ? `${problem}\n` : ""}setup step failed: ${failed.command} (exit ${failed.exec.exitCode ?? failed.exec.limit})`;
    }
  }
  return {
    config,
    sandbox,
    states,
    problem,
    reproduction: null,
    validations: new Map(),
    reviews: new Map(),
    reviewedDiffs: new Map(),
  };
}

/**
 * Runs the repository's tests on a patch, once per distinct diff: the tests related to the change first
 * (and those the reproducer or `modelText` names), the rest as the configuration and its budget allow;
 * a failure to run is an "error" result.
 */
export function validateDiff(r: RunState, diff: string, modelText?: string): Promise<ValidationResult> {
  let p = r.validations.get(diff);
  if (!p) {
    p = (async () => {
      if (!r.states || !r.sandbox || !r.config.test.command) return compareRuns(null, null);
      try {
        const states = r.states;
        const sandbox = r.sandbox;
        const script = r.reproduction?.script;
        // The tree search may have run the tests on this very program already: its run is used.
        const run = await states.once(testRunKey(diff), async () => {
          const copy = await states.patched(diff);
          try {
            return await validateCandidate({
              sandbox,
              config: r.config,
              pristine: { dir: states.pristineDir, tests: states.tests },
              workdir: copy.dir,
              changed: changedFilesOfDiff(diff),
              ...(script ? { reproducerText: script } : {}),
              ...(modelText ? { modelText } : {}),
            });
          } finally {
            await copy.dispose();
          }
        });
        return run.result;
      } catch (err) {
        if (isFatal(err)) throw err;
        return {
          ...compareRuns(null, null),
          status: "error",
          command: r.config.test.command,
          summary: `validation could not run: ${(err as Error).message}`,
        };
      }
    })();
    r.validations.set(diff, p);
  }
  return p;
}
