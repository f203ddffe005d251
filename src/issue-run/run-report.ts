import type { RunData } from "./job-data.ts";
import type { FixResult, PipelineStage, ReviewReport } from "../contract/result.ts";
import { validationVerdict } from "../contract/validation-verdict.ts";
import { unitOf } from "../github/render/pr-body.ts";
import { codeFence, inertProse, inlineCode } from "../core/inert-markdown.ts";
import {
  type ChangeSinceLast,
  guidanceChangeSentence,
  patchChangeSentence,
} from "../github/render/pr-checklist.ts";
import type { FinalState, StageLine, StageName } from "../github/render/status-comment.ts";

/** Words for the patch engine's statuses, where a reason names one. */
const STATUS_WORDS: Record<string, string> = {
  APPLICABLE_PATCH: "applies",
  NO_PATCH: "was not written",
  RAW_PATCH_BUT_UNMATCHED: "did not match the code",
  RAW_PATCH_BUT_UNPARSED: "could not be read",
  RAW_PATCH_BUT_UNSAFE_PATH: "touched a file patches may not change",
};

/**
 * A run's reason in words for people: the pipeline's internal names (candidate ids such as "linear
 * attempt 2", patch-engine statuses such as `APPLICABLE_PATCH`) replaced by what they mean.
 */
export function plainReason(reason: string): string {
  return reason
    .replace(/\bcandidate [\w -]+? won: /g, "the chosen patch was ")
    .replace(/\b(?:linear|tree) attempt (\d+)(?: rewrite \d+)?\b/g, "attempt $1")
    .replace(
      /\bstatus ([A-Z][A-Z_]+)\b/g,
      (_m, s: string) => `the patch ${STATUS_WORDS[s] ?? "could not be used"}`,
    )
    .replace(/\b[A-Z]+(?:_[A-Z]+)+\b/g, (s) => STATUS_WORDS[s] ?? s.toLowerCase().replaceAll("_", " "));
}

/** The reviewer gave a verdict (rather than the stage ending without one). */
const hasVerdict = (v: ReviewReport): boolean => v["patch-correct"] !== null || v["test-correct"] !== null;

/** The reviewer's verdict in words: "the patch and the reproducer are correct", "the patch is correct; the reproducer is not". */
export function verdictWords(v: ReviewReport): string {
  const word = (x: string | null): "yes" | "no" | null => {
    const t = x?.trim().toLowerCase() ?? "";
    return t === "yes" || t === "true" ? "yes" : t === "no" || t === "false" ? "no" : null;
  };
  const p = word(v["patch-correct"]);
  const r = word(v["test-correct"]);
  if (p !== null && p === r)
    return `the patch and the reproducer are ${p === "yes" ? "correct" : "not correct"}`;
  const one = (what: string, w: "yes" | "no" | null): string =>
    w === "yes"
      ? `the ${what} is correct`
      : w === "no"
        ? `the ${what} is not correct`
        : `the ${what} was not judged`;
  return `${one("patch", p)}; ${one("reproducer", r)}`;
}

/** The reviewer's advice to carry into the next run's prompts. */
export function adviceOf(r: FixResult): string {
  const v = r.review;
  if (!v) return "";
  const parts: string[] = [];
  if (v["patch-advice"]?.trim()) parts.push(`On the patch: ${v["patch-advice"].trim()}`);
  if (v["test-advice"]?.trim()) parts.push(`On the reproducer: ${v["test-advice"].trim()}`);
  if (parts.length === 0 && !v.approved && v.summary.trim()) parts.push(v.summary.trim());
  return parts.join("\n\n").slice(0, 6000);
}

/** The pipeline stage behind each status line (the clone and the pull request are the app's own). */
const STAGE_OF: Partial<Record<StageName, PipelineStage>> = {
  indexed: "index",
  reproduced: "reproduce",
  located: "search",
  patched: "patch",
  reviewed: "review",
  validated: "validate",
  tested: "regress",
};

/**
 * Stage lines implied by a pipeline result (for stages the pipeline did not report as it went). A stage
 * the run never started (an empty issue stops before the index) is "not tried", never a failure.
 */
export function pipelineStages(r: FixResult): [StageName, StageLine][] {
  const tried = r.stages_tried ? new Set<string>(r.stages_tried) : null;
  return implied(r).map(([name, line]) => {
    const stage = STAGE_OF[name];
    return tried && stage && !tried.has(stage) && !reported(name, r)
      ? [name, { status: "skipped", note: "not tried" }]
      : [name, line];
  });
}

