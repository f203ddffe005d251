import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { RepoGitHub } from "../github/port.ts";
import { applyPatch, commitAndPush, diffPaths, remoteBranchHead, shallowClone } from "../github/git.ts";
import { JobShutdownError } from "../jobs/errors.ts";
import type { LimitStore } from "../jobs/limits.ts";
import type { Job, JobContext } from "../jobs/types.ts";
import { inlineCode, plainInert } from "../core/inert-markdown.ts";
import { sanitizeUntrusted } from "../core/untrusted-text.ts";
import { DAY_MS } from "./budgets.ts";
import { type RunData, RunDataSchema } from "./job-data.ts";
import type { IssueState } from "../github/render/markers.ts";
import type { Pipeline } from "../contract/app-result.ts";
import { renderPullBody } from "../github/render/pr-body.ts";
import type { AppSettings } from "./settings.ts";
import { type FinalState, STAGES } from "../github/render/status-comment.ts";
import { runFailureState } from "./failures.ts";
import { adviceOf, explainNoPatch, pipelineStages } from "./run-report.ts";
import type { PullGitHub } from "../github/pull-port.ts";
import { ciNextStep, runCommitMessage } from "./ci-gate.ts";
import { gatherMaintainerInput } from "./maintainer-input.ts";
import { replyToPoints } from "./review-answers.ts";
import { publishPull } from "./publish.ts";
import { type PullPlan, planStages, pullPlan, readProgress, readPushed } from "./pull-plan.ts";
import { progress, type StatusClock, StatusUpdater } from "./status-updater.ts";
import { comparePatch, interDiff, patchDigest } from "./retry-diff.ts";
import type { ChangeSinceLast } from "../github/render/pr-checklist.ts";

export interface RunDeps {
  github: RepoGitHub;
  pipeline: Pipeline;
  settings: AppSettings;
  /** The model name shown in the pull request. */
  model: string;
  now: () => number;
  /** The repository's daily spend, from which the run reserved its budget at admission. */
  limits: LimitStore;
  log: { info: (msg: string) => void; warn: (msg: string) => void };
  /** Reviews, checks and files of the app's pull request (the maintainer's input); absent: none is read. */
  pulls?: PullGitHub;
  /** The status comment's clock (edits at least a second apart); tests inject one. */
  statusClock?: StatusClock;
}

export type RunOutcome =
  | { status: "pull-opened" | "pull-updated"; pull: number; commit: string }
  | { status: "no-patch" | "failed" | "cancelled"; reason: string };

