/**
 * What the pull request step of a run writes, decided once the branch is pushed and recorded with the
 * "pushed" checkpoint, so that a worker that dies after the push resumes with the pull request step
 * (publish.ts) instead of a second pipeline run. Read back from the job store, it is checked again.
 */
import { z } from "zod";
import type { FixResult } from "../contract/app-result.ts";
import { inertProse } from "../core/inert-markdown.ts";
import type { ReviewPoint } from "../core/maintainer-input.ts";
import { GITHUB_BODY_LIMIT } from "../github/port.ts";
import { STAGE_TITLES, STAGES, type StageLine, type StageName } from "../github/render/status-comment.ts";
import type { RunData } from "./job-data.ts";
import { answersSection, pointReply } from "./review-answers.ts";
import { retryComment } from "./run-report.ts";
import type { ChangeSinceLast } from "../github/render/pr-checklist.ts";

const STAGE_LINE = z.object({
  status: z.enum(["pending", "running", "done", "skipped", "warning", "failed"]),
  note: z.string().max(20_000).optional(),
  ref: z.number().int().positive().optional(),
  // Rendered as Markdown, not as code: only the app's own titles are taken back.
  // (A plan written before the title was reworded carries the old words: read as the new.)
  title: z
    .preprocess((t) => (t === "The test run was tampered with" ? STAGE_TITLES[1] : t), z.enum(STAGE_TITLES))
    .optional(),
});

/** What the pull request step writes, decided once the branch is pushed (read back: untrusted). */
export const PullPlanSchema = z.object({
  commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full commit id"),
  branch: z.string().regex(/^auto-fix\/issue-\d{1,10}$/, "the app's branch"),
  base: z.string().min(1).max(255),
  title: z.string().min(1).max(256),
  body: z.string().max(GITHUB_BODY_LIMIT),
  /** The app's pull request open when the branch was pushed (0: none, one is opened). */
  existingPull: z.number().int().nonnegative(),
  /** The comment an update leaves on the pull request (empty when a pull request is opened). */
  comment: z.string().max(GITHUB_BODY_LIMIT),
  /** One reply per review comment the run answered, in its thread. */
  replies: z
    .array(
      z.object({
        point: z.number().int().nonnegative(),
        thread: z.number().int().nonnegative(),
        body: z.string().max(GITHUB_BODY_LIMIT),
      }),
    )
    .max(50),
  /** The status comment's stage lines and final details once the pull request is up. */
  stages: z.record(z.string(), STAGE_LINE),
  details: z.array(z.string().max(20_000)).max(5),
  /** The reviewer's advice the issue's marker carries for the next run. */
  advice: z.string().max(20_000).optional(),
});
export type PullPlan = z.infer<typeof PullPlanSchema>;

/** What of a plan was written so far (checkpoint key `publish`). */
export const PublishProgressSchema = z.object({
  commit: z.string(),
  pull: z.number().int().positive(),
  /** The pull request was open before this run (it was updated, not opened). */
  existed: z.boolean(),
  commented: z.boolean(),
  /** Review comment ids whose thread has this run's reply. */
  replied: z.array(z.number().int().nonnegative()).max(50),
});
export type PublishProgress = z.infer<typeof PublishProgressSchema>;

export type PushedRecord =
  | { kind: "none" }
  | { kind: "plan"; plan: PullPlan }
  | { kind: "unreadable"; problem: string };

/** The plan a run recorded with its "pushed" checkpoint, checked again (a store is a trust boundary). */
export function readPushed(checkpoint: Record<string, unknown>, issueNumber: number): PushedRecord {
  if (checkpoint.pullPlan === undefined) return { kind: "none" };
  const parsed = PullPlanSchema.safeParse(checkpoint.pullPlan);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      kind: "unreadable",
      problem: `${first?.path.join(".") || "(record)"}: ${first?.message ?? "invalid"}`.slice(0, 300),
    };
  }
  if (parsed.data.branch !== `auto-fix/issue-${issueNumber}`) {
    return { kind: "unreadable", problem: `branch ${parsed.data.branch} is not this issue's` };
  }
  return { kind: "plan", plan: parsed.data };
}