/** Whether the result holds what a stage produced (a strategy may run a stage under its own timing). */
function reported(name: StageName, r: FixResult): boolean {
  switch (name) {
    case "reproduced":
      return r.reproducer !== null || r.reproduced !== null;
    case "located":
      return r.locations.length > 0;
    case "patched":
      return r.patch !== null;
    case "reviewed":
      return r.review !== null;
    case "validated":
      return r.validation !== null;
    case "tested":
      return Boolean(r.regression_test);
    default:
      return false;
  }
}

function implied(r: FixResult): [StageName, StageLine][] {
  const out: [StageName, StageLine][] = [];
  const failedEarly = r.status === "error" && !r.patch;
  out.push(["indexed", { status: failedEarly ? "skipped" : "done" }]);
  out.push([
    "reproduced",
    r.reproducer?.status === "reproduced" || r.reproduced === true
      ? { status: "done" }
      : { status: "skipped", note: r.reproducer ? "not reproduced" : "no reproducer was run" },
  ]);
  out.push([
    "located",
    r.locations.length > 0
      ? { status: "done", note: [...new Set(r.locations.map((l) => l.file))].join(", ") }
      : r.patch
        ? { status: "done" }
        : failedEarly
          ? { status: "skipped", note: "the run stopped" }
          : { status: "failed" },
  ]);
  out.push(["patched", r.patch ? { status: "done" } : { status: "failed", note: "no applicable patch" }]);
  const v = r.review;
  out.push([
    "reviewed",
    v === null
      ? { status: "skipped", note: "no reproducer to review with" }
      : {
          status: v.approved ? "done" : "failed",
          note: hasVerdict(v) ? verdictWords(v) : v.approved ? "approved" : "not approved",
        },
  ]);
  out.push(["validated", validatedLine(r.validation)]);
  const t = r.regression_test;
  out.push([
    "tested",
    !t
      ? { status: "skipped", note: r.patch ? "not written" : "no patch to test" }
      : t.status === "added"
        ? { status: "done", ...(t.path ? { note: t.path } : {}) }
        : t.status === "off"
          ? { status: "skipped", note: "turned off in the repository's configuration" }
          : { status: "warning", note: t.summary.replace(/^No regression test was added: /, "") },
  ]);
  return out;
}

/** The final state of a run that produced no pull request: what was found and why no patch passed. */
export function explainNoPatch(r: FixResult, data: RunData): FinalState {
  const details: string[] = [];
  if (r.locations.length > 0) {
    const where = r.locations
      .map((l) => {
        const unit = unitOf(l);
        return `${inlineCode(l.file)}${unit ? ` › ${inlineCode(unit)}` : ""}`;
      })
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
  if (r.reason.trim())
    details.push(`Why no patch passed: ${inertProse(plainReason(r.reason), { max: 1500 })}`);
  if (r.error?.trim()) details.push(`Error: ${inlineCode(r.error.split("\n")[0] ?? "", 500)}`);
  const analysis = r.review?.["patch-analysis"] ?? (r.review && !r.review.approved ? r.review.summary : null);
  if (analysis?.trim()) details.push(`Reviewer: ${inertProse(analysis, { max: 1500 })}`);
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
  /** What started the run when it was not a `/retry` (a review, failing checks). */
  startedBy?: string,
  since?: ChangeSinceLast,
): string {
  const v = r.review;
  const verdict =
    v && hasVerdict(v)
      ? verdictWords(v)
      : v === null
        ? "not reviewed"
        : v.approved
          ? "approved"
          : "not approved";
  const lines = [
    `🔁 Run ${data.run} replaced this branch's commit with \`${commit.slice(0, 7)}\` (force-push).`,
    "",
    guidance?.trim()
      ? `Guidance: ${inertProse(guidance, { max: 2000 })}`
      : (startedBy ?? "No guidance was given; the run used the previous reviewer advice."),
    "",
    ...(since ? [patchChangeSentence(data.run, since), guidanceChangeSentence(since), ""] : []),
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

/** The status comment's line for the repository's tests: ✅ counted, ⚠️ could not be run, ❌ regressions or a run that cannot be trusted. */
export function validatedLine(val: FixResult["validation"]): StageLine {
  if (!val) return { status: "skipped", note: "no test command" };
  const v = validationVerdict(val);
  switch (v.kind) {
    case "counted":
      return { status: "done", note: v.text };
    case "still-failing":
      return { status: "warning", note: v.text };
    case "regressions":
      return { status: "failed", note: v.text };
    case "tampered":
      return {
        status: "failed",
        title: "The test run cannot be trusted",
        note: v.text.replace(
          /^The test run (?:after the patch |on the unpatched tree )?cannot be trusted: /,
          "",
        ),
      };
    case "could-not-run":
      return {
        status: "warning",
        title: "Tests could not be run",
        note: v.text.replace(/^Tests could not be run: /, ""),
      };
    case "no-tests":
      return { status: "skipped", note: v.text };
  }
}
