import { z } from "zod";
import type { RepoConfig } from "../../config/index.ts";
import type { FixContext } from "../../contract/pipeline.ts";
import type { ExecResult, SandboxPort } from "../../sandbox/types.ts";
import { TreeStates } from "../../validate/index.ts";
import { type ReproducerScript, sandboxChecks } from "./sandbox-checks.ts";
import type { TreeChecks } from "./strategy.ts";

/** What the reproduce stage leaves in `state.reproduction.data` when it reproduced the issue. */
const ReproducedData = z.object({
  status: z.literal("reproduced"),
  /** The script's path in the work tree (`file` in older records). */
  path: z.string().min(1).optional(),
  file: z.string().min(1).optional(),
  command: z.string().min(1),
  script: z.string().min(1),
  /** Its run on the unpatched tree (output cut to a few thousand characters). */
  before: z
    .object({
      exitCode: z.number().int().nullable(),
      limit: z.enum(["time", "memory", "processes", "output", "disk", "files"]).nullable(),
      stdout: z.string(),
      stderr: z.string(),
    })
    .nullable()
    .optional(),
});

/** The reproducing script of this run, when the reproduce stage wrote one that fails on the bug. */
export function reproducerFromRun(ctx: FixContext, config: RepoConfig): ReproducerScript | null {
  const parsed = ReproducedData.safeParse(ctx.state.reproduction?.data);
  if (!parsed.success) return null;
  const d = parsed.data;
  const file = d.path ?? d.file;
  if (!file) return null;
  return { file, content: d.script, command: d.command, timeoutMs: config.timeouts.reproducerMs };
}

/** The reproduce stage's run of its script on the unpatched tree, when it left one. */
function reproducerRunBefore(ctx: FixContext, kind: SandboxPort["kind"]): ExecResult | null {
  const parsed = ReproducedData.safeParse(ctx.state.reproduction?.data);
  const b = parsed.success ? parsed.data.before : null;
  if (!b) return null;
  return { ...b, signal: null, truncated: false, durationMs: 0, backend: kind };
}

/**
 * The tree search's checks for one pipeline run: the reproduce stage's script and the repository's test
 * command, run in the run's sandbox (`ctx.sandbox`) on a set-up copy of the work tree. A string says why
 * there are none.
 */
export async function treeChecksForRun(ctx: FixContext): Promise<TreeChecks | string> {
  const { config } = ctx;
  const reproducer = reproducerFromRun(ctx, config);
  if (!reproducer && !config.test.command) {
    return "no reproducer reproduced the issue and the repository has no test command";
  }
  const sandbox = ctx.sandbox.port;
  if (!sandbox) return `no sandbox to run the checks in: ${ctx.sandbox.problem}`;
  // The job's trees: when the validation stage prepared them, setup is not run again, the unpatched
  // test run is shared, and so are the runs of a program both check.
  const states = await TreeStates.forJob({
    sandbox,
    config,
    source: ctx.workdir,
    setupCache: ctx.sandbox.setupCache ?? null,
  });
  if (!states.setupOk) {
    const failed = states.setup.find((s) => !s.ok)!;
    await states.dispose();
    return `the setup step \`${failed.command}\` failed, so no check can run`;
  }
  const before = reproducer ? reproducerRunBefore(ctx, sandbox.kind) : null;
  const checks = sandboxChecks({
    sandbox,
    config,
    reproducer,
    pristine: states.pristineDir,
    tests: states.tests,
    baselineTests: () => states.baseline(),
    memo: states,
    ...(before ? { reproducerBefore: before } : {}),
  });
  return { ...checks, workTree: () => states.pristine(), dispose: () => states.dispose() };
}
