import { z } from "zod";
import { capText } from "../../agents/issue-text.ts";
import { extractJson } from "../../model/json.ts";
import type { ChatMessage, ModelPort } from "../../model/types.ts";
import { quote, renderTreePrompt } from "./prompts.ts";
import type { Reward, RewardRequest } from "./types.ts";

const RewardAnswer = z.object({
  analysis: z.string().default(""),
  score: z.coerce.number().finite().min(0).max(100),
});

/** The messages asking the reward model to score one attempt. Exported for prompt tests. */
export function rewardMessages(issue: string, req: RewardRequest): ChatMessage[] {
  return [
    { role: "system", content: renderTreePrompt("tree-reward-system", {}) },
    {
      role: "user",
      content: renderTreePrompt("tree-reward", {
        issue,
        before: capText(req.parent.evaluation.failure.trim() || "(no output)", 4_000),
        reflection: quote(req.reflection),
        diff: capText(req.diff.trimEnd(), 8_000),
        after: capText(req.failure.trim() || "(no output)", 4_000),
      }),
    },
  ];
}

/**
 * The reward model: scores an attempt 0–100 from the issue, the patch, the reflection and the failures
 * before and after. An answer without a usable score is sent back once with the reason; a second
 * unusable answer leaves the attempt unscored (reward 0), and says so.
 */
export function createModelReward(model: ModelPort, issue: string): (req: RewardRequest) => Promise<Reward> {
  return async (req) => {
    const messages = rewardMessages(issue, req);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const r = await model.chat(messages, {
        stage: "tree-reward",
        json: true,
        temperature: 0,
        label: `try-${attempt}`,
      });
      const parsed = extractJson(r.content, RewardAnswer);
      if (parsed.ok) return { score: Math.round(parsed.value.score), reason: parsed.value.analysis.trim() };
      if (attempt === 2) {
        return {
          score: 0,
          reason: `the reward model gave no usable score: ${parsed.message}`,
          unusable: true,
        };
      }
      messages.push(
        { role: "assistant", content: r.content.trim() || "(empty answer)" },
        { role: "user", content: `${parsed.message} Answer with {"analysis": "...", "score": <0-100>}.` },
      );
    }
    throw new Error("unreachable");
  };
}
