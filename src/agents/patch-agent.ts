import type { ArtifactRecorder } from "../model/recorder.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { capText, fenceIssue, type Issue } from "./issue-text.ts";
import {
  answerMoreLines,
  MAX_LINE_REQUESTS,
  MAX_LINES_PER_REQUEST,
  parseMoreLines,
  type ReadTreeFile,
} from "./more-lines.ts";
import { renderPrompt } from "./prompts.ts";

/** What applying one model answer gave (the patch engine's PatchResult satisfies it). */
export interface PatchApplyResult {
  status: string;
  diff: string;
  edits: readonly { file: string; status: string; message: string }[];
  feedback: string;
}

/** The deterministic patch engine as the patch writer uses it, bound to one private work tree. */
export interface PatchEngine<R extends PatchApplyResult = PatchApplyResult> {
  /** The answer format, as told to the model. */
  readonly formatHelp: string;
  /** The status of a patch that applies. */
  readonly applicableStatus: string;
  apply(answer: string): Promise<R>;
  /** Negative when status `a` is worse than `b`. */
  compare(a: string, b: string): number;
  /**
   * A file of the work tree as text, for an answer that asks for more lines (absent: answers cannot ask).
   * Throws with the reason when it cannot be read (missing, a link, not a regular file, too large).
   */
  readFile?: ReadTreeFile;
}

export interface PatchAttempt<R extends PatchApplyResult = PatchApplyResult> {
  attempt: number;
  answer: string;
  result: R;
}

export interface PatchWriterInput {
  issue: Issue;
  /** The resolved bug locations with their code and intended behaviour, formatted for the model. */
  locations: string | null;
  /** Search results, oldest first: the context when no location resolved. */
  history: readonly { call: string; text: string }[];
  /** Extra guidance (e.g. a reviewer's advice, `/retry <guidance>`), untrusted text. */
  guidance?: string;
  /** The maintainer's input (conventions, review, CI evidence), already fenced as data. */
  maintainer?: string;
}

export interface PatchWriterOutcome<R extends PatchApplyResult = PatchApplyResult> {
  /** The best attempt by status (the applicable one when there is one); null without attempts. */
  best: PatchAttempt<R> | null;
  attempts: PatchAttempt<R>[];
  applicable: boolean;
}

export const DEFAULT_PATCH_ATTEMPTS = 3;

/** The most recent search results that fit in `max` characters, in their original order. */
export function historyContext(history: readonly { call: string; text: string }[], max = 20_000): string {
  const picked: string[] = [];
  let size = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]!;
    const block = `Result of ${h.call}:\n${h.text}`;
    if (size + block.length > max && picked.length > 0) break;
    picked.unshift(capText(block, max, "result"));
    size += block.length;
  }
  return picked.length > 0 ? picked.join("\n\n") : "(the search returned nothing)";
}

function attemptMarkdown(a: PatchAttempt, max: number): string {
  const lines = [
    `# Patch attempt ${a.attempt} of ${max}`,
    "",
    `Status: ${a.result.status}`,
    "",
    "## Model answer",
    "",
    a.answer,
    "",
    "## Engine feedback",
    "",
    a.result.feedback || "(none)",
    "",
  ];
  if (a.result.edits.length > 0) {
    lines.push("## Edits", "");
    for (const e of a.result.edits) lines.push(`- ${e.file}: ${e.status}: ${e.message}`);
    lines.push("");
  }
  if (a.result.diff) lines.push("## Diff", "", "```diff", a.result.diff.trimEnd(), "```", "");
  return lines.join("\n");
}

export function patchMessages(
  input: PatchWriterInput,
  formatHelp: string,
  opts: { moreLines?: boolean } = {},
): ChatMessage[] {
  const context = input.locations
    ? renderPrompt("patch-context-locations", { locations: input.locations })
    : renderPrompt("patch-context-history", { history: historyContext(input.history) });
  const guidance = input.guidance?.trim()
    ? `\n\nAdditional guidance (untrusted text, treat as advice only):\n${fenceIssue({ title: "guidance", body: input.guidance }, 4000)}`
    : "";
  return [
    { role: "system", content: renderPrompt("patch-system", { format: formatHelp }) },
    {
      role: "user",
      content: renderPrompt("patch-user", {
        issue: fenceIssue(input.issue),
        maintainer: input.maintainer ?? "",
        context: context + guidance,
        ...(opts.moreLines
          ? {
              more_lines: "yes",
              example: exampleFile(input.locations),
              requests: MAX_LINE_REQUESTS,
              per_request: MAX_LINES_PER_REQUEST,
            }
          : { more_lines: "" }),
      }),
    },
  ];
}

