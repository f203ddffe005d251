import { stopsRun } from "../contract/failures.ts";
import { type Reproduction, rewriteReproducer, runReproducer } from "../reproduce/reproducer.ts";
import { reproducerEvidence } from "../contract/reproducer-evidence.ts";
import { type ExecResult, formatExecForModel, truncateMiddle } from "../sandbox/index.ts";
import type { ScriptRun } from "../sandbox/script-run.ts";
import type { ValidationResult } from "../validate/compare.ts";
import { DiffApplyError, reproducerRunKey } from "../validate/tree-states.ts";
import { renderReviewPrompt } from "../prompts/review.ts";
import * as pinned from "../contract/pinned-test.ts";
import { patchKey, type TriedPatch, TriedPatches } from "../contract/tried-patches.ts";
import { formatFailures } from "../validate/failure-messages.ts";
import { type ReviewInput, ReviewUnavailable, type ReviewVerdict, reviewCandidate } from "./reviewer.ts";
import { testsAccount } from "./tests-account.ts";
import type {
  PatchProposal,
  ReviewLoopDeps,
  ReviewLoopOutcome,
  ReviewRound,
  RoundAction,
} from "./loop-types.ts";

export type { PatchProposal, ReviewLoopDeps, ReviewLoopOutcome, ReviewRound, RoundAction };

const validationFailed = (v: ValidationResult): boolean =>
  v.status === "regressions" || v.status === "error" || v.status === "tampered";

/**
 * Stage 7 (seed 000): run the reproducer after the patch, let the reviewer judge patch and test together,
 * rewrite whichever is wrong with the reviewer's advice, and send an accepted patch to validation, whose
 * failure comes back as feedback. Up to `config.budgets.reviewRounds` rounds, each of which may rewrite the
 * patch or the test; every rewrite is evaluated like the first candidate, so a rewrite asked for in the last
 * round gets one closing round (reproducer, review, validation) that asks for nothing more. Model trouble
 * ends the loop with what it has (a budget or abort still stops the run).
 */
