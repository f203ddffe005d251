import { describeResult } from "../github/render/describe.ts";
import type { RunData } from "./job-data.ts";
import type { FixResult } from "../contract/app-result.ts";
import { codeFence, inertText, inlineCode } from "../core/inert-markdown.ts";
import type { FinalState, StageLine, StageName } from "../github/render/status-comment.ts";

/** Stage lines implied by a pipeline result (for stages the pipeline did not report as it went). */
export function pipelineStages(r: FixResult): [StageName, StageLine][] {
  const facts = describeResult(r);
  const out: [StageName, StageLine][] = [];
  const failedEarly = r.status === "error" && !r.patch;
  out.push(["indexed", { status: failedEarly ? "skipped" : "done" }]);
  out.push([
    "reproduced",
    r.reproduced === true ? { status: "done" } : { status: "skipped", note: "not reproduced" },
  ]);
  out.push([
    "located",
    facts.locations.length > 0
      ? { status: "done", note: facts.locations.map((l) => l.file).join(", ") }
      : { status: r.patch ? "done" : "failed" },
  ]);
  out.push(["patched", r.patch ? { status: "done" } : { status: "failed", note: "no applicable patch" }]);
  const v = facts.verdict;
  out.push([
    "reviewed",
    facts.approved === null
      ? { status: "skipped", note: "no reproducer to review with" }
      : {
          status: facts.approved ? "done" : "failed",
          note: v
            ? `patch correct: ${v.patchCorrect ?? "?"}, reproducer correct: ${v.testCorrect ?? "?"}`
            : facts.approved
              ? "approved"
              : "not approved",
        },
  ]);
  const val = facts.validation;
  out.push([
    "validated",
    !val
      ? { status: "skipped", note: "no test command" }
      : val.regressions.length > 0
        ? { status: "failed", note: `${val.regressions.length} regression(s)` }
        : { status: "done", note: "no regressions" },
  ]);
  return out;
}

/** The final state of a run that produced no pull request: what was found and why no patch passed. */
export function explainNoPatch(r: FixResult, data: RunData): FinalState {
  const facts = describeResult(r);
  const details: string[] = [];
  if (facts.locations.length > 0) {
    const where = facts.locations
      .map((l) => `${inlineCode(l.file)}${l.unit ? ` › ${inlineCode(l.unit)}` : ""}`)
      .join(", ");
    details.push(`Suspected locations: ${where}.`);
  }
  details.push(
    r.reproduced === true
      ? "The issue was reproduced with a script."
      : r.reproduced === false
        ? "The issue was not reproduced (no runnable example, or the script did not fail the way the issue says)."
        : "No reproducer was run.",
  );
  if (r.reason?.trim()) details.push(`Why no patch passed: ${inertText(r.reason, { max: 1500 })}`);
  if (r.error?.trim()) details.push(`Error: ${inlineCode(r.error.split("\n")[0] ?? "", 500)}`);
  const analysis = facts.verdict?.patchAnalysis ?? (facts.approved === false ? facts.reviewSummary : null);
  if (analysis?.trim()) details.push(`Reviewer: ${inertText(analysis, { max: 1500 })}`);
  if (r.usage.cost_usd !== null && r.usage.cost_usd >= data.maxCostUsd) {
    details.push(
      `This run's model spend limit ($${data.maxCostUsd.toFixed(2)}: the limit per run, or what was left of the repository's daily limit) was reached.`,
    );
  }
  if (r.timed_out_after) {
    return {
      ok: false,
      headline: `The run timed out after ${r.timed_out_after} and was stopped, so no pull request was opened.`,
      details,
      next: [
        "Comment `/retry` to try again; a run that keeps timing out needs a longer limit from the app's operator (`AUTO_FIX_RUN_TIMEOUT_MINUTES`) or a smaller test command.",
      ],
    };
  }
  return {
    ok: false,
    headline:
      r.status === "error"
        ? "The pipeline failed, so no pull request was opened."
        : "No patch passed the checks, so no pull request was opened.",
    details,
    next: [
      "Comment `/retry <guidance>` naming the file or function at fault, or what the fix must do.",
      "Add a minimal example that shows the bug to the issue, then `/retry`.",
    ],
  };
}

/** The comment a retry posts on the existing pull request. */
export function retryComment(
  data: RunData,
  guidance: string | undefined,
  r: FixResult,
  files: string[],
  commit: string,
): string {
  const facts = describeResult(r);
  const verdict = facts.verdict
    ? `patch correct: ${inlineCode(facts.verdict.patchCorrect ?? "not judged", 60)}, reproducer correct: ${inlineCode(facts.verdict.testCorrect ?? "not judged", 60)}`
    : facts.approved === null
      ? "not reviewed"
      : facts.approved
        ? "approved"
        : "not approved";
  const lines = [
    `🔁 Run ${data.run} replaced this branch's commit with \`${commit.slice(0, 7)}\` (force-push).`,
    "",
    guidance?.trim()
      ? `Guidance: ${inertText(guidance)}`
      : "No guidance was given; the run used the previous reviewer advice.",
    "",
    `Changed files: ${files.map((f) => inlineCode(f)).join(", ")}.`,
    `Reviewer verdict: ${verdict}.`,
    "",
    "<details><summary>The new patch</summary>",
    "",
    codeFence((r.patch ?? "").slice(0, 50_000), "diff"),
    "",
    "</details>",
  ];
  return lines.join("\n");
}
