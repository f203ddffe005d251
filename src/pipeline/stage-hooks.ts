import { reproducerForRuntime } from "../languages/index.ts";
import { fenceIssue } from "../agents/issue-text.ts";
import type {
  FixContext,
  FixHooks,
  PatchCandidate,
  RegressionOutcome,
  ReproduceOutcome,
  ReviewOutcome,
  ValidationOutcome,
} from "../contract/pipeline.ts";
import { patchKey } from "../contract/tried-patches.ts";
import { regressStage } from "../regress/index.ts";
import type { ReviewLoopOutcome } from "../review/index.ts";
import { reproduceStage } from "../reproduce/index.ts";
import { reviewStage } from "../review/index.ts";
import { type Selection, selectStage } from "../select/index.ts";
import {
  checkAddedTest,
  toValidationOutcome,
  validateDiff,
  validateStage,
  type ValidationResult,
} from "../validate/index.ts";
import { reproducerSection, reviewSection, selectionSection } from "./report-sections.ts";
import {
  findLoop,
  prepareRunState,
  type RunState,
  type StageHooksOptions,
  validateInput,
} from "./run-state.ts";

export type { StageHooksOptions } from "./run-state.ts";

/**
 * The reproduce → review loop → validation → selection stages as the orchestrator's hooks, each a call
 * to its stage's entry (src/reproduce, src/review, src/validate, src/select) on the sandbox and
 * configuration the caller handed to the run. One object per run (it keeps the prepared trees and the
 * baseline test run); call `dispose()` afterwards.
 */
