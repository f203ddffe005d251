import { z } from "zod";
import { extractJson } from "../model/json.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { type ExecResult, formatExecForModel } from "../sandbox/index.ts";
import { renderReviewPrompt } from "../prompts/review.ts";

const yesNo = z.preprocess(
  (v) => {
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "string") {
      const t = v.trim().toLowerCase();
      if (["yes", "y", "true", "correct"].includes(t)) return "yes";
      if (["no", "n", "false", "incorrect", "wrong"].includes(t)) return "no";
    }
    return v;
  },
  z.enum(["yes", "no"], { error: 'must be "yes" or "no"' }),
);
const text = z.preprocess((v) => (v === null || v === undefined ? "" : v), z.string());

/** The reviewer's answer; the keys are fixed (they appear in reports and `fix --json`). */
export const reviewVerdictSchema = z.object({
  "patch-correct": yesNo,
  "test-correct": yesNo,
  "patch-analysis": text,
  "patch-advice": text,
  "test-analysis": text,
  "test-advice": text,
});
export type ReviewVerdict = z.infer<typeof reviewVerdictSchema>;

export interface ReviewInput {
  /** The issue, already sanitised and fenced as data. */
  issue: string;
  /** The maintainer's input (conventions, review, CI evidence), already fenced as data; may be empty. */
  maintainer?: string;
  file: string;
  script: string;
  before: ExecResult;
  patch: string;
  after: ExecResult;
  /** What the patch scan found in the code the patch adds, one per line (empty or absent: nothing). */
  scan?: string;
  /** Tests that failed with this patch before, which the writer claims pin the old behaviour (lines). */
  pinned?: string;
  /** What the repository's tests did with this patch: which ran, which did not and why (lines). */
  tests?: string;
}

/** The reviewer gave no usable verdict within its retries. */
export class ReviewUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReviewUnavailable";
  }
}

export function reviewMessages(input: ReviewInput): ChatMessage[] {
  return [
    { role: "system", content: renderReviewPrompt("review-system", {}) },
    {
      role: "user",
      content: renderReviewPrompt("review-user", {
        issue: input.issue,
        maintainer: input.maintainer ?? "",
        file: input.file,
        script: input.script.trimEnd(),
        before: formatExecForModel(input.before),
        patch: input.patch.trimEnd(),
        after: formatExecForModel(input.after),
        scan: input.scan ?? "",
        pinned: input.pinned ?? "",
        tests: input.tests ?? "",
      }),
    },
  ];
}

/**
 * Stage 7's judge: the reviewer sees the issue, the script, its output before the patch, the patch and its
 * output after, and answers the fixed JSON. A malformed answer goes back with the precise problem.
 */
export async function reviewCandidate(
  model: ModelPort,
  input: ReviewInput,
  opts: { retries?: number; label?: string; signal?: AbortSignal } = {},
): Promise<ReviewVerdict> {
  const messages = reviewMessages(input);
  const tries = 1 + (opts.retries ?? 2);
  let problem = "";
  for (let attempt = 1; attempt <= tries; attempt++) {
    const answer = await model.chat(messages, {
      stage: "review",
      json: true,
      label: `${opts.label ?? "review"}-${attempt}`,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const parsed = extractJson(answer.content, reviewVerdictSchema);
    if (parsed.ok) return parsed.value;
    problem = parsed.message;
    messages.push(
      { role: "assistant", content: answer.content },
      { role: "user", content: renderReviewPrompt("review-retry", { problem }) },
    );
  }
  throw new ReviewUnavailable(`the reviewer gave no usable verdict in ${tries} tries: ${problem}`);
}
