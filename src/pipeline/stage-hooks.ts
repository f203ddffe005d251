import { readdirSync } from "node:fs";
import { fenceIssue } from "../agents/issue-text.ts";
import { fenceMaintainerInput, maintainerInputOf } from "../core/maintainer-input.ts";
import { runPatchWriter } from "../agents/patch-agent.ts";
import type {
  FixContext,
  FixHooks,
  PatchCandidate,
  ReproduceOutcome,
  ReviewDetail,
  ReviewOutcome,
  ValidationOutcome,
} from "../contract/pipeline.ts";
import type { ReproducerReport } from "../contract/result.ts";
import { isFatal, type Reproduction, reproduceIssue } from "../reproduce/index.ts";
import { relativizeSandboxPaths, type SandboxPort, truncateMiddle } from "../sandbox/index.ts";
import {
  type Candidate,
  compareRuns,
  type Selection,
  selectCandidate,
  showsFix,
  type TreeStates,
  type ValidationResult,
} from "../validate/index.ts";
import { execReport } from "./build-result.ts";
import { type PatchProposal, runReviewLoop } from "./review-loop.ts";
import { reproducerSection, reviewSection, selectionSection } from "./report-sections.ts";

import {
  findLoop,
  prepareRunState,
  type ReproduceReviewOptions,
  type RunState,
  validateDiff,
} from "./run-state.ts";

export type { ReproduceReviewOptions } from "./run-state.ts";

const REPRO_LEAD_CHARS = 6000;

/**
 * The reproduce → review loop → validation → selection stages as the orchestrator's hooks. One object per
 * run (it keeps the sandbox, the prepared trees and the baseline test run); call `dispose()` afterwards.
 */
