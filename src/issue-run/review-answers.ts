import type { ReviewPoint } from "../core/maintainer-input.ts";
import { inertText, inlineCode } from "../core/inert-markdown.ts";
import type { PullGitHub } from "../github/pull-port.ts";
import type { PointReport } from "../contract/result.ts";

/** How the run's patch answers one review comment (from the result's `maintainer.points`). */
export type PointAnswer = PointReport;

const HEAD: Record<PointAnswer["status"] | "unknown", string> = {
  addressed: "✅ Addressed",
  partly: "🟡 Partly addressed",
  "not-addressed": "❌ Not addressed",
  unknown: "❔ Not judged",
};

const REPLY_MARKER = "<!-- auto-fix:reply -->";

/** One line per review comment, for the comment the new push leaves on the pull request. */
export function answersSection(points: ReviewPoint[], answers: PointAnswer[], run: number): string {
  if (points.length === 0) return "";
  const byId = new Map(answers.map((a) => [a.id, a]));
  const lines = ["", `**Review comments** (how run ${run} answers each one):`, ""];
  for (const p of points) {
    const a = byId.get(p.id);
    const where = `${inlineCode(p.path, 200)}${p.endLine !== null ? ` line ${p.endLine}` : " (outdated)"}`;
    const what = a?.reply.trim()
      ? inertText(a.reply.replace(/\s+/g, " "), { max: 600, inlineMax: 700 })
      : "the run could not tell.";
    lines.push(`- ${HEAD[a?.status ?? "unknown"]} — ${where}: ${what}`);
  }
  return lines.join("\n");
}

/** The reply posted in a review comment's thread. */
export function pointReply(answer: PointAnswer | undefined, run: number, commit: string | null): string {
  const where = commit ? ` in \`${commit.slice(0, 7)}\` (run ${run})` : ` (run ${run})`;
  if (!commit) {
    return `${REPLY_MARKER}\n❌ Not addressed (run ${run}): no patch passed the checks, so the branch is unchanged. The run's status is on the issue.`;
  }
  if (!answer) {
    return `${REPLY_MARKER}\n${HEAD.unknown}${where}: this run could not tell how its patch answers this comment; the new patch is in the pull request's latest comment.`;
  }
  const text = answer.reply.trim() ? inertText(answer.reply, { max: 1500 }) : "no explanation was given.";
  return `${REPLY_MARKER}\n${HEAD[answer.status]}${where}: ${text}`;
}

/**
 * Replies in each review comment's thread with how the run answered it. A reply GitHub refuses (the
 * comment was deleted, the thread is locked) is skipped: the pull request's comment lists every point.
 */
export async function replyToPoints(
  pulls: PullGitHub,
  pull: number,
  points: ReviewPoint[],
  answers: PointAnswer[],
  run: number,
  commit: string | null,
  warn: (m: string) => void,
): Promise<number> {
  const byId = new Map(answers.map((a) => [a.id, a]));
  let replied = 0;
  for (const p of points) {
    try {
      await pulls.replyToReviewComment(pull, p.threadId ?? p.id, pointReply(byId.get(p.id), run, commit));
      replied++;
    } catch (error) {
      warn(
        `could not reply to review comment ${p.id}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return replied;
}
