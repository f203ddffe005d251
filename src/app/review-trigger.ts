import { z } from "zod";
import { checkSender, type StoredTrigger } from "../issue-run/admission.ts";
import { approveCi } from "../issue-run/ci-gate.ts";
import { asksForRetry } from "../issue-run/commands.ts";
import { branchFor } from "../issue-run/run-issue.ts";
import type { JobSpec } from "../jobs/types.ts";
import { readPullMarker } from "../github/render/markers.ts";
import { type DeliveryDeps, type HandleOutcome, store } from "./handler.ts";

/**
 * Reviews on the app's pull request as triggers: `pull_request_review.submitted` (changes requested, or a
 * body with a `/retry` line) and `pull_request_review_comment.created` (a line comment with a `/retry`
 * line). Both start at most one run per review: the job is keyed by the review's id, so the review and
 * its comments, or a redelivery, find the run already stored.
 */

const User = z.object({ login: z.string(), type: z.string().default("User") });

const Pull = z.object({
  number: z.number().int().positive(),
  state: z.string(),
  locked: z.boolean().default(false),
  body: z.string().nullable().default(""),
  user: User.nullable().default(null),
  head: z.object({ ref: z.string(), sha: z.string() }),
});

const Common = {
  pull_request: Pull,
  repository: z.object({
    name: z.string(),
    owner: z.object({ login: z.string() }),
    clone_url: z.string().url(),
    default_branch: z.string().min(1),
  }),
  sender: User,
  installation: z.object({ id: z.number().int() }),
};

const ReviewPayload = z.object({
  action: z.literal("submitted"),
  review: z.object({
    id: z.number().int().positive(),
    state: z.string(),
    body: z.string().nullable().default(""),
    user: User.nullable().default(null),
  }),
  ...Common,
});

const ReviewCommentPayload = z.object({
  action: z.literal("created"),
  comment: z.object({
    id: z.number().int().positive(),
    pull_request_review_id: z.number().int().positive().nullable().default(null),
    body: z.string().nullable().default(""),
    user: User.nullable().default(null),
  }),
  ...Common,
});

export interface ReviewTriggerEvent {
  deliveryId: string;
  kind: "review" | "review-comment";
  installationId: number;
  owner: string;
  repo: string;
  cloneUrl: string;
  defaultBranch: string;
  sender: { login: string; type: string };
  pull: { number: number; open: boolean; locked: boolean; body: string; authorType: string };
  /** The review (for a line comment: the review it belongs to). */
  reviewId: number;
  /** The review's state (`changes_requested`, ...); a line comment's is `commented`. */
  state: string;
  /** The review's body, or the line comment's. */
  body: string;
}

/** Parses either payload; null when it lacks what a run needs. */
export function parseReviewTrigger(
  deliveryId: string,
  kind: ReviewTriggerEvent["kind"],
  payload: unknown,
): ReviewTriggerEvent | null {
  const p = kind === "review" ? ReviewPayload.safeParse(payload) : ReviewCommentPayload.safeParse(payload);
  if (!p.success) return null;
  const d = p.data;
  let reviewId: number;
  let state: string;
  let body: string;
  if ("review" in d) {
    reviewId = d.review.id;
    state = d.review.state.toLowerCase();
    body = d.review.body ?? "";
  } else {
    if (d.comment.pull_request_review_id === null) return null;
    reviewId = d.comment.pull_request_review_id;
    state = "commented";
    body = d.comment.body ?? "";
  }
  return {
    deliveryId,
    kind,
    installationId: d.installation.id,
    owner: d.repository.owner.login,
    repo: d.repository.name,
    cloneUrl: d.repository.clone_url,
    defaultBranch: d.repository.default_branch,
    sender: d.sender,
    pull: {
      number: d.pull_request.number,
      open: d.pull_request.state === "open",
      locked: d.pull_request.locked,
      body: d.pull_request.body ?? "",
      authorType: d.pull_request.user?.type ?? "",
    },
    reviewId,
    state,
    body,
  };
}

/** The job key of a review: one run per review, whichever of its deliveries comes first. */
export function reviewJobKey(owner: string, repo: string, reviewId: number): string {
  return `review:${owner}/${repo}:${reviewId}`.toLowerCase();
}

/**
 * Handles a review or a line comment on a pull request. What the payload decides is answered at once
 * (bots, the app's own replies, other pull requests, reviews that ask for nothing); a review that asks
 * for a run is held, its sender's write access checked after the answer, and then one job is stored.
 */
export async function handleReviewTrigger(
  event: ReviewTriggerEvent,
  deps: DeliveryDeps,
): Promise<HandleOutcome> {
  if (event.sender.type === "Bot" || event.sender.login.endsWith("[bot]")) {
    return { action: "ignored", reason: "sender is a bot" };
  }
  const issueNumber = readPullMarker(event.pull.body);
  if (issueNumber === null || event.pull.authorType !== "Bot") {
    return { action: "ignored", reason: "pull request is not the app's" };
  }
  if (!event.pull.open) return { action: "ignored", reason: "pull request is closed" };
  if (event.pull.locked) return { action: "ignored", reason: "pull request is locked" };
  const asks =
    event.kind === "review"
      ? event.state === "changes_requested" || asksForRetry(event.body)
      : asksForRetry(event.body);
  // An approving review (without /retry) approves CI on the branch: the repository's workflows run on it.
  const approves = event.kind === "review" && event.state === "approved" && !asks;
  if (!asks && !approves) {
    return {
      action: "ignored",
      reason:
        event.kind === "review"
          ? "review neither requests changes nor says /retry"
          : "line comment does not say /retry (its review decides)",
    };
  }
  const sender = event.sender.login;
  const replyTo = event.pull.number;
  // A flood of reviews stops here, before the delivery is held and before any GitHub call.
  const limited = deps.flood?.take(event.owner, event.repo, sender);
  if (limited) return { action: "limited", reason: limited };
  if (approves) {
    await deps.defer(async () => {
      const checked = await checkSender({ kind: "comment", sender, replyTo }, deps);
      if (!checked.ok) return checked.outcome;
      const branch = branchFor(issueNumber);
      return approveCi({ branch, cloneUrl: event.cloneUrl, sender, replyTo, gate: checked.config.ci }, deps);
    });
    return { action: "checking" };
  }
  const trigger: StoredTrigger = {
    kind: "review",
    replyTo,
    fromPull: true,
    cloneUrl: event.cloneUrl,
    defaultBranch: event.defaultBranch,
    title: "",
    body: "",
    review: { pull: event.pull.number, id: event.reviewId },
  };
  const spec: JobSpec = {
    deliveryId: reviewJobKey(event.owner, event.repo, event.reviewId),
    kind: "retry",
    installationId: event.installationId,
    owner: event.owner,
    repo: event.repo,
    issueNumber,
    sender,
    data: { trigger },
  };
  await deps.defer(async () => {
    const checked = await checkSender({ kind: "comment", sender, replyTo }, deps);
    if (!checked.ok) return checked.outcome;
    return store(spec, deps, replyTo);
  });
  return { action: "checking" };
}
