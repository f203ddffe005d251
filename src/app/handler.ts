import type { RepoGitHub } from "../github/port.ts";
import type { HandleOutcome } from "../issue-run/outcome.ts";
import type { JobQueue, JobSpec } from "../jobs/types.ts";
import { checkSender, type StoredTrigger } from "../issue-run/admission.ts";
import type { AppRepoConfig } from "../issue-run/repo-config.ts";
import { parseCommand } from "../issue-run/commands.ts";
import { readPullMarker } from "../github/render/markers.ts";
import type { AppSettings } from "../issue-run/settings.ts";
import { approveCi } from "../issue-run/ci-gate.ts";
import { branchFor } from "../issue-run/run-issue.ts";
import type { CommandFlood } from "./flood.ts";
import type { TriggerEvent } from "./trigger.ts";

/** Everything one delivery needs; built per delivery, nothing kept between deliveries. */
export interface DeliveryDeps {
  /** Used only after the webhook is answered (see `defer`), never on the acknowledgement path. */
  github: RepoGitHub;
  queue: JobQueue;
  settings: AppSettings;
  /** `.github/auto-fix.yml` of the repo, validated with the command line's schema. After the answer only. */
  loadRepoConfig: () => Promise<AppRepoConfig>;
  /**
   * Runs work after the webhook is answered; its result may replace the delivery's outcome. Probot spaces
   * an installation's writes a second apart per process, so nothing GitHub-bound runs before the answer.
   * Resolves once the delivery is held durably (`JobQueue.holdDelivery`), not when the work is done: a
   * process killed before the work ends leaves the delivery to be resumed.
   */
  defer: (work: () => Promise<HandleOutcome | undefined>) => Promise<void>;
  /** Per-person and per-repository command limits, checked before anything is held or called. */
  flood?: CommandFlood;
}

export type { HandleOutcome };

/**
 * Handles `issues.labeled` and `issue_comment.created`: what the payload alone decides is answered at
 * once, with no network; a possible trigger is held, and its sender's access checked right after the
 * answer, before a job is stored. Budgets and the issue's markers are the job's first step in the worker
 * (`admitJob`). Never runs the fix.
 */
export async function handleTrigger(event: TriggerEvent, deps: DeliveryDeps): Promise<HandleOutcome> {
  if (event.sender.type === "Bot" || event.sender.login.endsWith("[bot]")) {
    return { action: "ignored", reason: "sender is a bot" };
  }
  let command: ReturnType<typeof parseCommand> = null;
  let issueNumber = event.issue.number;
  let fromPull = false;
  if (event.kind === "comment") {
    command = parseCommand(event.comment?.body ?? "");
    if (!command) return { action: "ignored", reason: "not a command" };
    if (event.issue.isPullRequest) {
      const target = readPullMarker(event.issue.body);
      if (target === null || event.issue.authorType !== "Bot") {
        return { action: "ignored", reason: "pull request is not the app's" };
      }
      if (!event.issue.open) return { action: "ignored", reason: "pull request is closed" };
      issueNumber = target;
      fromPull = true;
    }
  } else if (event.issue.isPullRequest) {
    return { action: "ignored", reason: "labelled a pull request" };
  }
  if (event.issue.locked) return { action: "ignored", reason: "issue is locked" };
  if (!event.issue.open) return { action: "ignored", reason: "issue is closed" };
  const sender = event.sender.login;
  const replyTo = event.issue.number;
  // A comment flood stops here, before the delivery is held and before any GitHub call.
  if (command) {
    const limited = deps.flood?.take(event.owner, event.repo, sender);
    if (limited) return { action: "limited", reason: limited };
  }

  if (command?.kind === "ci") {
    // Approving CI on the app's branch: a writer only, checked right after the answer.
    await deps.defer(async () => {
      const checked = await checkSender({ kind: "comment", sender, replyTo }, deps);
      if (!checked.ok) return checked.outcome;
      const branch = branchFor(issueNumber);
      return approveCi({ branch, cloneUrl: event.cloneUrl, sender, replyTo, gate: checked.config.ci }, deps);
    });
    return { action: "checking" };
  }

  if (command?.kind === "cancel") {
    // A cancel is not a job (the issue's run holds the one active slot). It is checked and applied right
    // after the answer: only someone with write access may stop a run.
    await deps.defer(async () => {
      const checked = await checkSender({ kind: "comment", sender, replyTo, cancel: true }, deps);
      if (!checked.ok) return checked.outcome;
      if (await deps.queue.cancel(event.owner, event.repo, issueNumber)) {
        const commentId = event.comment?.id;
        if (commentId) await deps.github.reactToComment(commentId, "+1");
        return { action: "cancelled" };
      }
      await deps.github.createComment(replyTo, `@${sender} there is no auto-fix run to cancel.`);
      return { action: "nothing-to-cancel" };
    });
    return { action: "cancel-requested" };
  }

  const trigger: StoredTrigger = {
    kind: event.kind,
    ...(event.label !== undefined ? { label: event.label } : {}),
    replyTo,
    fromPull,
    ...(event.comment ? { commentId: event.comment.id } : {}),
    cloneUrl: event.cloneUrl,
    defaultBranch: event.defaultBranch,
    title: event.issue.title,
    body: event.issue.body,
    // `/auto-fix [guidance]` on the issue starts a run without the label; on the app's pull request it is
    // a retry.
    ...(command?.kind === "auto-fix" && !fromPull ? { command: "auto-fix" as const } : {}),
  };
  const guidance = command ? command.guidance : "";
  const retry = command?.kind === "retry" || (command?.kind === "auto-fix" && fromPull);
  const spec: JobSpec = {
    deliveryId: event.deliveryId,
    kind: retry ? "retry" : "run",
    installationId: event.installationId,
    owner: event.owner,
    repo: event.repo,
    issueNumber,
    sender,
    ...(guidance ? { guidance } : {}),
    data: { trigger },
  };
  // Nothing is stored before the sender's access is known: a trigger from someone without write access
  // must never hold the issue's one active slot, or the maintainer's trigger that follows it would be
  // told a run is in progress and lost. The check reads GitHub, so it runs right after the answer; the
  // delivery is held durably until then (a process that dies in between leaves it to be resumed).
  await deps.defer(async () => {
    const input = { kind: event.kind, label: event.label, sender, replyTo };
    const checked = await checkSender(input, deps);
    if (!checked.ok) return checked.outcome;
    return store(spec, deps, replyTo);
  });
  return { action: "checking" };
}

/** Stores the job of a sender whose access was checked; the worker reacts 👀 when it starts. */
export async function store(spec: JobSpec, deps: DeliveryDeps, replyTo: number): Promise<HandleOutcome> {
  const outcome = await deps.queue.enqueue(spec);
  if (outcome.status === "duplicate") return { action: "duplicate", jobId: outcome.jobId };
  if (outcome.status === "active") {
    // Only a run someone with write access asked for can be active: this trigger waits for it.
    await deps.github.createComment(
      replyTo,
      `@${spec.sender} an auto-fix run for this issue is already in progress. ` +
        "Comment `/cancel` to stop it, then `/retry`.",
    );
    return { action: "active", jobId: outcome.jobId };
  }
  return { action: "queued", jobId: outcome.jobId };
}
