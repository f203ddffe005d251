import { z } from "zod";
import { CONFIG_PATH } from "../config/index.ts";
import { inlineCode } from "../core/inert-markdown.ts";
import type { CommentInfo, Permission, RepoGitHub } from "../github/port.ts";
import { type LimitStore, limitKeys } from "../jobs/limits.ts";
import type { Job } from "../jobs/types.ts";
import { budgetRefusal, DAY_MS, type RunLedger } from "./budgets.ts";
import type { HandleOutcome } from "./outcome.ts";
import { type RunData, RunDataSchema } from "./job-data.ts";
import { deniedMarker, type IssueState, readStatusMarker } from "../github/render/markers.ts";
import { type AppRepoConfig, invalidConfigReply } from "./repo-config.ts";
import { chooseRunRef } from "./run-ref.ts";
import { type AppSettings, type EffectiveConfig, effectiveConfig } from "./settings.ts";

/**
 * What the webhook handler stores with a job: facts read from the payload, stored once the sender's
 * access was checked. The worker checks label and access again, then budgets and the issue's markers.
 */
export const StoredTriggerSchema = z.object({
  kind: z.enum(["labeled", "comment", "review", "check"]),
  label: z.string().optional(),
  /** Where replies go: the issue, or the app's pull request the command was written on. */
  replyTo: z.number().int().positive(),
  /** True when the command came from the app's pull request: the target issue is checked by the worker. */
  fromPull: z.boolean(),
  commentId: z.number().int().optional(),
  cloneUrl: z.string(),
  defaultBranch: z.string(),
  title: z.string(),
  body: z.string(),
  /** A review on the app's pull request (kind `review`). */
  review: z.object({ pull: z.number().int().positive(), id: z.number().int().positive() }).optional(),
  /** A failing head commit of the app's pull request (kind `check`: an automatic run, `ci_retries`). */
  ci: z
    .object({
      pull: z.number().int().positive(),
      sha: z.string().min(1).max(64),
      /** The failing checks' names (the status comment's CI lines name them again during the run). */
      failing: z.array(z.string().max(200)).max(100).default([]),
    })
    .optional(),
  /** `/auto-fix [guidance]` on the issue: a first run without the label. */
  command: z.enum(["retry", "auto-fix"]).optional(),
});
export type StoredTrigger = z.infer<typeof StoredTriggerSchema>;

export interface AdmissionDeps {
  github: RepoGitHub;
  ledger: RunLedger;
  /** Counters shared by every worker: the repository's daily model spend. */
  limits: LimitStore;
  settings: AppSettings;
  /**
   * `.github/auto-fix.yml` of the repo on its default branch, or at `ref`, validated with the command
   * line's schema (`readRepoConfig`).
   */
  loadRepoConfig: (ref?: string) => Promise<AppRepoConfig>;
  now: () => number;
}

export type Admission = { ok: true; data: RunData } | { ok: false; outcome: HandleOutcome };

/** Below this a run could not make one model call: the day's spend is used up. */
const MIN_RUN_BUDGET_USD = 0.01;

const ALLOWED = new Set<Permission>(["admin", "maintain", "write"]);

const isStatusComment = (c: CommentInfo) => c.authorType === "Bot" && readStatusMarker(c.body) !== null;

/**
 * The sender checks: the configured label (label events) and write access. A sender without it gets one
 * polite reply per issue, at most. The webhook handler runs them before a trigger is stored (so that a
 * refused trigger never holds the issue's one active slot), and the worker again before a run starts
 * (access may have changed while the job waited). A label other than the operator's is checked against
 * the repo's config first, so that unrelated labels cost no permission lookup.
 */
