import { capText } from "../../agents/issue-text.ts";
import { BudgetExceeded, ModelRequestRejected } from "../../model/errors.ts";
import type { ChatMessage, ModelPort } from "../../model/types.ts";
import { extractReflection } from "./answer.ts";
import { renderCurrentCode } from "./current-code.ts";
import type { ProgramStore } from "./programs.ts";
import { quote, renderTreePrompt } from "./prompts.ts";
import { diffStat } from "./serialize.ts";
import type { Candidate, Expander, ExpansionRequest, TreeNode } from "./types.ts";

/** Most characters of failure output in one prompt (head and tail kept). */
const MAX_FAILURE_CHARS = 6_000;
const MAX_DIFF_CHARS = 8_000;

export interface ExpanderContext {
  /** The issue, sanitised and fenced as data. */
  issue: string;
  /** The bug locations with their code and intended behaviour (or the search results), as the model sees them. */
  locations: string;
  /** The patch format, as told to the model. */
  formatHelp: string;
  programs: ProgramStore;
  /** `/retry <guidance>` or a reviewer's advice, already fenced as data. */
  guidance?: string;
}

export interface ExpanderOptions {
  /** Sampling temperature for candidates (diversity between siblings). */
  temperature?: number;
  /** False when the endpoint is known not to honour `n`: separate calls from the start. */
  useN?: boolean;
}

function summariseChild(child: TreeNode): string {
  const e = child.evaluation;
  const s = diffStat(child.diff);
  const what =
    e.status === "failing"
      ? `still failing${e.score !== undefined ? ` (rated ${e.score}/100)` : ""}: ${firstLines(e.failure, 3)}`
      : `${e.status}: ${firstLines(e.message ?? e.failure, 2)}`;
  const idea = child.reflection ? firstLines(child.reflection, 2) : "(no reasoning given)";
  const touched =
    child.changedFiles.length > 0 ? ` [${child.changedFiles.join(", ")} +${s.added} −${s.removed}]` : "";
  return `- ${idea}${touched}\n  Result: ${what}`;
}

function firstLines(text: string, n: number): string {
  const lines = text.trim().split("\n").slice(0, n).join(" / ");
  return lines.length > 300 ? `${lines.slice(0, 299)}…` : lines || "(no output)";
}

/** The messages asking for children of `node`. Exported for prompt tests. */
export function expansionMessages(ctx: ExpanderContext, req: ExpansionRequest): ChatMessage[] {
  const { node } = req;
  const isRoot = node.parentId === null;
  const rating =
    node.evaluation.score !== undefined
      ? ` A reviewer rated it ${node.evaluation.score}/100${node.evaluation.scoreReason ? `: ${firstLines(node.evaluation.scoreReason, 3)}` : "."}`
      : "";
  const attempt = isRoot
    ? ""
    : renderTreePrompt("tree-attempt", {
        depth: node.depth,
        reflection: quote(node.reflection),
        diff: capText(node.diff.trimEnd(), MAX_DIFF_CHARS),
        rating: rating && !rating.endsWith(".") ? `${rating}.` : rating,
      });
  const current = isRoot ? "" : renderCurrentCode(ctx.programs.programFor(node.diff), node.diff);
  const tried = req.children.map(summariseChild).join("\n");
  return [
    { role: "system", content: renderTreePrompt("tree-system", { format: ctx.formatHelp }) },
    {
      role: "user",
      content: renderTreePrompt("tree-expand", {
        issue: ctx.issue,
        context: ctx.locations,
        current,
        failure: capText(node.evaluation.failure.trim() || "(no output)", MAX_FAILURE_CHARS),
        attempt,
        tried: capText(tried, 4_000),
        guidance: ctx.guidance ?? "",
      }),
    },
  ];
}

/**
 * The expander on a real model: one request with `n = count` where the endpoint honours `n`, separate
 * requests for whatever is missing otherwise (an endpoint that refuses or ignores `n` is remembered).
 * When the budget runs out part-way, the candidates already received are returned.
 */
export function createModelExpander(
  model: ModelPort,
  ctx: ExpanderContext,
  opts: ExpanderOptions = {},
): Expander {
  let useN = opts.useN ?? true;
  const temperature = opts.temperature ?? 0.8;
  return {
    async expand(req) {
      const messages = expansionMessages(ctx, req);
      const label = `node-${req.node.id}`;
      const texts: string[] = [];
      if (useN && req.count > 1) {
        try {
          const r = await model.chat(messages, { stage: "tree-expand", n: req.count, temperature, label });
          texts.push(...r.texts);
          if (r.texts.length < req.count) useN = false;
        } catch (err) {
          if (!(err instanceof ModelRequestRejected)) throw err;
          useN = false;
        }
      }
      while (texts.length < req.count) {
        try {
          const r = await model.chat(messages, { stage: "tree-expand", temperature, label });
          texts.push(r.content);
        } catch (err) {
          if (err instanceof BudgetExceeded && texts.length > 0) break;
          throw err;
        }
      }
      return texts
        .filter((t) => t.trim() !== "")
        .map((answer): Candidate => ({ answer, reflection: extractReflection(answer) }));
    },
  };
}
