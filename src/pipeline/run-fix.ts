import { isEmptyIssue } from "../agents/issue-text.ts";
import {
  fenceMaintainerInput,
  hasMaintainerInput,
  MAX_INSTRUCTIONS_BYTES,
  maintainerInputOf,
} from "../core/maintainer-input.ts";
import { answerPoints } from "../review/points.ts";
import { runSearch } from "../agents/search-agent.ts";
import type { SearchPort } from "../agents/search-port.ts";
import { renderReport } from "../report/report.ts";
import { linearStrategy } from "../strategies/linear.ts";
import { silentProgress } from "../contract/progress.ts";
import type { MaintainerReport } from "../contract/result.ts";
import { decideOutcome, RunInterrupted } from "../contract/failures.ts";
import { commandWatch } from "./command-watch.ts";
import { withRuntime } from "./run-state.ts";
import { modelWithSignal, sandboxWithSignal, throwIfInterrupted } from "./interrupt.ts";
import { selectStage } from "../select/index.ts";
import { buildResult } from "./build-result.ts";
import { codeChangeOfDiff } from "../patch/code-change.ts";
import { scanCandidates } from "./patch-scan.ts";
import type {
  CodeTools,
  FixContext,
  FixDeps,
  FixOptions,
  FixResult,
  FixRunRecord,
  FixState,
  PatchCandidate,
  StageTiming,
} from "../contract/pipeline.ts";
import { createWorkspace, type Workspace } from "../workspace/workspace.ts";
import { forgetShared, shareTrees } from "../sandbox/index.ts";

/** Wraps the code tools so that time spent in search APIs and patch application is measured. */
function instrument(code: CodeTools, toolMs: { search: number; apply: number }): CodeTools {
  const search: SearchPort = {
    specs: code.search.specs,
    call: async (name, args) => {
      const t = performance.now();
      try {
        return await code.search.call(name, args);
      } finally {
        toolMs.search += performance.now() - t;
      }
    },
    resolve: async (requests) => {
      const t = performance.now();
      try {
        return await code.search.resolve(requests);
      } finally {
        toolMs.search += performance.now() - t;
      }
    },
    formatLocations: (locs) => code.search.formatLocations(locs),
    focus: (text) => code.search.focus?.(text),
    ...(code.search.project ? { project: code.search.project } : {}),
  };
  const engine = {
    ...code.engine,
    formatHelp: code.engine.formatHelp,
    applicableStatus: code.engine.applicableStatus,
    compare: (a: string, b: string) => code.engine.compare(a, b),
    apply: async (answer: string) => {
      const t = performance.now();
      try {
        return await code.engine.apply(answer);
      } finally {
        toolMs.apply += performance.now() - t;
      }
    },
  };
  return { ...code, search, engine };
}

/**
 * Runs the whole repair pipeline on a local checkout: private copy → index → reproduce? → search →
 * patch strategy → review? → validate? → selection → patch.diff, report.md, result.json under `out`.
 * Never throws for model or input trouble: every failure ends in a FixResult with a reason, and the
 * artifacts written so far stay on disk.
 */
