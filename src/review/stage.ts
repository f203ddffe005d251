import { fenceIssue } from "../agents/issue-text.ts";
import { runPatchWriter } from "../agents/patch-agent.ts";
import type { RepoConfig } from "../config/index.ts";
import { stopsRun } from "../contract/failures.ts";
import { fenceMaintainerInput, maintainerInputOf } from "../core/maintainer-input.ts";
import { execReport } from "../contract/exec-report.ts";
import type { FixContext, PatchCandidate, ReviewDetail, ReviewOutcome } from "../contract/pipeline.ts";
import { TriedPatches } from "../contract/tried-patches.ts";
import type { Reproduction } from "../reproduce/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import type { TreeStates, ValidationResult } from "../validate/index.ts";
import { describeFinding, scanDiff, sharedLiterals } from "../scan/index.ts";
import { type PatchProposal, type ReviewLoopOutcome, runReviewLoop } from "./loop.ts";

/** What the review stage runs on, all prepared before it: the reproducer it continues and the trees. */
export interface ReviewStageInput {
  sandbox: SandboxPort;
  config: RepoConfig;
  states: TreeStates;
  /** The reproduction that failed on the bug (the loop continues its conversation). */
  reproduction: Reproduction;
  /** Runs the repository's tests on a diff; absent when the repository has no test command. */
  validate?: (diff: string) => Promise<ValidationResult>;
  /** The job's patches so far: a rewrite that repeats one is not run or reviewed again. */
  tried?: TriedPatches;
}

export interface ReviewStageResult {
  outcome: ReviewOutcome;
  /** The loop that ran (null when the stage failed before finishing one). */
  loop: ReviewLoopOutcome | null;
}

/** The patch scan as the reviewer reads it: findings, then literals shared with the reproducer. */
async function reviewerScan(root: string, diff: string, file: string, script: string): Promise<string> {
  try {
    const scan = await scanDiff(root, diff);
    const shared = await sharedLiterals(scan, [{ path: file, text: script }]);
    return [
      ...scan.findings.map((f) => `- ${describeFinding(f)}`),
      ...scan.unscanned.map((u) => `- could not be scanned: ${u}`),
      ...shared.map(
        (l) => `- the patch adds ${l}, a value the reproducer also holds (possible special-casing)`,
      ),
    ].join("\n");
  } catch (err) {
    return `- the patch could not be scanned: ${(err as Error).message}`;
  }
}

const toProposal = (c: PatchCandidate): PatchProposal => ({
  id: c.id,
  diff: c.result.diff,
  applicable: c.applicable,
  status: c.result.status,
  answer: c.answer,
});

/**
 * The review stage (seed 000): the reviewer judges one candidate with the reproducer's runs before and
 * after it; a wrong patch is rewritten with the advice (the rewrites join the run's candidates), a wrong
 * script is rewritten too. Never throws for stage trouble: a failure is a rejected review that says why;
 * errors that stop the run go through.
 */
export async function reviewStage(
  ctx: FixContext,
  input: ReviewStageInput,
  candidate: PatchCandidate,
): Promise<ReviewStageResult> {
  const { config } = input;
  const rewritten = new Map<string, PatchCandidate>();
  const tried = input.tried ?? new TriedPatches();
  try {
    const loop = await runReviewLoop(
      {
        model: ctx.model,
        sandbox: input.sandbox,
        config,
        states: input.states,
        issue: fenceIssue(ctx.options.issue),
        maintainer: fenceMaintainerInput(maintainerInputOf(ctx.options)),
        record: (name, text) => ctx.recorder.write(`${candidate.id}/${name}`, text),
        onRound: (n, max) => ctx.progress.detail(`${candidate.id}: round ${n}/${max}`),
        ...(input.validate ? { validate: (p: PatchProposal) => input.validate!(p.diff) } : {}),
        tried,
        scanPatch: (diff, script) =>
          reviewerScan(input.states.pristineDir, diff, config.reproducer.file, script),
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
              ...(ctx.options.patchAttempts !== undefined ? { maxAttempts: ctx.options.patchAttempts } : {}),
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
          // A repeat of a patch the job already has is not a new candidate (the loop tells the writer).
          if (tried.get(next.result.diff)) return toProposal(next);
          rewritten.set(next.id, next);
          if (next.applicable) ctx.state.candidates.push(next);
          return toProposal(next);
        },
      },
      toProposal(candidate),
      input.reproduction,
    );
    ctx.recorder.writeJson(`${candidate.id}/review/summary.json`, {
      approved: loop.approved,
      final: loop.final.id,
      summary: loop.summary,
      rounds: loop.rounds.map((x) => ({
        ...x,
        after: x.after ? { exitCode: x.after.exitCode, limit: x.after.limit } : null,
      })),
    });
    const history = loop.rounds.map((x) => ({
      round: x.round,
      patchId: x.patchId,
      scriptVersion: x.scriptVersion,
      action: x.action,
      note: x.note,
    }));
    // The candidate's last round with a verdict (else its last round): the verdict, and the reproducer
    // version it was judged with, that script's run before any patch and its run after this patch.
    const dataFor = (id: string): ReviewDetail => {
      const mine = loop.rounds.filter((x) => x.patchId === id);
      const last = [...mine].reverse().find((x) => x.verdict) ?? mine.at(-1);
      const v = last?.verdict ?? null;
      return {
        rounds: loop.rounds.length,
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
              ...(last.evidence ? { evidence: last.evidence } : {}),
            }
          : null,
      };
    };
    const verdictFor = (id: string): boolean =>
      loop.rounds.some(
        (x) =>
          x.patchId === id &&
          x.verdict?.["patch-correct"] === "yes" &&
          x.verdict["test-correct"] === "yes" &&
          x.action === "accepted",
      );
    for (const [id, c] of rewritten) {
      c.review = { approved: verdictFor(id), summary: loop.summary, data: dataFor(id) };
    }
    const final = rewritten.get(loop.final.id);
    return {
      outcome: {
        approved: verdictFor(candidate.id),
        summary:
          final && final.id !== candidate.id
            ? `${loop.summary}; the reviewed patch was rewritten as ${final.id}`
            : loop.summary,
        data: dataFor(candidate.id),
        ...(final?.applicable ? { revised: final } : {}),
      },
      loop,
    };
  } catch (err) {
    if (stopsRun(err)) throw err;
    ctx.recorder.write(`${candidate.id}/review/error.txt`, String((err as Error).stack ?? err));
    return {
      outcome: { approved: false, summary: `the review stage failed: ${(err as Error).message}` },
      loop: null,
    };
  }
}