export function createReproduceReviewHooks(
  opts: ReproduceReviewOptions = {},
): Required<FixHooks> & { dispose(): Promise<void> } {
  let run: RunState | null = null;

  let pending: Promise<RunState> | null = null;
  const init = (ctx: FixContext): Promise<RunState> =>
    (pending ??= prepareRunState(ctx, opts).then((r) => {
      run = r;
      return r;
    }));

  const toOutcome = (v: ValidationResult): ValidationOutcome => ({
    passed: v.status === "passed" || v.status === "no-regressions",
    showsFix: showsFix(v),
    regressions: v.regressions,
    summary: v.summary,
    data: {
      status: v.status,
      command: v.command,
      regressions: v.regressions,
      fixed: v.fixed,
      perTest: v.perTest,
      before: v.before ? { ...v.before, notes: v.before.notes ?? [] } : null,
      after: v.after ? { ...v.after, notes: v.after.notes ?? [] } : null,
      summary: v.summary,
      ...(v.tests ? { tests: v.tests } : {}),
    },
  });

  /** The reproduce stage as the result reports it, before any patch ran against the script. */
  const reproducerReport = (
    r: RunState,
    status: ReproducerReport["status"],
    summary: string,
    rep: Reproduction | null,
  ): ReproducerReport => ({
    status,
    summary,
    path: r.config.reproducer.file,
    command: r.config.reproducer.command,
    script: rep?.script ?? null,
    attempts: rep?.attempts.length ?? 0,
    before: rep?.run ? execReport(rep.run.exec) : null,
    after: null,
  });

  const reproduce = async (ctx: FixContext): Promise<ReproduceOutcome | null> => {
    const r = await init(ctx);
    if (opts.reproduce === false) return null;
    if (!r.states || !r.sandbox) {
      const summary = r.problem ?? "no sandbox";
      return { reproduced: false, lead: null, summary, data: reproducerReport(r, "error", summary, null) };
    }
    try {
      return await reproduceOn(ctx, r, r.states, r.sandbox);
    } catch (err) {
      if (isFatal(err)) throw err;
      ctx.recorder.write("reproduce/error.txt", String((err as Error).stack ?? err));
      const summary = `the reproduce stage failed: ${(err as Error).message}`;
      return { reproduced: false, lead: null, summary, data: reproducerReport(r, "error", summary, null) };
    }
  };

  const reproduceOn = async (
    ctx: FixContext,
    r: RunState,
    states: TreeStates,
    sandbox: SandboxPort,
  ): Promise<ReproduceOutcome> => {
    const pristine = await states.pristine();
    let topLevel: string[] = [];
    try {
      topLevel = readdirSync(pristine.dir, { withFileTypes: true })
        .filter((e) => !e.name.startsWith("."))
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort();
    } catch {
      // an empty layout is fine
    }
    try {
      r.reproduction = await reproduceIssue(
        {
          model: ctx.model,
          sandbox,
          config: r.config,
          record: (name, text) => ctx.recorder.write(name, text),
        },
        { issue: fenceIssue(ctx.options.issue), workdir: pristine.dir, topLevel },
      );
    } finally {
      await pristine.dispose();
    }
    const rep = r.reproduction;
    const summary = r.problem ? `${rep.summary} (${r.problem})` : rep.summary;
    const data = reproducerReport(r, rep.status, summary, rep);
    ctx.recorder.writeJson("reproduce/result.json", data);
    return {
      reproduced: rep.status === "reproduced",
      lead: rep.lead ? truncateMiddle(relativizeSandboxPaths(rep.lead), REPRO_LEAD_CHARS) : null,
      summary,
      data,
    };
  };

  const review = async (ctx: FixContext, candidate: PatchCandidate): Promise<ReviewOutcome | null> => {
    const r = await init(ctx);
    if (r.reproduction?.status !== "reproduced" || !r.states || !r.sandbox) return null;
    // Strategies that sample (tree search) often produce the same patch twice: review it once.
    const same = r.reviewedDiffs.get(candidate.result.diff);
    if (same)
      return {
        approved: same.approved,
        summary: `${same.summary} (same patch as an earlier candidate)`,
        ...(same.data ? { data: same.data } : {}),
      };
    const outcome = await reviewOne(ctx, r, candidate);
    if (outcome) r.reviewedDiffs.set(candidate.result.diff, outcome);
    return outcome;
  };

  const reviewOne = async (
    ctx: FixContext,
    r: RunState,
    candidate: PatchCandidate,
  ): Promise<ReviewOutcome | null> => {
    if (!r.reproduction || !r.states || !r.sandbox) return null;
    const rewritten = new Map<string, PatchCandidate>();
    const toProposal = (c: PatchCandidate): PatchProposal => ({
      id: c.id,
      diff: c.result.diff,
      applicable: c.applicable,
      status: c.result.status,
    });
    try {
      const outcome = await runReviewLoop(
        {
          model: ctx.model,
          sandbox: r.sandbox,
          config: r.config,
          states: r.states,
          issue: fenceIssue(ctx.options.issue),
          maintainer: fenceMaintainerInput(maintainerInputOf(ctx.options)),
          record: (name, text) => ctx.recorder.write(`${candidate.id}/${name}`, text),
          onRound: (n, max) => ctx.progress.detail(`${candidate.id}: round ${n}/${max}`),
          ...(r.config.test.command ? { validate: async (p: PatchProposal) => validateDiff(r, p.diff) } : {}),
          rewritePatch: async (guidance, round) => {
            const written = await runPatchWriter(
              ctx.model,
              ctx.code.engine,
              {
                issue: ctx.options.issue,
                locations: ctx.state.locationsText,
                history: ctx.state.search?.results ?? [],
                guidance,
                maintainer: fenceMaintainerInput(maintainerInputOf(ctx.options)),
              },
              {
                ...(ctx.options.patchAttempts !== undefined
                  ? { maxAttempts: ctx.options.patchAttempts }
                  : {}),
                recorder: ctx.recorder,
              },
            );
            const best = written.best;
            if (!best) return null;
            const next: PatchCandidate = {
              id: `${candidate.id}-r${round}`,
              source: `${candidate.source}, rewritten after review round ${round}`,
              answer: best.answer,
              result: best.result,
              applicable: best.result.status === ctx.code.engine.applicableStatus,
            };
            rewritten.set(next.id, next);
            if (next.applicable) ctx.state.candidates.push(next);
            return toProposal(next);
          },
        },
        toProposal(candidate),
        r.reproduction,
      );
      r.reproduction = outcome.reproduction;
      r.reviews.set(candidate.id, outcome);
      ctx.recorder.writeJson(`${candidate.id}/review/summary.json`, {
        approved: outcome.approved,
        final: outcome.final.id,
        summary: outcome.summary,
        rounds: outcome.rounds.map((x) => ({
          ...x,
          after: x.after ? { exitCode: x.after.exitCode, limit: x.after.limit } : null,
        })),
      });
      const history = outcome.rounds.map((x) => ({
        round: x.round,
        patchId: x.patchId,
        scriptVersion: x.scriptVersion,
        action: x.action,
        note: x.note,
      }));
      // The candidate's last round with a verdict (else its last round): the verdict, and the reproducer
      // version it was judged with, that script's run before any patch and its run after this patch.
      const dataFor = (id: string): ReviewDetail => {
        const mine = outcome.rounds.filter((x) => x.patchId === id);
        const last = [...mine].reverse().find((x) => x.verdict) ?? mine.at(-1);
        const v = last?.verdict ?? null;
        return {
          rounds: outcome.rounds.length,
          "patch-correct": v?.["patch-correct"] ?? null,
          "test-correct": v?.["test-correct"] ?? null,
          "patch-analysis": v?.["patch-analysis"] ?? null,
          "patch-advice": v?.["patch-advice"] ?? null,
          "test-analysis": v?.["test-analysis"] ?? null,
          "test-advice": v?.["test-advice"] ?? null,
          history,
          reproducer: last
            ? {
                script: last.script,
                before: execReport(last.before),
                after: last.after ? execReport(last.after) : null,
              }
            : null,
        };
      };
      const verdictFor = (id: string): boolean =>
        outcome.rounds.some(
          (x) =>
            x.patchId === id &&
            x.verdict?.["patch-correct"] === "yes" &&
            x.verdict["test-correct"] === "yes" &&
            x.action === "accepted",
        );
      for (const [id, c] of rewritten) {
        c.review = { approved: verdictFor(id), summary: outcome.summary, data: dataFor(id) };
      }
      const final = rewritten.get(outcome.final.id);
      return {
        approved: verdictFor(candidate.id),
        summary:
          final && final.id !== candidate.id
            ? `${outcome.summary}; the reviewed patch was rewritten as ${final.id}`
            : outcome.summary,
        data: dataFor(candidate.id),
        ...(final?.applicable ? { revised: final } : {}),
      };
    } catch (err) {
      if (isFatal(err)) throw err;
      ctx.recorder.write(`${candidate.id}/review/error.txt`, String((err as Error).stack ?? err));
      return { approved: false, summary: `the review stage failed: ${(err as Error).message}` };
    }
  };

  const validate = async (ctx: FixContext, candidate: PatchCandidate): Promise<ValidationOutcome | null> => {
    const r = await init(ctx);
    if (!r.config.test.command || !r.states) return null;
    const v = await validateDiff(
      r,
      candidate.result.diff,
      [ctx.state.locationsText ?? "", candidate.answer].join("\n"),
    );
    ctx.recorder.writeJson(`${candidate.id}/validation.json`, v);
    return toOutcome(v);
  };

  const select = (
    ctx: FixContext,
    candidates: PatchCandidate[],
  ): { chosen: PatchCandidate | null; why: string } => {
    const noTests = !run?.config.test.command;
    const mapped: Candidate[] = candidates.map((c) => ({
      id: c.id,
      status: c.result.status,
      reviewApproved: c.review ? c.review.approved : null,
      reproducerPasses: run?.reviews.get(c.id)?.reproducerPasses ?? null,
      validation: c.validation?.data ?? (noTests && c.applicable ? compareRuns(null, null) : null),
    }));
    const sel = selectCandidate(mapped);
    ctx.recorder.writeJson("selection.json", sel);
    const chosen = sel.winner ? (candidates.find((c) => c.id === sel.winner!.id) ?? null) : null;
    addSections(ctx, chosen, sel);
    if (chosen || candidates.length === 0) return { chosen, why: sel.reason };
    // Nothing applicable: keep the closest attempt for the report.
    let best = candidates[0]!;
    for (const c of candidates)
      if (ctx.code.engine.compare(c.result.status, best.result.status) > 0) best = c;
    return {
      chosen: best,
      why: `no attempt applied; the closest was ${best.source} (${best.result.status})`,
    };
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
      const lang =
        { python: "python", node: "javascript", java: "java", go: "go" }[
          run.config.reproducer.runtime as string
        ] ?? "";
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

  return {
    reproduce,
    review,
    validate,
    select,
    dispose: async () => {
      await run?.states?.dispose();
    },
  };
}