export async function runFix(options: FixOptions, deps: FixDeps): Promise<FixResult> {
  const started = performance.now();
  const progress = deps.progress ?? silentProgress;
  const recorder = deps.recorder;
  deps.meter.onChange((t) => progress.usage(t));
  const timings: StageTiming[] = [];
  const toolMs = { search: 0, apply: 0 };
  const notes: string[] = [...(options.notes ?? [])];
  const state: FixState = {
    reproduction: null,
    search: null,
    candidates: [],
    chosen: null,
    chosenWhy: "",
    locationsText: null,
    requested: [],
  };
  // The stage the run is in: an interruption names it.
  let current: string | null = null;
  const stageNow = () => current;
  const timed = async <T>(stage: string, fn: () => Promise<T>, detail?: string): Promise<T> => {
    current = stage;
    progress.stage(stage, detail);
    const t = performance.now();
    let ok = false;
    try {
      const v = await fn();
      ok = true;
      return v;
    } finally {
      timings.push({ stage, ms: performance.now() - t, ok });
    }
  };

  let workspace: Workspace | null = null;
  let indexStats: Record<string, unknown> | null = null;
  let error: unknown = null;
  let early: { status: FixResult["status"]; reason: string } | null = null;
  let ctx: FixContext | null = null;
  /** result.json, patch.diff, timings.json and report.md of the run as it stands. */
  const writeArtifacts = (
    outcome: { status: FixResult["status"]; reason: string },
    maintainer: MaintainerReport | null,
    error: unknown,
  ): FixResult => {
    const result = buildResult({
      status: outcome.status,
      reason: outcome.reason,
      state,
      usage: deps.meter.totals(),
      out: options.out,
      model: deps.modelName ?? null,
      seconds: Math.round((performance.now() - started) / 10) / 100,
      maintainer,
      stagesTried: timings.map((t) => t.stage),
    });
    if (result.patch) recorder.write("patch.diff", result.patch);
    recorder.writeJson("result.json", result);
    const run: FixRunRecord = {
      result,
      issue: options.issue,
      options,
      state,
      timings,
      toolMs,
      usageByStage: deps.meter.byStage(),
      modelCalls: deps.meter.calls(),
      indexStats,
      notes: [...notes, ...(state.notes ?? [])],
      error: error ? (error instanceof Error ? error.message : String(error)) : null,
      workdir: workspace && options.keepWorkspace ? workspace.root : null,
      artifacts: recorder.files(),
    };
    recorder.writeJson("timings.json", {
      timings,
      toolMs,
      usageByStage: run.usageByStage,
      modelCalls: run.modelCalls,
    });
    recorder.write("report.md", renderReport(run));
    return result;
  };
  // A caller that must quit at once (a second Ctrl-C) still gets the report of what the run has so far.
  let hardStop: (() => void) | null = () => {
    const stopped = new RunInterrupted({ stage: current });
    writeArtifacts(decideOutcome(state, stopped), null, stopped);
  };
  deps.onHardStop?.(() => hardStop?.());
  recorder.writeJson("issue.json", options.issue);
  recorder.writeJson("config.json", deps.config);
  try {
    if (isEmptyIssue(options.issue)) {
      early = { status: "no-patch", reason: "the issue is empty: there is nothing to search for" };
    } else {
      // Stages that run the repository's code need its installed dependencies: they are not copied, the
      // copies those stages run in get them bound read-only (or copied in where they cannot be).
      const h = deps.hooks ?? {};
      const withDependencies =
        Boolean(h.reproduce || h.review || h.validate) || (deps.strategy?.name ?? "linear") !== "linear";
      const ws = await timed("workspace", () =>
        createWorkspace(options.repo, [options.out], { withDependencies: withDependencies && "shared" }),
      );
      workspace = ws;
      shareTrees(ws.root, ws.dependencies);
      throwIfInterrupted(options.signal, stageNow);
      const rawCode = await timed("index", () => deps.openCode(ws.root));
      throwIfInterrupted(options.signal, stageNow);
      indexStats = rawCode.stats;
      const files = rawCode.stats.files;
      progress.milestone("indexed", typeof files === "number" ? `${files} files` : undefined);
      notes.push(...rawCode.notes);
      const code = instrument(rawCode, toolMs);
      ctx = {
        options,
        config: deps.config,
        sandbox: sandboxWithSignal(deps.sandbox, options.signal, stageNow, commandWatch(progress)),
        model: modelWithSignal(deps.model, options.signal, stageNow),
        meter: deps.meter,
        recorder,
        progress,
        workdir: ws.root,
        code,
        state,
      };
      const c = ctx;
      const hooks = deps.hooks ?? {};
      if (options.testCmd && !hooks.validate) {
        notes.push(
          `A test command is set (\`${options.testCmd}\`), but this build has no validation stage: the tests were not run.`,
        );
      }
      if (hooks.reproduce) {
        state.reproduction = await timed("reproduce", () => hooks.reproduce!(c));
        if (state.reproduction?.reproduced) progress.milestone("reproduced", state.reproduction.summary);
      }
      const search = await timed("search", () =>
        runSearch(c.model, code.search, options.issue, {
          ...(options.roundLimit !== undefined ? { roundLimit: options.roundLimit } : {}),
          ...(state.reproduction?.lead ? { lead: state.reproduction.lead } : {}),
          maintainer: fenceMaintainerInput(maintainerInputOf(options)),
          recorder,
          onRound: (n, limit) => progress.detail(`round ${n}/${limit}`),
        }),
      );
      state.search = search;
      state.requested = search.requested;
      state.locationsText =
        search.locations.length > 0
          ? withRuntime(code.search.formatLocations(search.locations), state.runtime ?? "")
          : null;
      if (state.locationsText) recorder.write("search/locations.md", state.locationsText);
      if (search.locations.length > 0) {
        progress.milestone("located", [...new Set(search.locations.map((l) => l.file))].join(", "));
      }
      const strategy = deps.strategy ?? linearStrategy();
      const produced = await timed("patch", () => strategy.run(c), strategy.name);
      for (const p of produced) if (!state.candidates.includes(p)) state.candidates.push(p);
      const firstApplicable = state.candidates.find((p) => p.applicable);
      if (firstApplicable) progress.milestone("patched", firstApplicable.source);
      await reviewAndValidate(c, hooks, timed);
    }
  } catch (err) {
    error = err;
    recorder.write("error.txt", err instanceof Error ? (err.stack ?? err.message) : String(err));
  }

  // What each applicable patch adds that code aimed at the checks uses: a finding keeps it from "fixed".
  if (!early && workspace) await scanCandidates(workspace.root, state);
  // Selection also runs after an error, so that an applicable patch found before it is kept.
  if (!early && ctx) {
    const sel = deps.hooks?.select
      ? deps.hooks.select(ctx, state.candidates)
      : selectStage(state.candidates, { compare: ctx.code.engine.compare, noTests: !deps.hooks?.validate });
    state.chosen = sel.chosen;
    state.chosenWhy = sel.why;
  }
  // Whether the chosen patch changes code at all (comments and whitespace set aside): part of its evidence.
  if (!early && workspace && state.chosen?.applicable && !state.chosen.codeChange) {
    const chosen = state.chosen;
    const root = workspace.root;
    chosen.codeChange = await codeChangeOfDiff(root, chosen.result.diff).catch((err: unknown) => ({
      changed: null,
      detail: `whether the patch changes code could not be told: ${(err as Error).message}`,
    }));
  }
  // A regression test for the chosen patch, in the repository's framework: checked, then part of the patch.
  if (
    !early &&
    ctx &&
    !error &&
    state.chosen?.applicable &&
    deps.hooks?.regress &&
    !options.signal?.aborted &&
    !ctx.meter.exceeded()
  ) {
    const c = ctx;
    const chosen = state.chosen;
    try {
      state.regression = await timed("regress", () => deps.hooks!.regress!(c, chosen));
      if (state.regression?.diff) progress.milestone("tested", state.regression.data.path ?? undefined);
    } catch (err) {
      // A budget or an interruption during the test costs the test, never the fix already chosen.
      recorder.write("regress/error.txt", err instanceof Error ? (err.stack ?? err.message) : String(err));
      state.regression = {
        diff: null,
        data: {
          status: "left-out",
          summary: `No regression test was added: the run stopped while writing it (${err instanceof Error ? err.message : String(err)}).`,
          path: null,
          command: null,
          framework: null,
          before: null,
          after: null,
        },
      };
    }
  }
  const outcome =
    early ??
    decideOutcome(
      state,
      options.signal?.aborted
        ? new RunInterrupted({ stage: error instanceof RunInterrupted ? error.stage : current })
        : error,
    );
  const chosen = state.chosen?.applicable ? state.chosen : null;
  const maintainer = await summarizeMaintainer(ctx, chosen, notes, timed);
  if (workspace) forgetShared(workspace.root);
  if (workspace && !options.keepWorkspace) {
    await workspace.dispose().catch(() => undefined);
  }
  hardStop = null;
  const result = writeArtifacts(outcome, maintainer, error);
  progress.done();
  return result;
}