export async function checkSender(
  input: {
    kind: "labeled" | "comment";
    label?: string | undefined;
    sender: string;
    replyTo: number;
    /** A `/cancel`: stopping a run needs no valid configuration. */
    cancel?: boolean;
  },
  deps: Pick<AdmissionDeps, "github" | "settings" | "loadRepoConfig">,
): Promise<{ ok: true; config: EffectiveConfig } | { ok: false; outcome: HandleOutcome }> {
  // Budgets and the test command come from the repo's config for commands too.
  const repoConfig = deps.loadRepoConfig();
  const likely = input.kind === "comment" || input.label === deps.settings.label;
  const early = likely ? deps.github.permission(input.sender) : null;
  early?.catch(() => {});
  const read = await repoConfig;
  // An invalid file names no label the app could trust: the operator's label stands in for it.
  const config = effectiveConfig(deps.settings, read.ok ? read.file : null);
  if (input.kind === "labeled" && input.label !== config.label) {
    return { ok: false, outcome: { action: "ignored", reason: `label is not ${config.label}` } };
  }
  const permission = await (early ?? deps.github.permission(input.sender));
  if (!ALLOWED.has(permission)) {
    await replyDeniedOnce(deps.github, input.replyTo, input.sender);
    return { ok: false, outcome: { action: "denied" } };
  }
  if (!read.ok && !input.cancel) {
    // The pipeline would refuse the same file: say why now, to the maintainer who asked.
    await deps.github.createComment(input.replyTo, invalidConfigReply(input.sender, read.problems));
    return {
      ok: false,
      outcome: {
        action: "refused",
        reason: `${CONFIG_PATH} is not valid: ${read.problems.join("; ").slice(0, 500)}`,
      },
    };
  }
  return { ok: true, config };
}

/**
 * The first step of a job, before any run work: everything the webhook handler left out because it
 * needs GitHub. Ends the job as ignored, denied or refused (with the same single polite reply), or returns
 * the run's data.
 */