/** The progress recorded for this plan's commit; none when it was recorded for another push. */
export function readProgress(checkpoint: Record<string, unknown>, plan: PullPlan): PublishProgress | null {
  const parsed = PublishProgressSchema.safeParse(checkpoint.publish);
  return parsed.success && parsed.data.commit === plan.commit ? parsed.data : null;
}

/** What a run started by a review or by failing checks says in its comment on the pull request. */
function startedBy(data: RunData): string | undefined {
  if (data.review)
    return "The run followed your review (its comments are answered below and in their threads).";
  if (data.ci) {
    return `The run followed the failing checks on \`${data.ci.sha.slice(0, 7)}\` (their names, annotations and log tails).`;
  }
  return undefined;
}

/** The plan of a run whose patch was pushed as `pushed.commit`. */
export function pullPlan(input: {
  data: RunData;
  guidance: string | undefined;
  result: FixResult;
  pushed: { commit: string; files: string[] };
  branch: string;
  base: string;
  title: string;
  body: string;
  /** The app's open pull request of the branch (0: none). */
  existingPull: number;
  /** The review comments the run answered. */
  points: ReviewPoint[];
  /** Each comment also gets its answer in its own thread (a person asked for the run). */
  replyInThreads: boolean;
  stages: Partial<Record<StageName, StageLine>>;
  advice: string | undefined;
  /** How the patch and guidance differ from the previous run's (a retry). */
  since?: ChangeSinceLast;
}): PullPlan {
  const { data, result, pushed } = input;
  const answers = result.maintainer?.points ?? [];
  const byId = new Map(answers.map((a) => [a.id, a]));
  const existing = input.existingPull > 0;
  // Said once: the reviewer's verdict is the "reviewed" stage line, the rest is the pull request's.
  const verdict =
    result.status === "fixed"
      ? `The fix rests on ${result.evidence?.rests_on ? inertProse(result.evidence.rests_on, { max: 1500 }) : "evidence that ran"}.`
      : `The patch applies but is not marked fixed${result.evidence?.not_fixed ? `: ${inertProse(result.evidence.not_fixed, { max: 1500 })}` : ""}. Check it carefully.`;
  return {
    commit: pushed.commit,
    branch: input.branch,
    base: input.base,
    title: input.title,
    body: input.body,
    existingPull: input.existingPull,
    comment: existing
      ? (
          retryComment(
            data,
            input.guidance,
            result,
            pushed.files,
            pushed.commit,
            startedBy(data),
            input.since,
          ) + answersSection(input.points, answers, data.run)
        ).slice(0, GITHUB_BODY_LIMIT - 200)
      : "",
    replies:
      existing && input.replyInThreads
        ? input.points.map((p) => ({
            point: p.id,
            thread: p.threadId ?? p.id,
            body: pointReply(byId.get(p.id), data.run, pushed.commit),
          }))
        : [],
    stages: { ...input.stages },
    details: [verdict],
    ...(input.advice ? { advice: input.advice.slice(0, 20_000) } : {}),
  };
}

/** The status comment's stage lines a plan carries (names the comment does not know are left out). */
export function planStages(plan: PullPlan): Partial<Record<StageName, StageLine>> {
  const out: Partial<Record<StageName, StageLine>> = {};
  for (const s of STAGES) {
    const line = plan.stages[s];
    if (line) {
      out[s] = {
        status: line.status,
        ...(line.note !== undefined ? { note: line.note } : {}),
        ...(line.ref !== undefined ? { ref: line.ref } : {}),
        ...(line.title !== undefined ? { title: line.title } : {}),
      };
    }
  }
  return out;
}