/**
 * What the maintainer's input was, and, after a run driven by a review, how the chosen patch answers
 * each of its comments (one model call; a failure there costs the answers, never the patch).
 */
async function summarizeMaintainer(
  ctx: FixContext | null,
  chosen: PatchCandidate | null,
  notes: string[],
  timed: <T>(stage: string, fn: () => Promise<T>) => Promise<T>,
): Promise<MaintainerReport | null> {
  const input = ctx ? maintainerInputOf(ctx.options) : undefined;
  if (!ctx || !hasMaintainerInput(input)) return null;
  const ins = input.instructions;
  const summary: MaintainerReport = {
    instructions: ins
      ? { source: ins.source, ref: ins.ref, bytes: ins.bytes, truncated: ins.truncated }
      : null,
    guidance: Boolean(input.text?.trim()),
    review: input.review ? { id: input.review.id, points: input.review.points.length } : null,
    checks: (input.checks ?? []).map((c) => c.name),
    points: [],
  };
  if (ins) {
    notes.push(
      `The repository's instructions (${ins.source}${ins.ref ? ` on ${ins.ref}` : ""}, ${ins.bytes} bytes${ins.truncated ? `, cut to the first ${MAX_INSTRUCTIONS_BYTES}` : ""}) were given to the search, patch and review prompts as the maintainer's conventions.`,
    );
  }
  const ids = input.review?.points.map((p) => p.id) ?? [];
  if (chosen && ids.length > 0 && !ctx.options.signal?.aborted && !ctx.meter.exceeded()) {
    try {
      summary.points = await timed("review-points", () =>
        answerPoints(
          ctx.model,
          { maintainer: fenceMaintainerInput(input), ids, patch: chosen.result.diff },
          {
            ...(ctx.options.signal ? { signal: ctx.options.signal } : {}),
            record: (name, text) => ctx.recorder.write(name, text),
          },
        ),
      );
    } catch (err) {
      notes.push(
        `How the patch answers each review comment could not be asked: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return summary;
}

async function reviewAndValidate(
  ctx: FixContext,
  hooks: NonNullable<FixDeps["hooks"]>,
  timed: <T>(stage: string, fn: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const applicable = (): PatchCandidate[] => ctx.state.candidates.filter((c) => c.applicable);
  if (hooks.review) {
    for (const c of applicable()) {
      const review = await timed("review", () => hooks.review!(ctx, c));
      if (!review) continue; // the stage had nothing to review with (no reproducer)
      c.review = review;
      if (review.approved) ctx.progress.milestone("reviewed", review.summary);
      if (review.revised && !ctx.state.candidates.includes(review.revised))
        ctx.state.candidates.push(review.revised);
    }
  }
  if (hooks.validate) {
    for (const c of applicable()) {
      const validation = await timed("validate", () => hooks.validate!(ctx, c));
      if (!validation) continue; // null: the repository has no test command
      c.validation = validation;
      if (validation.passed) ctx.progress.milestone("validated", validation.summary);
    }
  }
}