export async function admitJob(job: Job, deps: AdmissionDeps): Promise<Admission> {
  const { github } = deps;
  const t = StoredTriggerSchema.parse(job.spec.data?.trigger);
  const issueNumber = job.spec.issueNumber;
  let title = t.title;
  let body = t.body;
  let fetched: Awaited<ReturnType<RepoGitHub["getIssue"]>> | undefined;
  if (t.fromPull) {
    const issue = await github.getIssue(issueNumber);
    fetched = issue;
    if (issue.isPullRequest) {
      return {
        ok: false,
        outcome: { action: "ignored", reason: "pull request marker names a pull request" },
      };
    }
    if (issue.locked || issue.state !== "open") {
      return { ok: false, outcome: { action: "ignored", reason: "issue is closed or locked" } };
    }
    title = issue.title;
    body = issue.body;
  }
  const retry = job.spec.kind === "retry";
  const sender = job.spec.sender;
  const commentsAhead = github.listComments(issueNumber);
  commentsAhead.catch(() => {});
  // An automatic run after a failing check has no person behind it: the repository's `ci_retries` (on its
  // default branch, where only writers change it) is what allows it.
  const automatic = t.kind === "check";
  let config: EffectiveConfig;
  if (automatic) {
    const read = await deps.loadRepoConfig();
    // No one asked, so no one is answered: the file's problems reach a maintainer on their next command.
    if (!read.ok) {
      return {
        ok: false,
        outcome: {
          action: "refused",
          reason: `${CONFIG_PATH} is not valid: ${read.problems.join("; ").slice(0, 500)}`,
        },
      };
    }
    config = effectiveConfig(deps.settings, read.file);
  } else {
    const kind = t.kind === "labeled" ? "labeled" : "comment";
    const checked = await checkSender({ kind, label: t.label, sender, replyTo: t.replyTo }, deps);
    if (!checked.ok) return checked;
    config = checked.config;
  }

  // Who may start a run and what it may spend are the default branch's settings; how the code is built,
  // tested and protected is the file at the ref the run works on, which the pipeline reads from its
  // clone: checked here too, so that a file the pipeline would refuse stops the run before it starts
  // (docs/configuration.md, "Which file").
  const chosen = await chooseRunRef(
    {
      issueNumber,
      body,
      guidance: job.spec.guidance,
      sender,
      defaultBranch: t.defaultBranch,
      issue: fetched,
    },
    github,
  );
  if (!chosen.ok) {
    if (!automatic)
      await github.createComment(t.replyTo, `@${sender} auto-fix did not start: ${chosen.refusal}`);
    return { ok: false, outcome: { action: "refused", reason: chosen.refusal } };
  }
  const ref = chosen.ref;
  let testCommand = config.testCommand;
  let protectedPaths: string[] = [];
  if (ref !== t.defaultBranch) {
    const atRef = await deps.loadRepoConfig(ref);
    if (!atRef.ok) {
      if (!automatic) {
        await github.createComment(t.replyTo, invalidConfigReply(sender, atRef.problems, ref));
      }
      return {
        ok: false,
        outcome: {
          action: "refused",
          reason: `${CONFIG_PATH} at ${ref} is not valid: ${atRef.problems.join("; ").slice(0, 500)}`,
        },
      };
    }
    testCommand = atRef.file?.test === undefined ? deps.settings.testCommand : undefined;
    // A ref's `build-scripts: editable` cannot lift the default branch's protection of them.
    protectedPaths = [
      ...config.protectedPaths,
      ...(atRef.file?.["build-scripts"] === "editable" ? config.buildScripts : []),
    ];
  }

  const comments = await commentsAhead;
  const statusComment = comments.find(isStatusComment);
  const state: IssueState = (statusComment && readStatusMarker(statusComment.body)) || { runs: 0 };
  const repoKey = `${job.spec.owner}/${job.spec.repo}`.toLowerCase();
  const limits = {
    maxRunsPerIssue: config.maxRunsPerIssue,
    maxRunsPerRepoPerDay: config.maxRunsPerRepoPerDay,
  };
  const refuse = async (refusal: string): Promise<Admission> => {
    const who = automatic
      ? "auto-fix did not start a run after the failing checks."
      : `@${sender} auto-fix did not start.`;
    await github.createComment(t.replyTo, `${who} ${refusal}`);
    return { ok: false, outcome: { action: "refused", reason: refusal } };
  };
  const ciUsed = state.ciRetries ?? 0;
  if (automatic && ciUsed >= config.ciRetries) {
    return {
      ok: false,
      outcome: { action: "ignored", reason: `ci_retries used up (${ciUsed} of ${config.ciRetries})` },
    };
  }
  const modelRefusal = modelChoiceRefusal(config.model, deps.settings.allowedModels);
  if (modelRefusal) return refuse(modelRefusal);
  const issueRefusal = budgetRefusal({ ...limits, issueRuns: state.runs, repoRunsToday: 0 });
  if (issueRefusal) return refuse(issueRefusal);
  // The run's model budget is reserved from the repository's daily spend, atomically across workers:
  // the per-run limit, or what is left of the day's when that is less.
  const now = deps.now();
  const spendKey = limitKeys.repoSpendPerDay(job.spec.owner, job.spec.repo, now);
  const dailySpend = deps.settings.maxCostUsdPerRepoPerDay;
  const left = dailySpend - (await deps.limits.get(spendKey));
  const budget = Math.min(config.maxCostUsdPerRun, left);
  const spendRefusal =
    `This repository's model spend today reached its daily limit ($${dailySpend.toFixed(2)} per repository ` +
    "per UTC day, set by the operator with `AUTO_FIX_MAX_COST_USD_PER_REPO_PER_DAY`). Try again tomorrow.";
  if (budget < MIN_RUN_BUDGET_USD) return refuse(spendRefusal);
  if (!(await deps.limits.take(spendKey, budget, dailySpend, DAY_MS)).allowed) return refuse(spendRefusal);
  const run = state.runs + 1;
  const data = RunDataSchema.parse({
    cloneUrl: t.cloneUrl,
    defaultBranch: t.defaultBranch,
    ref,
    statusCommentId: statusComment?.id ?? 0,
    run,
    maxRuns: config.maxRunsPerIssue,
    trigger: triggerText(t, sender, retry, config, ciUsed + 1),
    maxCostUsd: budget,
    spend: { key: spendKey, reservedUsd: budget },
    ...(testCommand ? { testCommand } : {}),
    ...(protectedPaths.length > 0 ? { protectedPaths } : {}),
    ...(retry && state.advice ? { previousAdvice: state.advice } : {}),
    ...(t.commentId ? { commandCommentId: t.commentId } : {}),
    ...(t.review ? { review: t.review } : {}),
    ...(t.ci ? { ci: { ...t.ci, automatic: { run: ciUsed + 1, of: config.ciRetries } } } : {}),
    ...(config.model ? { model: config.model } : {}),
    ...(chosen.notice ? { notices: [chosen.notice] } : {}),
    ciGate: config.ci,
    // Automatic runs after failing checks are counted until a person starts a run again.
    issueState: { ...state, runs: run, ciRetries: automatic ? ciUsed + 1 : 0 },
    title,
  });
  // The repository's daily slot is counted and taken in one atomic step, shared by every worker.
  const slot = await deps.ledger.reserve(repoKey, now, DAY_MS, config.maxRunsPerRepoPerDay);
  if (!slot.allowed) {
    await deps.limits.give(spendKey, budget);
    return refuse(budgetRefusal({ ...limits, issueRuns: 0, repoRunsToday: slot.count }) ?? "daily run limit");
  }
  return { ok: true, data };
}