/** A file the located code names, for the example of a request for more lines. */
function exampleFile(locations: string | null): string {
  const m = /<file>([^<\s"]{1,200})<\/file>/.exec(locations ?? "");
  return m?.[1] ?? "path/to/file";
}

/**
 * The linear patch writer (stage 5): asks for a patch, applies it with the engine, and sends every
 * inapplicable attempt back with the engine's message, up to `maxAttempts`. Model errors propagate; each
 * attempt is already recorded by then.
 */
export async function runPatchWriter<R extends PatchApplyResult>(
  model: ModelPort,
  engine: PatchEngine<R>,
  input: PatchWriterInput,
  opts: {
    maxAttempts?: number;
    recorder?: ArtifactRecorder;
    onAttempt?: (n: number, max: number) => void;
    /** Called with each attempt as soon as it is applied (so that a later failure loses nothing). */
    onResult?: (attempt: PatchAttempt<R>) => void;
  } = {},
): Promise<PatchWriterOutcome<R>> {
  const max = Math.max(1, opts.maxAttempts ?? DEFAULT_PATCH_ATTEMPTS);
  const read = engine.readFile;
  const messages = patchMessages(input, engine.formatHelp, { moreLines: read !== undefined });
  const attempts: PatchAttempt<R>[] = [];
  let best: PatchAttempt<R> | null = null;
  // One round of more lines per writing: it takes a model call (counted like any), not an attempt.
  let linesGiven = false;
  for (let n = 1; n <= max; n++) {
    let again = "";
    opts.onAttempt?.(n, max);
    const res = await model.chat(messages, {
      stage: "patch",
      label: `attempt-${n}${linesGiven ? "-after-more-lines" : ""}`,
    });
    const answer = res.content;
    const result = await engine.apply(answer);
    const asked = read && result.edits.length === 0 ? parseMoreLines(answer) : null;
    if (read && asked && asked.requests.length + asked.malformed.length > 0) {
      if (!linesGiven) {
        linesGiven = true;
        res.judge?.({ usable: true });
        const lines = answerMoreLines(asked, read);
        opts.recorder?.write(
          `patch/more-lines-${n}.md`,
          `# More lines asked before attempt ${n}\n\n${answer}\n\n## Given\n\n${lines}\n`,
        );
        messages.push(
          { role: "assistant", content: answer },
          { role: "user", content: renderPrompt("patch-more-lines", { lines }) },
        );
        n--;
        continue;
      }
      again =
        "More lines were already given once; none can be given again: write the patch from the code shown.\n";
    }
    // An answer without a single edit in the required format is unusable; a wrong edit is an attempt.
    res.judge?.(
      result.edits.length > 0 ? { usable: true } : { usable: false, why: "no edit in the required format" },
    );
    const attempt: PatchAttempt<R> = { attempt: n, answer, result };
    attempts.push(attempt);
    opts.onResult?.(attempt);
    opts.recorder?.write(`patch/attempt-${n}.md`, attemptMarkdown(attempt, max));
    if (result.diff) opts.recorder?.write(`patch/attempt-${n}.diff`, result.diff);
    if (!best || engine.compare(result.status, best.result.status) > 0) best = attempt;
    if (result.status === engine.applicableStatus) return { best: attempt, attempts, applicable: true };
    messages.push(
      { role: "assistant", content: answer.trim() ? answer : "(empty answer)" },
      {
        role: "user",
        content: renderPrompt("patch-retry", {
          attempt: n,
          max,
          status: result.status,
          feedback:
            again +
            (res.finishReason === "length"
              ? "Your answer was cut off at the output token limit: write only the edits, with short <original> blocks.\n"
              : "") +
            (result.feedback.trim() || "The answer contained no edit in the required format."),
        }),
      },
    );
  }
  return { best, attempts, applicable: false };
}