export async function runReviewLoop(
  deps: ReviewLoopDeps,
  initial: PatchProposal,
  reproduction: Reproduction,
): Promise<ReviewLoopOutcome> {
  const { config } = deps;
  const rounds: ReviewRound[] = [];
  const proposals: PatchProposal[] = [initial];
  let proposal = initial;
  let repro = reproduction;
  let scriptVersion = 1;
  let verdict: ReviewVerdict | null = null;
  let validation: ValidationResult | null = null;
  let passes: boolean | null = null;
  const done = (approved: boolean, summary: string): ReviewLoopOutcome => ({
    approved,
    final: proposal,
    verdict,
    reproduction: repro,
    rounds,
    proposals,
    validation,
    reproducerPasses: passes,
    summary,
  });
  const stop = (round: number, note: string, after: ExecResult | null = null): ReviewLoopOutcome => {
    rounds.push({
      round,
      patchId: proposal.id,
      scriptVersion,
      script: repro.script!,
      before: repro.run!.exec,
      after,
      evidence: null,
      verdict: null,
      validation: null,
      action: "stopped",
      note,
    });
    return done(false, `review stopped in round ${round}: ${note}`);
  };
  const maxRounds = config.budgets.reviewRounds;
  if (repro.status !== "reproduced" || !repro.script || !repro.run) {
    return done(false, "not reviewed: no reproducer");
  }
  const tried = deps.tried ?? new TriedPatches();
  // The tests that failed with the last validated patch, and the writer's claims about them.
  let failing: string[] = [];
  let failedKey = "";
  let claims: pinned.PinnedClaims = { taken: [], refused: [] };
  tried.add(initial.id, initial.diff);
  const settle = (fate: string) => tried.settle(proposal.id, proposal.diff, fate);

  /**
   * A rewrite that is not a patch the job already tried. A repeat is not run or reviewed: it takes a round
   * of its own, and the writer is told in one sentence what happened to that patch and asked again, until
   * the rounds run out (`next` null, `repeated` the patch it kept sending).
   */
  const rewriteNew = async (
    guidance: string,
    round: number,
  ): Promise<{ next: PatchProposal | null; round: number; repeated: TriedPatch | null }> => {
    let ask = guidance;
    for (let r = round; ; r++) {
      // Each rewrite is a fresh request: what the writer said with its last patch goes with it.
      const next = await rewrite(deps, pinned.withSaid(ask, proposal.answer), r);
      if (!next) return { next: null, round: r, repeated: null };
      const seen = tried.get(next.diff);
      // A patch resent with a claim that a failing test pins the old behaviour is judged, not refused.
      claims = pinned.pinnedClaims(next.answer ?? "", deps.issue, failing);
      if (!seen || !next.applicable || claims.taken.length > 0) {
        tried.add(next.id, next.diff);
        return { next, round: r, repeated: null };
      }
      rounds.push({
        round: r + 1,
        patchId: next.id,
        scriptVersion,
        script: repro.script!,
        before: repro.run!.exec,
        after: null,
        evidence: null,
        verdict: null,
        validation: null,
        action: "duplicate",
        note: `the same patch as ${seen.id} (${seen.fate}); not run or reviewed again`,
      });
      if (r + 1 > maxRounds) return { next: null, round: r + 1, repeated: seen };
      deps.onRound?.(r + 1, maxRounds);
      ask = renderReviewPrompt("review-duplicate", { id: seen.id, fate: seen.fate, guidance });
      ask += pinned.refusedNote(claims);
    }
  };
  const noNewPatch = (got: { repeated: TriedPatch | null }): string =>
    got.repeated
      ? `the patch writer kept sending the patch already tried as ${got.repeated.id}, and no review rounds are left`
      : "no new patch was written";

  // True when the previous round left something unevaluated (a rewritten patch or test).
  let changed = true;
  for (let round = 1; round <= maxRounds || changed; round++) {
    const closing = round > maxRounds;
    changed = false;
    deps.onRound?.(round, closing ? round : maxRounds);
    if (!proposal.applicable) {
      settle("it does not apply");
      return stop(round, `patch ${proposal.id} does not apply (${proposal.status})`);
    }
    let afterRun: ScriptRun;
    try {
      const script = repro.script!;
      const diff = proposal.diff;
      // The tree search may have run this script on this very program already: its run is used.
      const key = reproducerRunKey(diff, config.reproducer.command, config.reproducer.file, script);
      afterRun = await deps.states.once(key, async (): Promise<ScriptRun> => {
        const patched = await deps.states.patched(diff);
        try {
          const run = await runReproducer(deps.sandbox, patched.dir, config, script, deps.signal);
          return { exec: run.exec, ending: run.ending, trace: run.trace, told: run.told };
        } finally {
          await patched.dispose();
        }
      });
    } catch (err) {
      if (err instanceof DiffApplyError) return stop(round, err.message);
      throw err;
    }
    const after = afterRun.exec;
    const evidence = reproducerEvidence({
      before: repro.run!,
      after: afterRun,
      diff: proposal.diff,
      script: repro.script!,
    });
    passes = after.exitCode === 0 && after.limit === null;
    validation = null;
    const scan = deps.scanPatch ? await deps.scanPatch(proposal.diff, repro.script!) : "";
    const reviewInput: ReviewInput = {
      issue: deps.issue,
      ...(deps.maintainer ? { maintainer: deps.maintainer } : {}),
      file: config.reproducer.file,
      script: repro.script!,
      before: repro.run!.exec,
      patch: proposal.diff,
      after,
      scan,
      pinned: pinned.reviewerNote(claims.taken, failing, patchKey(proposal.diff) === failedKey),
    };
    try {
      verdict = await reviewCandidate(deps.model, reviewInput, {
        label: `round-${round}`,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    } catch (err) {
      if (stopsRun(err)) throw err;
      if (err instanceof ReviewUnavailable) return stop(round, err.message, after);
      return stop(round, `the reviewer failed: ${(err as Error).message}`, after);
    }
    deps.record?.(
      `review/round-${round}.json`,
      JSON.stringify({ patch: proposal.id, scriptVersion, verdict }, null, 2),
    );
    let patchOk = verdict["patch-correct"] === "yes";
    let testOk = verdict["test-correct"] === "yes";
    const entry: ReviewRound = {
      round,
      patchId: proposal.id,
      scriptVersion,
      script: repro.script!,
      before: repro.run!.exec,
      after,
      evidence,
      verdict,
      validation: null,
      action: "accepted",
      note: "",
    };
    rounds.push(entry);

    if (patchOk && testOk) {
      if (!deps.validate) {
        entry.note = "accepted by the reviewer (no test suite to validate with)";
        return done(true, `accepted in round ${round}; no test suite`);
      }
      validation = await deps.validate(proposal);
      entry.validation = validation;
      // Tests that did not run, or none that judged the patch: the reviewer is told, and judges again.
      const account = validationFailed(validation) ? null : testsAccount(validation);
      const second = account?.gaps
        ? await reviewWithTests(deps, reviewInput, account.text, round).catch((err: unknown) => {
            if (stopsRun(err)) throw err;
            return `the reviewer could not be asked about the tests: ${(err as Error).message}`;
          })
        : null;
      if (second && typeof second !== "string") {
        verdict = second;
        entry.verdict = second;
        patchOk = second["patch-correct"] === "yes";
        testOk = second["test-correct"] === "yes";
      }
      const seen =
        second === null
          ? ""
          : typeof second === "string"
            ? `; ${second}`
            : "; the reviewer saw what the tests did not run";
      if (!validationFailed(validation) && patchOk && testOk) {
        settle(`it was accepted (${validation.summary})`);
        entry.note = `accepted by the reviewer; validation: ${validation.summary}${seen}`;
        return done(true, `accepted in round ${round}; ${validation.summary}${seen}`);
      }
      if (validationFailed(validation)) {
        // Approved with the claim in view, and only claimed tests fail: decided in the open, never "fixed".
        if (pinned.onlyPinnedFail(claims.taken, validation.regressions)) {
          settle("it was accepted; the tests that fail are claimed to pin the old behaviour");
          entry.note = `accepted by the reviewer, who saw the claim that ${claims.taken.map((c) => c.test).join(", ")} pin the behaviour the issue changes; validation: ${validation.summary}`;
          return done(true, `accepted in round ${round}; ${pinned.pinnedSummary(claims.taken)}`);
        }
        failing = [...validation.regressions];
        failedKey = patchKey(proposal.diff);
        settle(`the reviewer accepted it, but the repository's tests reject it: ${validation.summary}`);
        entry.action = "validation-failed";
        entry.note = validation.summary;
        if (closing) {
          entry.note = `${validation.summary}; no review rounds left to rewrite it`;
          return done(
            false,
            `round ${round}: validation failed (${validation.summary}); no review rounds left`,
          );
        }
        const guidance = renderReviewPrompt("review-validation-feedback", {
          command: validation.command ?? "",
          summary: validation.summary,
          regressions: validation.regressions.map((r) => `- ${r}`).join("\n"),
          failures: formatFailures(validation.failures ?? []),
        });
        const got = await rewriteNew(guidance, round);
        round = got.round;
        const next = got.next;
        if (!next)
          return done(
            false,
            `round ${round}: validation failed (${validation.summary}) and ${noNewPatch(got)}`,
          );
        proposal = next;
        proposals.push(next);
        changed = true;
        continue;
      }
      // Shown what the tests did not run, the reviewer rejected it: rewritten with its advice below.
      entry.note = "the reviewer, shown what the repository's tests did not run, rejected it";
    }

    if (closing) {
      entry.action = "rejected";
      entry.note = "the reviewer rejected the last rewrite; no review rounds left to rewrite it";
      return done(false, `not accepted within ${maxRounds} review round(s) and the closing review`);
    }
    entry.action = !patchOk && !testOk ? "rewrite-both" : patchOk ? "rewrite-test" : "rewrite-patch";
    settle(
      patchOk
        ? "the reviewer accepted it and asked for a better reproducer"
        : `the reviewer judged it wrong: ${verdict["patch-analysis"] || "(no analysis)"}`,
    );
    const notes: string[] = [];
    if (!testOk) {
      const pristine = await deps.states.pristine();
      try {
        const next = await rewriteReproducer(
          {
            model: deps.model,
            sandbox: deps.sandbox,
            config,
            ...(deps.record ? { record: deps.record } : {}),
          },
          repro,
          { analysis: verdict["test-analysis"] || "(none)", advice: verdict["test-advice"] || "(none)" },
          pristine.dir,
          round,
        );
        if (next.status === "reproduced") {
          repro = next;
          scriptVersion++;
          changed = true;
          notes.push(`test rewritten (version ${scriptVersion})`);
        } else {
          repro = { ...repro, messages: next.messages };
          notes.push(
            `the rewritten test did not reproduce the issue (${next.summary}); the previous one is kept`,
          );
        }
      } catch (err) {
        if (stopsRun(err)) throw err;
        notes.push(`rewriting the test failed: ${(err as Error).message}`);
      } finally {
        await pristine.dispose();
      }
    }
    if (!patchOk) {
      const guidance = renderReviewPrompt("review-patch-feedback", {
        analysis: verdict["patch-analysis"] || "(none)",
        advice: verdict["patch-advice"] || "(none)",
        file: config.reproducer.file,
        script: repro.script!.trimEnd(),
        after: formatExecForModel(after),
      });
      const got = await rewriteNew(guidance, round);
      const next = got.next;
      if (!next) {
        entry.note = [...notes, noNewPatch(got)].join("; ");
        return done(false, `round ${got.round}: the reviewer rejected the patch and ${noNewPatch(got)}`);
      }
      round = got.round;
      proposal = next;
      proposals.push(next);
      changed = true;
      notes.push(`patch rewritten (${next.id}, ${next.status})`);
    }
    entry.note = notes.join("; ");
  }
  return done(false, `not accepted within ${maxRounds} review round(s)`);
}

async function rewrite(deps: ReviewLoopDeps, guidance: string, round: number): Promise<PatchProposal | null> {
  deps.record?.(`review/round-${round}-guidance.md`, guidance);
  try {
    return await deps.rewritePatch(guidance, round);
  } catch (err) {
    if (stopsRun(err)) throw err;
    deps.record?.(
      `review/round-${round}-rewrite-error.txt`,
      truncateMiddle(String((err as Error).stack ?? err), 4000),
    );
    return null;
  }
}

/** The reviewer's second look at an approved patch, with what the repository's tests did not run. */
async function reviewWithTests(
  deps: ReviewLoopDeps,
  input: ReviewInput,
  tests: string,
  round: number,
): Promise<ReviewVerdict> {
  const verdict = await reviewCandidate(
    deps.model,
    { ...input, tests },
    { label: `round-${round}-tests`, ...(deps.signal ? { signal: deps.signal } : {}) },
  );
  deps.record?.(`review/round-${round}-tests.json`, JSON.stringify({ tests, verdict }, null, 2));
  return verdict;
}
