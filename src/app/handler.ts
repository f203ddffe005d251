import type { JobQueue, JobSpec } from "../jobs/types.ts";
import type { CommentInfo, Permission, RepoGitHub } from "../github/port.ts";
import { budgetRefusal, DAY_MS, type RunLedger } from "./budgets.ts";
import { parseCommand, refFromIssue } from "./commands.ts";
import type { RunData } from "./job-data.ts";
import { deniedMarker, type IssueState, readPullMarker, readStatusMarker } from "./markers.ts";
import { type AppSettings, effectiveConfig } from "./settings.ts";
import type { TriggerEvent } from "./trigger.ts";

/** Everything one delivery needs; built per delivery, nothing kept between deliveries. */
export interface DeliveryDeps {
  github: RepoGitHub;
  queue: JobQueue;
  ledger: RunLedger;
  settings: AppSettings;
  /** `.github/auto-fix.yml` of the repo (parsed YAML, untrusted), or null. */
  loadRepoConfig: () => Promise<unknown>;
  now: () => number;
  /**
   * Runs a reply after the webhook is answered. Probot spaces an installation's writes a second apart per
   * process, so a reply awaited here could wait behind running jobs' edits past GitHub's 10 seconds.
   */
  defer: (work: () => Promise<unknown>) => void;
}

export type HandleOutcome =
  | { action: "ignored"; reason: string }
  | { action: "denied" }
  | { action: "refused"; reason: string }
  | { action: "queued"; jobId: string }
  | { action: "duplicate"; jobId: string }
  | { action: "active"; jobId: string }
  | { action: "cancelled" }
  | { action: "nothing-to-cancel" };

const ALLOWED = new Set<Permission>(["admin", "maintain", "write"]);

const isStatusComment = (c: CommentInfo) => c.authorType === "Bot" && readStatusMarker(c.body) !== null;