export function createReproduceReviewHooks(
  opts: StageHooksOptions = {},
): Required<FixHooks> & { dispose(): Promise<void> } {
  let run: RunState | null = null;
  let pending: Promise<RunState> | null = null;
  const init = (ctx: FixContext): Promise<RunState> =>
    (pending ??= prepareRunState(ctx).then((r) => {
      run = r;
      return r;
    }));

  const reproduce = async (ctx: FixContext): Promise<ReproduceOutcome | null> => {
    const r = await init(ctx);
    if (opts.reproduce === false) return null;
    const states = r.states;
    const { outcome, reproduction } = await reproduceStage({
      model: ctx.model,
      sandbox: r.sandbox,
      config: r.config,
      pristine: states ? () => states.pristine() : null,
      issue: fenceIssue(ctx.options.issue),
      problem: r.problem,
      runtime: r.runtime,
      record: (name, text) => ctx.recorder.write(name, text),
      recordJson: (name, value) => ctx.recorder.writeJson(name, value),
    });
    r.reproduction = reproduction;
    return outcome;
  };

  const review = async (ctx: FixContext, candidate: PatchCandidate): Promise<ReviewOutcome | null> => {
    const r = await init(ctx);
    if (r.reproduction?.status !== "reproduced" || !r.states || !r.sandbox) return null;
    // Strategies that sample (tree search) and review loops' rewrites often produce the same patch
    // twice: it is reviewed once in the job.
    const same = r.reviewedDiffs.get(patchKey(candidate.result.diff));
    if (same) {
      const first = r.tried.get(candidate.result.diff);
      return {
        approved: same.approved,
        summary: `${same.summary} (same patch as ${first && first.id !== candidate.id ? first.id : "an earlier candidate"})`,
        ...(same.data ? { data: same.data } : {}),
      };
    }
    let reviewed: Awaited<ReturnType<typeof reviewStage>>;
    try {
      reviewed = await reviewStage(
        ctx,
        {
          sandbox: r.sandbox,
          config: r.config,
          states: r.states,
          reproduction: r.reproduction,
          tried: r.tried,
          ...(r.config.test.command
            ? { validate: (diff: string): Promise<ValidationResult> => validateDiff(validateInput(r), diff) }
            : {}),
        },
        candidate,
      );
    } catch (err) {
      // The run stopped during the review (the model endpoint, a budget, an interruption): what the
      // repository's tests already said about its candidates is kept, not lost with the review, and
      // the review is said to have not finished (there was a reproducer to review with).
      await keepValidations(ctx, r);
      candidate.review ??= {
        approved: false,
        summary: `the review did not finish: ${err instanceof Error ? err.message : String(err)}`,
      };
      throw err;
    }
    const { outcome, loop } = reviewed;
    if (loop) {
      r.reproduction = loop.reproduction;
      r.reviews.set(candidate.id, loop);
    }
    r.reviewedDiffs.set(patchKey(candidate.result.diff), outcome);
    // The loop's rewrites were reviewed in it: a later candidate with one of their patches is not.
    for (const c of ctx.state.candidates) {
      const key = patchKey(c.result.diff);
      if (c.review && !r.reviewedDiffs.has(key)) r.reviewedDiffs.set(key, c.review);
    }
    return outcome;
  };

  /** Candidates without a validation get the one the review loop finished for their patch, if any. */
  const keepValidations = async (ctx: FixContext, r: RunState): Promise<void> => {
    for (const c of ctx.state.candidates) {
      const pending = r.validations.get(patchKey(c.result.diff));
      if (c.validation || !pending) continue;
      // Only a validation that has finished: a run that stopped waits for nothing more.
      const done = await Promise.race([pending, Promise.resolve(null)]).catch(() => null);
      if (done) c.validation = toValidationOutcome(done);
    }
  };

  const validate = async (ctx: FixContext, candidate: PatchCandidate): Promise<ValidationOutcome | null> => {
    const r = await init(ctx);
    const outcome = await validateStage(
      validateInput(r),
      {
        id: candidate.id,
        diff: candidate.result.diff,
        modelText: [ctx.state.locationsText ?? "", candidate.answer].join("\n"),
      },
      (name, value) => ctx.recorder.writeJson(name, value),
    );
    if (outcome && !r.tried.get(candidate.result.diff))
      r.tried.settle(candidate.id, candidate.result.diff, `the repository's tests: ${outcome.summary}`);
    return outcome;
  };

  const select = (
    ctx: FixContext,
    candidates: PatchCandidate[],
  ): { chosen: PatchCandidate | null; why: string } => {
    const sel = selectStage(candidates, {
      compare: ctx.code.engine.compare,
      noTests: !run?.config.test.command,
      reproducerPasses: (c) => run?.reviews.get(c.id)?.reproducerPasses ?? null,
      testRuns: (c) => c.validation?.data ?? null,
    });
    ctx.recorder.writeJson("selection.json", sel.selection);
    addSections(ctx, sel.selection.winner ? sel.chosen : null, sel.selection);
    return { chosen: sel.chosen, why: sel.why };
  };

  const addSections = (ctx: FixContext, chosen: PatchCandidate | null, sel: Selection): void => {
    const sections: { title: string; markdown: string }[] = [];
    const rep = run?.reproduction;
    if (run && rep && rep.status !== "no-example") {
      const loop = chosen ? findLoop(run, chosen.id) : null;
      const after =
        chosen && loop
          ? ([...loop.rounds].reverse().find((x) => x.patchId === chosen.id)?.after ?? null)
          : null;
      // The fence tag the script is shown under: the first its language's reproducer takes.
      const lang = reproducerForRuntime(run.config.reproducer.runtime)?.prompt.tags[0] ?? "";
      const shown = loop?.reproduction ?? rep;
      sections.push({
        title: "Reproducer",
        markdown: reproducerSection(
          shown,
          run.config.reproducer.file,
          run.config.reproducer.command,
          lang,
          after,
          run.problem,
        ),
      });
      if (chosen && loop) sections.push({ title: "Reviewer", markdown: reviewSection(loop, chosen.id) });
    }
    if (sel.ranking.length > 1) sections.push({ title: "Candidates", markdown: selectionSection(sel) });
    if (sections.length > 0) ctx.state.sections = [...(ctx.state.sections ?? []), ...sections];
  };

  /** A regression test for the chosen patch, written and checked in the job's trees. */
  const regress = async (ctx: FixContext, chosen: PatchCandidate): Promise<RegressionOutcome | null> => {
    const r = await init(ctx);
    const states = r.states;
    const loop = findLoop(r, chosen.id);
    const rep = loop?.reproduction ?? r.reproduction;
    return regressStage({
      model: ctx.model,
      sandbox: r.sandbox,
      config: r.config,
      trees: states ? { pristine: () => states.pristine(), patched: (d) => states.patched(d) } : null,
      root: states?.pristineDir ?? ctx.workdir,
      issue: fenceIssue(ctx.options.issue),
      diff: chosen.result.diff,
      script: rep?.status === "reproduced" ? rep.script : null,
      ...regressFacts(loop, chosen, r.problem, states?.setup.find((s) => !s.ok)?.exec.stderr ?? ""),
      ...(ctx.options.signal ? { signal: ctx.options.signal } : {}),
      record: (name, text) => ctx.recorder.write(name, text),
      ...(r.config.test.command && states
        ? {
            suite: (path: string, text: string) =>
              checkAddedTest(validateInput(r), chosen.result.diff, { path, text }, ctx.options.signal),
          }
        : {}),
    });
  };

  return {
    reproduce,
    review,
    validate,
    select,
    regress,
    dispose: async () => {
      await run?.states?.dispose();
    },
  };
}

/**
 * What ran for the chosen patch that the regression-test stage may state: whether the reproducer passed
 * with it (null when it never ran with it), the repository's tests it turned from red to green (only
 * when validation named tests one by one), and a failed setup step.
 */
function regressFacts(
  loop: ReviewLoopOutcome | null,
  chosen: PatchCandidate,
  problem: string | null,
  setupStderr: string,
): { scriptPassesWithFix: boolean | null; covering: string[]; environment: string | null } {
  const after = loop
    ? ([...loop.rounds].reverse().find((x) => x.patchId === chosen.id)?.after ?? null)
    : null;
  const v = chosen.validation?.data;
  return {
    scriptPassesWithFix: after ? after.exitCode === 0 && after.limit === null : null,
    covering: v?.perTest && chosen.validation?.showsFix ? v.fixed : [],
    environment: problem && /setup step failed/.test(problem) ? `${problem}${setupCause(setupStderr)}` : null,
  };
}

/** The failed setup step's last error line, quoted and bounded (the repository's output: data only). */
function setupCause(stderr: string): string {
  const line = stderr
    .split("\n")
    .filter((l) => /error|not found|no matching|could not|cannot|ERR!/i.test(l))
    .pop()
    ?.replace(/[^\x20-\x7e]/g, "")
    .replace(/[`"]/g, "'")
    .trim()
    .slice(0, 200);
  return line ? `, saying "${line}"` : "";
}
