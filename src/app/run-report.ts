import type { RunData } from "./job-data.ts";
import { type FixResult, lastReview } from "./pipeline.ts";
import { fence } from "./pr-body.ts";
import type { FinalState, StageLine, StageName } from "./status-comment.ts";

/** Stage lines implied by a pipeline result (used for stages the pipeline did not report as it went). */
export function pipelineStages(r: FixResult): [StageName, StageLine][] {
  const out: [StageName, StageLine][] = [];
  const failed = r.status === "error";
  out.push(["indexed", { status: failed && !r.patch ? "skipped" : "done" }]);
  if (r.reproduced === true) out.push(["reproduced", { status: "done" }]);
  else out.push(["reproduced", { status: "skipped", note: "not reproduced" }]);
  const locations = r.locations ?? r.bug_locations ?? [];
  out.push([
    "located",
    locations.length > 0
      ? { status: "done", note: locations.map((l) => `\`${l.file}\``).join(", ") }
      : { status: r.patch ? "done" : "failed" },
  ]);
  out.push(["patched", r.patch ? { status: "done" } : { status: "failed", note: "no applicable patch" }]);
  const review = lastReview(r);
  out.push([
    "reviewed",
    review
      ? {
          status: review["patch-correct"] === "yes" ? "done" : "failed",
          note: `patch correct: ${review["patch-correct"] ?? "?"}, reproducer correct: ${review["test-correct"] ?? "?"}`,
        }
      : { status: "skipped", note: "no reproducer to review with" },
  ]);
  const v = r.validation;
  out.push([
    "validated",
    !v || v.ran === false
      ? { status: "skipped", note: "no test command" }
      : (v.regressions ?? []).length > 0
        ? { status: "failed", note: `${v.regressions!.length} regression(s)` }
        : { status: "done", note: "no regressions" },
  ]);
  return out;
}

/** The final state of a run that produced no pull request: what was found and why no patch passed. */
export function explainNoPatch(r: FixResult, data: RunData): FinalState {
  const details: string[] = [];
  const locations = r.locations ?? r.bug_locations ?? [];
  if (locations.length > 0) {
    details.push(
      `Suspected locations: ${locations.map((l) => `\`${l.file}\`${l.method ? ` › \`${[l.class, l.method].filter(Boolean).join(".")}\`` : ""}`).join(", ")}.`,
    );
  } else {
    details.push("The search did not settle on a bug location.");
  }
  details.push(
    r.reproduced === true
      ? "The issue was reproduced with a script."
      : "The issue was not reproduced (no reproducible example, or the script did not fail as the issue says).",
  );
  if (r.reason) details.push(`Why no patch passed: ${r.reason}`);
  if (r.error) details.push(`Error: ${r.error.split("\n")[0]}`);
  const review = lastReview(r);
  if (review?.["patch-analysis"]) details.push(`Reviewer: ${review["patch-analysis"].trim().slice(0, 1500)}`);
  if (r.usage.cost_usd >= data.maxCostUsd) {
    details.push(`The model spend limit per run ($${data.maxCostUsd.toFixed(2)}) was reached.`);
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
  const review = lastReview(r);
  const lines = [
    `🔁 Run ${data.run} replaced this branch's commit with \`${commit.slice(0, 7)}\` (force-push).`,
    "",
    guidance
      ? `Guidance: _${guidance.trim()}_`
      : "No guidance was given; the run used the previous reviewer advice.",
    "",
    `Changed files: ${files.map((f) => `\`${f}\``).join(", ")}.`,
    `Reviewer verdict: patch correct: ${review?.["patch-correct"] ?? "not judged"}, reproducer correct: ${review?.["test-correct"] ?? "not judged"}.`,
    "",
    "<details><summary>The new patch</summary>",
    "",
    fence((r.patch ?? "").slice(0, 50_000), "diff"),
    "",
    "</details>",
  ];
  return lines.join("\n");
}