/** How the status comment says who started the run. */
function triggerText(
  t: StoredTrigger,
  sender: string,
  retry: boolean,
  config: EffectiveConfig,
  ciRun: number,
): string {
  if (t.kind === "check" && t.ci) {
    return `started automatically: checks failed on ${inlineCode(t.ci.sha.slice(0, 7), 20)} of #${t.ci.pull} (\`ci_retries: ${config.ciRetries}\`, run ${ciRun} of ${config.ciRetries})`;
  }
  if (t.kind === "review" && t.review) return `started by @${sender} with a review of #${t.review.pull}`;
  if (t.command === "auto-fix") return `started by @${sender} with \`/auto-fix\``;
  if (retry) return `started by @${sender} with \`/retry\``;
  return `started by @${sender} (label ${inlineCode(config.label, 100)})`;
}

/**
 * Why the repository's `model:` cannot be used: the operator allows no choice, or not this one. The
 * message names the allowed models, so that the maintainer can pick one.
 */
export function modelChoiceRefusal(model: string | undefined, allowed: readonly string[]): string | null {
  if (model === undefined || allowed.includes(model)) return null;
  const asked = `\`.github/auto-fix.yml\` asks for the model ${inlineCode(model, 100)}`;
  if (allowed.length === 0) {
    return `${asked}, but the app's operator allows no per-repository model (\`AUTO_FIX_ALLOWED_MODELS\` is empty). Remove \`model:\` to use the app's model.`;
  }
  return `${asked}, which is not one the app's operator allows. Allowed models (\`AUTO_FIX_ALLOWED_MODELS\`): ${allowed.map((m) => inlineCode(m, 100)).join(", ")}.`;
}

/** Replies are serialised per (issue, person) in this process, so two quick refusals make one reply. */
const denyChains = new Map<string, Promise<void>>();

/** One polite reply per person and issue to a sender without write access; never a run. */
export function replyDeniedOnce(github: RepoGitHub, issueNumber: number, login: string): Promise<void> {
  const key = `${github.owner}/${github.repo}#${issueNumber}:${login}`.toLowerCase();
  const next = (denyChains.get(key) ?? Promise.resolve()).then(async () => {
    const marker = deniedMarker(login);
    const comments = await github.listComments(issueNumber);
    if (comments.some((c) => c.authorType === "Bot" && c.body.includes(marker))) return;
    await github.createComment(
      issueNumber,
      `${marker}\n@${login} thanks for your interest! auto-fix runs only when someone with write access to ` +
        "this repository asks for it (by adding the label or commenting `/retry`). A maintainer can start it.",
    );
  });
  const settled = next.catch(() => {});
  denyChains.set(key, settled);
  void settled.then(() => {
    if (denyChains.get(key) === settled) denyChains.delete(key);
  });
  return next;
}