/** Handles `issues.labeled` and `issue_comment.created`: checks, acknowledges, enqueues. Never runs the fix. */
export async function handleTrigger(event: TriggerEvent, deps: DeliveryDeps): Promise<HandleOutcome> {
  const { github } = deps;
  if (event.sender.type === "Bot" || event.sender.login.endsWith("[bot]")) {
    return { action: "ignored", reason: "sender is a bot" };
  }
  let command: ReturnType<typeof parseCommand> = null;
  let issueNumber = event.issue.number;
  let title = event.issue.title;
  let body = event.issue.body;
  if (event.kind === "comment") {
    command = parseCommand(event.comment?.body ?? "");
    if (!command) return { action: "ignored", reason: "not a command" };
    if (event.issue.isPullRequest) {
      const target = readPullMarker(event.issue.body);
      if (target === null || event.issue.authorType !== "Bot") {
        return { action: "ignored", reason: "pull request is not the app's" };
      }
      if (!event.issue.open) return { action: "ignored", reason: "pull request is closed" };
      const issue = await github.getIssue(target);
      if (issue.isPullRequest)
        return { action: "ignored", reason: "pull request marker names a pull request" };
      if (issue.locked || issue.state !== "open")
        return { action: "ignored", reason: "issue is closed or locked" };
      issueNumber = issue.number;
      title = issue.title;
      body = issue.body;
    }
  } else if (event.issue.isPullRequest) {
    return { action: "ignored", reason: "labelled a pull request" };
  }
  if (event.issue.locked) return { action: "ignored", reason: "issue is locked" };
  if (!event.issue.open) return { action: "ignored", reason: "issue is closed" };

  // Config, permission and (when a run is likely) the issue's comments are independent reads: fetch them
  // together. The comments are read ahead only for a command or the operator's label.
  const likelyRun =
    command?.kind === "retry" || (event.kind === "labeled" && event.label === deps.settings.label);
  const commentsAhead = likelyRun ? github.listComments(issueNumber) : null;
  commentsAhead?.catch(() => {});
  const [repoConfig, permission] = await Promise.all([
    deps.loadRepoConfig(),
    github.permission(event.sender.login),
  ]);
  const config = effectiveConfig(deps.settings, repoConfig);
  if (event.kind === "labeled" && event.label !== config.label) {
    return { action: "ignored", reason: `label is not ${config.label}` };
  }
  if (!ALLOWED.has(permission)) {
    deps.defer(() => replyDeniedOnce(github, event.issue.number, event.sender.login));
    return { action: "denied" };
  }

  if (command?.kind === "cancel") {
    const cancelled = await deps.queue.cancel(event.owner, event.repo, issueNumber);
    if (cancelled) {
      const commentId = event.comment?.id;
      if (commentId) deps.defer(() => github.reactToComment(commentId, "+1"));
      return { action: "cancelled" };
    }
    deps.defer(() =>
      github.createComment(event.issue.number, `@${event.sender.login} there is no auto-fix run to cancel.`),
    );
    return { action: "nothing-to-cancel" };
  }

  const comments = await (commentsAhead ?? github.listComments(issueNumber));
  const statusComment = comments.find(isStatusComment);
  const state: IssueState = (statusComment && readStatusMarker(statusComment.body)) || { runs: 0 };
  const repoKey = `${event.owner}/${event.repo}`.toLowerCase();
  const refusal = budgetRefusal({
    issueRuns: state.runs,
    repoRunsToday: await deps.ledger.countSince(repoKey, deps.now() - DAY_MS),
    maxRunsPerIssue: config.maxRunsPerIssue,
    maxRunsPerRepoPerDay: config.maxRunsPerRepoPerDay,
  });
  if (refusal) {
    deps.defer(() =>
      github.createComment(event.issue.number, `@${event.sender.login} auto-fix did not start. ${refusal}`),
    );
    return { action: "refused", reason: refusal };
  }

  const run = state.runs + 1;
  const guidance = command?.kind === "retry" ? command.guidance : "";
  const trigger =
    command?.kind === "retry"
      ? `started by @${event.sender.login} with \`/retry\``
      : `started by @${event.sender.login} (label \`${config.label}\`)`;
  const data: RunData = {
    cloneUrl: event.cloneUrl,
    defaultBranch: event.defaultBranch,
    ref: refFromIssue(body) ?? event.defaultBranch,
    statusCommentId: statusComment?.id ?? 0,
    run,
    maxRuns: config.maxRunsPerIssue,
    trigger,
    maxCostUsd: config.maxCostUsdPerRun,
    ...(config.testCommand ? { testCommand: config.testCommand } : {}),
    ...(command?.kind === "retry" && state.advice ? { previousAdvice: state.advice } : {}),
    ...(event.comment ? { commandCommentId: event.comment.id } : {}),
    issueState: { ...state, runs: run },
    title,
  };
  const spec: JobSpec = {
    deliveryId: event.deliveryId,
    kind: command?.kind === "retry" ? "retry" : "run",
    installationId: event.installationId,
    owner: event.owner,
    repo: event.repo,
    issueNumber,
    sender: event.sender.login,
    ...(guidance ? { guidance } : {}),
    data: { ...data },
  };
  // The handler's only effect on success is the stored job: the worker reacts 👀 and posts the status
  // comment when it starts, so the webhook path makes no write at all.
  const outcome = await deps.queue.enqueue(spec);
  if (outcome.status === "duplicate") return { action: "duplicate", jobId: outcome.jobId };
  if (outcome.status === "active") {
    deps.defer(() =>
      github.createComment(
        event.issue.number,
        `@${event.sender.login} an auto-fix run for this issue is already in progress. ` +
          "Comment `/cancel` to stop it, then `/retry`.",
      ),
    );
    return { action: "active", jobId: outcome.jobId };
  }
  await deps.ledger.record(repoKey, deps.now());
  return { action: "queued", jobId: outcome.jobId };
}

/** One polite reply per person and issue to a sender without write access; never a run. */
async function replyDeniedOnce(github: RepoGitHub, issueNumber: number, login: string): Promise<void> {
  const marker = deniedMarker(login);
  const comments = await github.listComments(issueNumber);
  if (comments.some((c) => c.authorType === "Bot" && c.body.includes(marker))) return;
  await github.createComment(
    issueNumber,
    `${marker}\n@${login} thanks for your interest! auto-fix runs only when someone with write access to ` +
      "this repository asks for it (by adding the label or commenting `/retry`). A maintainer can start it.",
  );
}
