/**
 * The last step of a run: the pushed commit becomes a draft pull request, or updates the app's open one
 * (its body, a comment saying what changed, and a reply in each review thread the run answered).
 *
 * Everything this step writes is decided before it starts and recorded with the "pushed" checkpoint (the
 * `PullPlan`), and each write is recorded as it is made (`PublishProgress`). A worker that dies after the
 * push therefore resumes here, from the record, without cloning or asking the model again, and never
 * writes the same comment or reply twice: what the record does not show as sent is looked for on GitHub
 * (by its marker) before it is sent.
 */
import type { RepoGitHub } from "../github/port.ts";
import type { PullGitHub } from "../github/pull-port.ts";
import type { PublishProgress, PullPlan } from "./pull-plan.ts";

const commentMarker = (commit: string) => `<!-- auto-fix:run-comment ${commit} -->`;
const replyMarker = (commit: string, point: number) => `<!-- auto-fix:reply-sent ${commit} ${point} -->`;

/** The comment as posted: its marker first, so that a resumed step can tell it was sent. */
export function markedComment(commit: string, text: string): string {
  return `${commentMarker(commit)}\n${text}`;
}

/** A thread reply as posted, with its marker (commit and review comment). */
export function markedReply(commit: string, point: number, text: string): string {
  return `${replyMarker(commit, point)}\n${text}`;
}

export interface PublishIo {
  github: RepoGitHub;
  pulls?: PullGitHub | undefined;
  checkpoint: (stage: string, data: Record<string, unknown>) => Promise<void>;
  warn: (message: string) => void;
}

/**
 * Opens or updates the pull request the plan describes, then posts the comment and replies not yet
 * sent. `resumed`: the plan was read back from the store, so writes not recorded may still have reached
 * GitHub before the worker died; they are looked for before anything is sent again. `openPull`: the
 * open pull request of the branch when the caller has just asked for it.
 */
export async function publishPull(
  plan: PullPlan,
  recorded: PublishProgress | null,
  io: PublishIo,
  options: { resumed: boolean; openPull?: { number: number } | null },
): Promise<PublishProgress> {
  const { github } = io;
  let progress = recorded;
  if (!progress) {
    const open = options.openPull !== undefined ? options.openPull : await github.findOpenPull(plan.branch);
    let pull: number;
    if (open) {
      pull = open.number;
      await github.updatePull(pull, { title: plan.title, body: plan.body });
    } else {
      pull = (
        await github.createPull({
          title: plan.title,
          body: plan.body,
          head: plan.branch,
          base: plan.base,
          draft: true,
        })
      ).number;
    }
    // A pull request found open on resume may be the one the dead worker opened: it was not "existing".
    const existed = plan.existingPull > 0 && open !== null && open.number === plan.existingPull;
    progress = { commit: plan.commit, pull, existed, commented: false, replied: [] };
    await io.checkpoint("pull-written", { publish: progress });
  }
  const pull = progress.pull;
  if (progress.existed && !progress.commented && plan.comment) {
    const sent =
      options.resumed &&
      (await github.listComments(pull)).some(
        (c) => c.authorType === "Bot" && c.body.includes(commentMarker(plan.commit)),
      );
    if (!sent) await github.createComment(pull, markedComment(plan.commit, plan.comment));
    progress = { ...progress, commented: true };
    await io.checkpoint("pull-commented", { publish: progress });
  }
  const pending = progress.existed ? plan.replies.filter((r) => !progress!.replied.includes(r.point)) : [];
  if (pending.length > 0 && io.pulls) {
    const already = options.resumed ? await sentReplies(io.pulls, pull, plan.commit, io.warn) : new Set();
    for (const reply of pending) {
      if (!already.has(reply.point)) {
        try {
          await io.pulls.replyToReviewComment(
            pull,
            reply.thread,
            markedReply(plan.commit, reply.point, reply.body),
          );
        } catch (error) {
          // The comment was deleted or its thread locked: the pull request's comment lists every point.
          io.warn(
            `could not reply to review comment ${reply.point}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      progress = { ...progress, replied: [...progress.replied, reply.point] };
      await io.checkpoint("pull-replied", { publish: progress });
    }
  }
  return progress;
}

/** The review comments of `pull` that already have this commit's reply (found by its marker). */
async function sentReplies(
  pulls: PullGitHub,
  pull: number,
  commit: string,
  warn: (m: string) => void,
): Promise<Set<number>> {
  const found = new Set<number>();
  const pattern = new RegExp(`<!-- auto-fix:reply-sent ${commit} (\\d+) -->`);
  for (const c of await pulls.listReviewComments(pull)) {
    if (c.authorType !== "Bot") continue;
    const m = pattern.exec(c.body);
    if (m) found.add(Number(m[1]));
  }
  if (found.size > 0) warn(`replies already in their threads, not sent again: ${[...found].join(", ")}`);
  return found;
}