/** Turns the run's reserved budget into what it spent, in the shared daily counter. Never throws. */
async function settleSpend(deps: RunDeps, data: RunData, spentUsd: number, first: boolean): Promise<void> {
  if (!data.spend) return;
  const { key, reservedUsd } = data.spend;
  const spent = Number.isFinite(spentUsd) && spentUsd > 0 ? spentUsd : 0;
  try {
    if (!first) await deps.limits.add(key, spent, DAY_MS);
    else if (spent < reservedUsd) await deps.limits.give(key, reservedUsd - spent);
    else if (spent > reservedUsd) await deps.limits.add(key, spent - reservedUsd, DAY_MS);
  } catch (error) {
    deps.log.warn(
      `could not record the run's spend: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function branchFor(issueNumber: number): string {
  return `auto-fix/issue-${issueNumber}`;
}

function issueMarkdown(data: RunData, body: string): string {
  return `# ${sanitizeUntrusted(data.title).trim()}\n\n${sanitizeUntrusted(body).trim()}\n`;
}

/** What the next run's prompts carry besides the issue: the maintainer's guidance and the reviewer's advice. */
export function runGuidance(
  guidance: string | undefined,
  previousAdvice: string | undefined,
): string | undefined {
  const parts: string[] = [];
  if (guidance?.trim()) parts.push(`Guidance from a maintainer: ${sanitizeUntrusted(guidance).trim()}`);
  if (previousAdvice?.trim()) {
    parts.push(`Reviewer advice from the previous run:\n${sanitizeUntrusted(previousAdvice).trim()}`);
  }
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

const WRITERS = new Set(["admin", "maintain", "write"]);

const redact = (text: string, secret: string | null) => (secret ? text.split(secret).join("***") : text);

/**
 * One run for one issue: clone → pipeline → commit/push → pull request, with the status comment edited
 * as stages complete. Every failure ends in a final state that says what happened and what to do.
 */
export async function runIssue(job: Job, ctx: JobContext, deps: RunDeps): Promise<RunOutcome> {
  const { github, settings } = deps;
  const data = RunDataSchema.parse(job.spec.data ?? {});
  const issueNumber = job.spec.issueNumber;
  const started = deps.now();
  const state: IssueState = { ...data.issueState };
  const status = new StatusUpdater(
    github,
    issueNumber,
    {
      state,
      run: data.run,
      maxRuns: data.maxRuns,
      trigger: data.trigger,
      ...(job.spec.guidance ? { guidance: job.spec.guidance } : {}),
      phase: "running",
      stages: {},
      ...(data.notices ? { notices: [...data.notices] } : {}),
      // An automatic run keeps the lines that reported the failing checks which started it.
      ...(data.ci
        ? {
            ci: {
              sha: data.ci.sha,
              pull: data.ci.pull,
              failing: data.ci.failing,
              automatic: data.ci.automatic ?? null,
              usedUp: null,
            },
          }
        : {}),
    },
    deps.statusClock ? { clock: deps.statusClock } : {},
  );
  const workDir = resolve(settings.workDir, `${job.spec.owner}-${job.spec.repo}-${issueNumber}-${job.id}`);
  const repoDir = join(workDir, "repo");
  // One artifacts folder per attempt: a resumed job never mixes its files with those of the run that died.
  const outDir = join(workDir, "artifacts", new Date(started).toISOString().replace(/[:.]/g, "-"));
  let token: string | null = null;

  const finish = async (final: FinalState, outcome: RunOutcome): Promise<RunOutcome> => {
    for (const s of STAGES) {
      const line = status.view.stages[s];
      if (line?.status === "running") status.view.stages[s] = { status: "failed" };
    }
    status.view.phase = "finished";
    status.view.final = {
      ...final,
      headline: redact(final.headline, token),
      details: final.details.map((d) => redact(d, token)),
    };
    await status.flush();
    await rm(repoDir, { recursive: true, force: true }).catch(() => {});
    return outcome;
  };
  const cancelled = () => {
    // Shutdown is not a cancel: the job goes back to the queue and resumes from its checkpoint.
    if (ctx.signal.reason instanceof JobShutdownError) throw ctx.signal.reason;
    return finish(
      {
        ok: false,
        headline: "The run was cancelled with `/cancel`.",
        details: [],
        next: ["Comment `/retry` to start again."],
      },
      { status: "cancelled", reason: "cancelled" },
    );
  };

  /** The pull request step (opened or updated, commented, replies), then the run's final state. */
  const publish = async (
    plan: PullPlan,
    resumed: boolean,
    openPull?: { number: number } | null,
  ): Promise<RunOutcome> => {
    status.view.stages = { ...planStages(plan), "pull request": { status: "running" } };
    if (plan.advice) state.advice = plan.advice;
    void status.flush();
    const done = await publishPull(
      plan,
      resumed ? readProgress(job.checkpoint, plan) : null,
      { github, pulls: deps.pulls, checkpoint: ctx.checkpoint, warn: deps.log.warn },
      { resumed, ...(openPull !== undefined ? { openPull } : {}) },
    );
    state.pull = done.pull;
    await ctx.checkpoint("pr-opened", { pull: done.pull });
    status.view.stages["pull request"] = { status: "done", ref: done.pull };
    return finish(
      {
        ok: true,
        headline: `${done.existed ? "Updated" : "Opened"} draft pull request #${done.pull} on \`${plan.branch}\`.`,
        details: plan.details,
        next: [
          `Review #${done.pull} and mark it ready when it is right.`,
          ...(ciNextStep(data.ciGate) ? [ciNextStep(data.ciGate)!] : []),
          "Comment `/retry <guidance>` to try again with your guidance (the branch and pull request are updated).",
        ],
      },
      { status: done.existed ? "pull-updated" : "pull-opened", pull: done.pull, commit: plan.commit },
    );
  };

  try {
    // 👀 on what triggered the run, then the status comment (a resumed job reuses the one it posted).
    const saved = job.checkpoint.statusCommentId;
    if (typeof saved !== "number") {
      if (data.commandCommentId) await github.reactToComment(data.commandCommentId, "eyes");
      else await github.reactToIssue(issueNumber, "eyes");
    }
    const commentId = await status.open(typeof saved === "number" ? saved : data.statusCommentId);
    await ctx.checkpoint("acknowledged", { statusCommentId: commentId });
    const pushedRecord = readPushed(job.checkpoint, issueNumber);
    const donePull = job.checkpoint.pull;
    if (typeof donePull === "number") {
      // Resumed after its pull request was already opened or updated: only the final state is missing.
      state.pull = donePull;
      if (pushedRecord.kind === "plan") {
        status.view.stages = planStages(pushedRecord.plan);
        if (pushedRecord.plan.advice) state.advice = pushedRecord.plan.advice;
      }
      status.view.stages["pull request"] = { status: "done", ref: donePull };
      return await finish(
        {
          ok: true,
          headline: `Draft pull request #${donePull} is up to date.`,
          details: pushedRecord.kind === "plan" ? pushedRecord.plan.details : [],
          next: [],
        },
        { status: "pull-updated", pull: donePull, commit: String(job.checkpoint.commit ?? "") },
      );
    }
    if (pushedRecord.kind !== "none") {
      // Resumed after the branch was pushed: the pull request step goes on from what the run recorded,
      // as long as the branch still holds the recorded commit; otherwise the run starts again, and says why.
      token = await github.gitToken();
      const restart = await resumeAfterPush(pushedRecord, data.cloneUrl, token);
      if (restart === null && pushedRecord.kind === "plan") {
        const plan = pushedRecord.plan;
        deps.log.info(`resuming after the push of ${plan.commit} to ${plan.branch}: pull request step only`);
        status.view.notices = [
          ...(data.notices ?? []),
          `The run was resumed after its worker stopped. The branch ${inlineCode(plan.branch, 100)} already held its commit (${inlineCode(plan.commit.slice(0, 7), 20)}), so it went on with the pull request.`,
        ];
        return await publish(plan, true);
      }
      if (restart) {
        deps.log.warn(restart);
        status.view.notices = [...(data.notices ?? []), restart];
        await status.flush();
      }
    }
    await mkdir(workDir, { recursive: true });
    const issue = await github.getIssue(issueNumber);
    const issueFile = join(workDir, "issue.md");
    await writeFile(issueFile, issueMarkdown(data, issue.body));
    const guidance = runGuidance(job.spec.guidance, data.previousAdvice);
    // What the maintainer said on the pull request (a review, failing checks) and the repository's
    // instructions: read before the clone, so that a review run sees the code as the reviewer saw it.
    const gathered = deps.pulls
      ? await gatherMaintainerInput(
          deps.pulls,
          data,
          {
            text: job.spec.guidance,
            advice: data.previousAdvice,
            retry: job.spec.kind === "retry",
          },
          async (login) => WRITERS.has(await github.permission(login)),
        )
      : null;
    for (const n of gathered?.notes ?? []) deps.log.warn(n);
    const points = gathered?.input.review?.points ?? [];
    status.stage("cloned", { status: "running" });

    token = await github.gitToken();
    // A resumed job finds the clone of the run that died: start from a clean one.
    await rm(repoDir, { recursive: true, force: true });
    const clone = await shallowClone({
      url: data.cloneUrl,
      dir: repoDir,
      token,
      ref: data.ref,
      signal: ctx.signal,
    });
    status.stage("cloned", { status: "done", note: `${data.ref} at ${clone.commit.slice(0, 7)}` });
    await ctx.checkpoint("cloned", { commit: clone.commit });
    if (ctx.signal.aborted) return await cancelled();

    const result = await deps.pipeline({
      repoDir,
      issueFile,
      ...(guidance ? { guidance } : {}),
      ...(gathered ? { maintainer: gathered.input } : {}),
      ...(data.model ? { model: data.model } : {}),
      outDir,
      ...(data.testCommand ? { testCommand: data.testCommand } : {}),
      ...(data.protectedPaths ? { protectedPaths: data.protectedPaths } : {}),
      maxCostUsd: data.maxCostUsd,
      signal: ctx.signal,
      onStage: (stage, note) => progress(status, stage, note),
    });
    // The result has the last word on every pipeline stage (a stage may have run and failed).
    for (const [name, line] of pipelineStages(result)) {
      const shown = status.view.stages[name];
      // Indexing that visibly ran stays done even when a later stage failed.
      const ran = name === "indexed" && (shown?.status === "running" || shown?.status === "done");
      status.view.stages[name] = ran
        ? { status: "done", ...(shown?.note ? { note: shown.note } : {}) }
        : line;
    }
    await mkdir(outDir, { recursive: true });
    // The pipeline's own result.json stays as written; this is what the app read from it.
    await writeFile(join(outDir, "app-result.json"), `${JSON.stringify(result, null, 2)}\n`);
    // The run's reservation becomes what it spent: once per job (checkpointed first, so that a crash
    // can leave the reservation standing, never count a refund twice); a run after that adds its spend.
    const firstSettle = job.checkpoint.spendSettled !== true;
    await ctx.checkpoint("pipeline", { status: result.status, spendSettled: true });
    // An unknown cost (a model without a price, bounded by a token budget) keeps the whole reservation.
    const spentUsd = result.usage.cost_usd ?? data.spend?.reservedUsd ?? data.maxCostUsd;
    await settleSpend(deps, data, spentUsd, firstSettle);
    ctx.recordUsage?.({
      promptTokens: result.usage.prompt_tokens,
      completionTokens: result.usage.completion_tokens,
      costUsd: result.usage.cost_usd ?? 0,
    });
    const advice = adviceOf(result);
    if (advice) state.advice = advice;
    if (ctx.signal.aborted) return await cancelled();

    if ((result.status !== "fixed" && result.status !== "patched") || !result.patch?.trim()) {
      status.stage("pull request", { status: "skipped", note: "no patch passed the checks" });
      // A review's comments hear that this run changed nothing (the status comment says why).
      if (deps.pulls && data.review && points.length > 0) {
        await replyToPoints(deps.pulls, data.review.pull, points, [], data.run, null, deps.log.warn);
      }
      const reason = result.status === "error" ? "failed" : "no-patch";
      return await finish(explainNoPatch(result, data), {
        status: reason,
        reason: result.reason || result.status,
      });
    }

    status.stage("pull request", { status: "running" });
    await applyPatch(repoDir, result.patch);
    const branch = branchFor(issueNumber);
    // Before the push replaces it, the open pull request still shows the previous run's patch.
    const open = await github.findOpenPull(branch);
    const since = await sinceLastRun(
      deps,
      data,
      state,
      result.patch,
      open?.number ?? null,
      job.spec.guidance,
    );
    const pushed = await commitAndPush({
      dir: repoDir,
      url: data.cloneUrl,
      token,
      branch,
      message: runCommitMessage({
        issueNumber,
        title: plainInert(data.title),
        run: data.run,
        gate: data.ciGate,
      }),
      author: settings.gitAuthor,
      force: true,
      // Exactly what was validated: the patch's files, nothing else the clone may hold.
      paths: diffPaths(result.patch),
    });
    const artifactsPath = join(outDir, "pull-request.md");
    const rendered = renderPullBody({
      issueNumber,
      issueTitle: data.title,
      result,
      run: data.run,
      seconds: (deps.now() - started) / 1000,
      model: result.model ?? data.model ?? deps.model,
      files: pushed.files,
      ...(job.spec.guidance ? { guidance: job.spec.guidance } : {}),
      artifactsPath,
      ...(since ? { since } : {}),
    });
    await writeFile(artifactsPath, rendered.full);
    // Everything the pull request step writes is recorded with the push: a worker that dies after it
    // resumes from here without a second pipeline run (publish.ts).
    const plan = pullPlan({
      data,
      guidance: job.spec.guidance,
      result,
      pushed,
      branch,
      base: clone.branch ?? data.defaultBranch,
      body: rendered.body,
      existingPull: open?.number ?? 0,
      title: `Fix #${issueNumber}: ${plainInert(data.title)}`.slice(0, 256),
      points,
      // An automatic run after failing checks answers in the pull request's comment only.
      replyInThreads: deps.pulls !== undefined && !data.ci,
      stages: status.view.stages,
      advice: state.advice,
      ...(since ? { since } : {}),
    });
    await ctx.checkpoint("pushed", { commit: pushed.commit, branch, pullPlan: plan });
    return await publish(plan, false, open);
  } catch (error) {
    if (ctx.signal.aborted) return await cancelled();
    const message = redact(error instanceof Error ? error.message : String(error), token);
    deps.log.warn(`auto-fix run for ${job.spec.owner}/${job.spec.repo}#${issueNumber} failed: ${message}`);
    return await finish(
      runFailureState(error, (text) => redact(text, token)),
      { status: "failed", reason: message },
    );
  }
}

/**
 * How this run's patch and guidance compare with the previous run's, from the digests the issue's marker
 * keeps (and the open pull request's diff for an inter-diff, when the app can read it); records this
 * run's digest and guidance in the marker. Null for the issue's first patch.
 */
async function sinceLastRun(
  deps: RunDeps,
  data: RunData,
  state: IssueState,
  patch: string,
  openPull: number | null,
  guidance: string | undefined,
): Promise<ChangeSinceLast | null> {
  const sha = patchDigest(patch);
  const history = (state.patches ?? []).filter((h) => h.run < data.run);
  const change = comparePatch(history, sha);
  const guidanceBefore = state.guidance ?? null;
  state.patches = [...history, { run: data.run, sha }].slice(-20);
  const now = guidance?.trim() ? guidance.trim().slice(0, 2000) : undefined;
  if (now) state.guidance = now;
  else delete state.guidance;
  if (change.kind === "first") return null;
  let interdiff: string | null = null;
  if (change.kind === "changed" && openPull !== null && deps.pulls) {
    // The branch still holds the previous run's patch: GitHub's diff of the open pull request.
    const previous = await deps.pulls.getPullDiff(openPull).catch(() => null);
    if (previous) interdiff = interDiff(previous, patch);
  }
  return {
    patch: change.kind === "changed" ? { ...change, interdiff } : change,
    guidanceBefore,
    guidanceNow: now ?? null,
  };
}

/**
 * Why a job resumed after its push must run again (a notice for the status comment), or null when the
 * pull request step can go on from the record: the branch still holds the recorded commit.
 */
async function resumeAfterPush(
  record: Exclude<ReturnType<typeof readPushed>, { kind: "none" }>,
  cloneUrl: string,
  token: string,
): Promise<string | null> {
  const lead = "The run was resumed after its worker stopped.";
  if (record.kind === "unreadable") {
    return `${lead} Its record of the pushed branch could not be read (${inlineCode(record.problem, 300)}), so the run started again from a fresh clone.`;
  }
  const { branch, commit } = record.plan;
  const head = await remoteBranchHead({ url: cloneUrl, token, branch });
  if (head === commit) return null;
  const now =
    head === null
      ? "no longer exists on the repository (it was deleted)"
      : `now points at another commit (${inlineCode(head.slice(0, 7), 20)})`;
  return `${lead} The branch ${inlineCode(branch, 100)} it had pushed (${inlineCode(commit.slice(0, 7), 20)}) ${now}, so the run started again from a fresh clone.`;
}
