import { z } from "zod";
import { extractJson } from "../model/json.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { renderReviewPrompt } from "../prompts/review.ts";

/** How the new patch answers one review comment, as the model judged it. */
export const PointAnswerSchema = z.object({
  id: z.coerce.number().int().nonnegative(),
  status: z
    .string()
    .transform((s) =>
      s
        .trim()
        .toLowerCase()
        .replace(/[\s_]+/g, "-"),
    )
    .pipe(z.enum(["addressed", "partly", "not-addressed"]))
    .catch("not-addressed"),
  reply: z
    .string()
    .transform((s) => s.trim().slice(0, 1500))
    .catch(""),
});
export type PointAnswer = z.infer<typeof PointAnswerSchema>;

const AnswerSchema = z.object({ points: z.array(z.unknown()).max(200) });

export interface PointsInput {
  /** The maintainer's input, fenced as data (the review with its comments and code). */
  maintainer: string;
  /** The review comment ids that need an answer. */
  ids: number[];
  /** The new patch (unified diff). */
  patch: string;
}

/**
 * After a run driven by a review: asks the model, once per run, how the chosen patch answers each review
 * comment. Entries for ids that were not asked about are dropped, malformed entries are skipped, and a
 * comment left unanswered gets no entry (its reply then says the run could not tell). One retry with the
 * precise problem when the answer holds no usable JSON.
 */
export async function answerPoints(
  model: ModelPort,
  input: PointsInput,
  opts: { signal?: AbortSignal; record?: (name: string, text: string) => void } = {},
): Promise<PointAnswer[]> {
  if (input.ids.length === 0) return [];
  const wanted = new Set(input.ids);
  const messages: ChatMessage[] = [
    { role: "system", content: renderReviewPrompt("review-points-system", {}) },
    {
      role: "user",
      content: renderReviewPrompt("review-points", {
        maintainer: input.maintainer,
        patch: input.patch.trimEnd(),
        ids: input.ids.join(", "),
      }),
    },
  ];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await model.chat(messages, {
      stage: "review-points",
      json: true,
      label: `points-${attempt}`,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    opts.record?.(`review-points/answer-${attempt}.txt`, answer.content);
    const parsed = extractJson(answer.content, AnswerSchema);
    if (parsed.ok) {
      const out = new Map<number, PointAnswer>();
      for (const raw of parsed.value.points) {
        const p = PointAnswerSchema.safeParse(raw);
        if (p.success && wanted.has(p.data.id) && !out.has(p.data.id)) out.set(p.data.id, p.data);
      }
      return input.ids.flatMap((id) => (out.has(id) ? [out.get(id)!] : []));
    }
    messages.push(
      { role: "assistant", content: answer.content },
      {
        role: "user",
        content: renderReviewPrompt("review-points-retry", { ids: input.ids.join(", ") }),
      },
    );
  }
  return [];
}
