import type { RepoConfig } from "../config/index.ts";
import { stopsRun } from "../contract/failures.ts";
import type { FixContext, ReviewOutcome } from "../contract/pipeline.ts";
import { TriedPatches } from "../contract/tried-patches.ts";
import type { Reproduction } from "../reproduce/index.ts";
import type { ReviewLoopOutcome } from "../review/index.ts";
import { readRuntimeLine, runtimesFor, type SandboxPort, truncateMiddle } from "../sandbox/index.ts";
import { TreeStates, type ValidateStageInput, type ValidationResult } from "../validate/index.ts";

export interface StageHooksOptions {
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
  /** Review outcomes by `patchKey`: a patch reviewed once is not reviewed again in the job. */
  reviewedDiffs: Map<string, ReviewOutcome>;
  /** Every patch the job ran, reviewed or validated, and what happened to it. */
  tried: TriedPatches;
  /** The runtimes' versions as the sandbox runs them, one line for the prompts ("" when not read). */
  runtime: string;
}

/** The review loop that reviewed this candidate (as the original or as one of its rewrites). */
export function findLoop(r: RunState, id: string): ReviewLoopOutcome | null {
  const direct = r.reviews.get(id);
  if (direct) return direct;
  for (const loop of r.reviews.values()) if (loop.rounds.some((x) => x.patchId === id)) return loop;
  return null;
}

/** What the validation stage needs of the run's state. */
export const validateInput = (r: RunState): ValidateStageInput => ({
  sandbox: r.sandbox,
  config: r.config,
  states: r.states,
  cache: r.validations,
  ...(r.reproduction?.script ? { reproducerText: r.reproduction.script } : {}),
});

const note = (ctx: FixContext, text: string): void => {
  ctx.state.notes = [...(ctx.state.notes ?? []), text];
};

const joinProblem = (problem: string | null, more: string) => (problem ? `${problem}\n${more}` : more);

/** The runtimes' line beside the project's at the head of the located code (first, without one). */
export function withRuntime(locations: string, runtime: string): string {
  if (!runtime) return locations;
  const project = /^Project: [^\n]*\n/.exec(locations);
  return project
    ? `${project[0]}${runtime}\n${locations.slice(project[0].length)}`
    : `${runtime}\n\n${locations}`;
}

/** The runtimes' versions, read once per run in a copy of the set-up tree ("" when they cannot be). */
async function runtimeOf(ctx: FixContext, sandbox: SandboxPort, states: TreeStates): Promise<string> {
  const runtimes = runtimesFor(ctx.config.language, ctx.config.reproducer.runtime);
  if (runtimes.length === 0) return "";
  try {
    const tree = await states.pristine();
    try {
      return await readRuntimeLine(sandbox, tree.dir, runtimes);
    } finally {
      await tree.dispose();
    }
  } catch (err) {
    if (stopsRun(err)) throw err;
    note(ctx, `The runtimes' versions could not be read in the sandbox: ${(err as Error).message}`);
    return "";
  }
}

/**
 * Prepares the trees the stages run in, in the sandbox and with the configuration the caller handed in
 * (a missing sandbox is reported: nothing from the repository runs), and runs the setup steps; the
 * baseline test run starts at once.
 */
export async function prepareRunState(ctx: FixContext): Promise<RunState> {
  const { config } = ctx;
  const sandbox = ctx.sandbox.port;
  let problem: string | null = ctx.sandbox.problem
    ? `no sandbox: ${ctx.sandbox.problem}; nothing from the repository was run`
    : null;
  let states: TreeStates | null = null;
  if (sandbox) {
    ctx.progress.detail(
      config.setup.length > 0 ? "running the repository's setup" : "preparing copies of the code",
    );
    try {
      // The job's trees: the tree search, when it runs, gets the same ones (setup runs once per job).
      states = await TreeStates.forJob({
        sandbox,
        config,
        source: ctx.workdir,
        setupCache: ctx.sandbox.setupCache ?? null,
      });
    } catch (err) {
      if (stopsRun(err)) throw err;
      problem = joinProblem(problem, `could not prepare the work trees: ${(err as Error).message}`);
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
    const cache = states?.setupCache;
    if (cache) {
      ctx.recorder.writeJson("setup-cache.json", cache);
      const locks = cache.lockFiles.length > 0 ? cache.lockFiles.join(", ") : "no lock file";
      if (cache.used) {
        note(
          ctx,
          `The setup step did not run: its result from an earlier run of this repository with the same setup commands, setup scripts, manifests and lock files (${locks}) was taken from the cache: only the dependency folders it installed (${cache.entries} entries).`,
        );
      } else if (cache.problem) note(ctx, `The setup step ran; ${cache.problem}.`);
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
      problem = joinProblem(
        problem,
        `setup step failed: ${failed.command} (exit ${failed.exec.exitCode ?? failed.exec.limit})`,
      );
    }
  }
  const runtime = sandbox && states?.setupOk ? await runtimeOf(ctx, sandbox, states) : "";
  ctx.state.runtime = runtime;
  return {
    config,
    sandbox,
    states,
    problem,
    runtime,
    reproduction: null,
    validations: new Map(),
    reviews: new Map(),
    reviewedDiffs: new Map(),
    tried: new TriedPatches(),
  };
}
