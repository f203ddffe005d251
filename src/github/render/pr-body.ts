import { codeFence, inertText, inlineCode } from "../../core/inert-markdown.ts";
import type { GITHUB_BODY_LIMIT } from "../port.ts";
import { testChangeLines, testChanges, testsRunLines } from "../../report/test-names.ts";
import { pullMarker } from "./markers.ts";
import { describeResult, type ExecView, type LocationView } from "./describe.ts";
import type { FixResult } from "../../contract/app-result.ts";
import { formatUsd } from "../../model/usage.ts";

/** What the pull request body says about one run (pure rendering; the runner gathers the facts). */
export interface PullBodyInput {
  issueNumber: number;
  issueTitle: string;
  result: FixResult;
  run: number;
  seconds: number;
  model: string;
  files: string[];
  guidance?: string;
  /** Where the full text lives when the body has to be shortened. */
  artifactsPath: string;
}

/**
 * Everything in the body that the model, the issue's author or the repository wrote (analysis, reasons,
 * guidance, locations, file names, test ids, output) is rendered inert: as code (`inert-markdown.ts`).
 */
export const fence = codeFence;

const clip = (text: string, max: number) =>
  text.length <= max
    ? text
    : `${text.slice(0, max)}\n… (${text.length - max} more characters in the artifacts)`;

function execBlock(label: string, e: ExecView | null, max: number): string[] {
  if (!e) return [];
  const limit = e.limit ? `, stopped by the ${e.limit} limit` : "";
  return [
    `${label} (exit code ${e.exitCode ?? "none"}${limit}):`,
    "",
    fence(clip(e.output || "(no output)", max)),
    "",
  ];
}

function locationLine(l: LocationView): string {
  const lines = l.start !== null ? ` (lines ${l.start}–${l.end ?? l.start})` : "";
  const intended = l.intended?.trim() ? `: ${inlineCode(l.intended, 1000)}` : "";
  return `- ${inlineCode(l.file)}${l.unit ? ` › ${inlineCode(l.unit)}` : ""}${lines}${intended}`;
}

/** The reviewer's yes/no, or what it said instead (as code). */
const judged = (v: string | null) =>
  v === null ? "not judged" : /^(yes|no)$/i.test(v) ? v : inlineCode(v, 60);

function extName(path: string | null): string {
  const m = /\.([a-z0-9]+)$/i.exec(path ?? "");
  const ext = m?.[1]?.toLowerCase() ?? "";
  return { py: "python", js: "javascript", ts: "typescript", go: "go", java: "java" }[ext] ?? ext;
}

/** How a reproducer is run, by its file type. */
export function runCommand(path: string): string {
  if (/\.py$/.test(path)) return `python ${path}`;
  if (/\.[cm]?[jt]s$/.test(path)) return `node ${path}`;
  if (/\.go$/.test(path)) return `go run ${path}`;
  if (/\.java$/.test(path)) return `java ${path}`;
  return `sh ${path}`;
}

function summaryText(input: PullBodyInput): string {
  if (input.result.summary?.trim()) return inertText(input.result.summary);
  const verdict =
    input.result.status === "fixed"
      ? "The reviewer judged the patch correct against a reproducer that fails before it and passes after."
      : "The patch applies, but the reviewer did not confirm it with a reproducer; please review it carefully.";
  return `auto-fix wrote a patch for #${input.issueNumber} (${inlineCode(input.issueTitle)}). ${verdict}`;
}

function render(input: PullBodyInput, max: number): string {
  const r = input.result;
  const facts = describeResult(r);
  const lines: string[] = [pullMarker(input.issueNumber), "## Summary", "", summaryText(input), ""];
  lines.push(`Fixes #${input.issueNumber}`, "");
  if (r.reason?.trim()) lines.push(`Outcome: ${inertText(r.reason)}`, "");
  if (input.guidance?.trim())
    lines.push(`Run ${input.run} followed this guidance: ${inertText(input.guidance)}`, "");
  if (facts.locations.length > 0) {
    lines.push("## Bug locations and intended behaviour", "", ...facts.locations.map(locationLine), "");
  }
  if (input.files.length > 0)
    lines.push(`Changed files: ${input.files.map((f) => inlineCode(f)).join(", ")}`, "");
  lines.push("## Review", "");
  const v = facts.verdict;
  if (v) {
    lines.push(`**Patch** — correct: ${judged(v.patchCorrect)}`, "");
    if (v.patchAnalysis) lines.push(inertText(v.patchAnalysis, { max }), "");
    lines.push(`**Reproducer** — correct: ${judged(v.testCorrect)}`, "");
    if (v.testAnalysis) lines.push(inertText(v.testAnalysis, { max }), "");
  } else if (facts.reviewSummary) {
    lines.push(inertText(facts.reviewSummary, { max }), "");
  } else {
    lines.push("No review: without a reproducer the patch was only validated.", "");
  }
  const rep = facts.reproducer;
  if (rep) {
    const path = rep.path ?? "reproduce.py";
    lines.push(
      "## Reproducer",
      "",
      "<details><summary>Reproducer script, how to run it, and its output</summary>",
      "",
    );
    lines.push(
      `Save it as ${inlineCode(path)} and run it from the repository root: ${inlineCode(rep.command ?? runCommand(path))}`,
      "",
    );
    lines.push(fence(clip(rep.script, max), extName(path)), "");
    lines.push(
      ...execBlock("Before the patch", rep.before, max),
      ...execBlock("After the patch", rep.after, max),
    );
    lines.push("</details>", "");
  } else {
    lines.push(
      "## Reproducer",
      "",
      r.reproduced === false ? "The issue was not reproduced." : "No reproducer.",
      "",
    );
  }
  lines.push("## Validation", "");
  const val = facts.validation;
  if (!val) {
    lines.push("The repository's tests were not run (no test command configured or detected).", "");
  } else {
    if (val.command) lines.push(`Command: ${inlineCode(val.command, 500)}`, "");
    if (val.summary) lines.push(inertText(val.summary, { max }), "");
    const changes = testChanges(r.validation) ?? { fixed: [], regressions: val.regressions, perTest: false };
    for (const line of testChangeLines(changes)) lines.push(line, "");
    for (const line of testsRunLines(r.validation)) lines.push(line, "");
  }
  const u = r.usage;
  lines.push(
    "## Run",
    "",
    "| Model | Prompt tokens | Completion tokens | Cost | Time |",
    "| --- | ---: | ---: | ---: | ---: |",
    `| ${input.model ? inlineCode(input.model, 100).replace(/\|/g, "\\|") : "unknown"} | ${u.prompt_tokens} | ${u.completion_tokens} | ${formatUsd(u.cost_usd)} | ${input.seconds.toFixed(0)} s |`,
    "",
    "## Commands",
    "",
    "- `/retry` — run auto-fix again; the next run's prompts carry the reviewer's advice from this one.",
    "- `/retry <guidance>` — run again with your guidance (e.g. where the bug is, what the fix must keep).",
    "- `/cancel` — stop a run in progress.",
    "",
    "This pull request is a draft: review the change before marking it ready.",
  );
  return lines.join("\n");
}

const LIMIT: typeof GITHUB_BODY_LIMIT = 65_536;

/**
 * The pull request body, and the full text when the body had to be shortened to GitHub's limit
 * (the runner writes the full text to the artifacts and the body says where).
 */
export function renderPullBody(input: PullBodyInput): { body: string; full: string; shortened: boolean } {
  const full = render(input, Number.POSITIVE_INFINITY);
  if (full.length <= LIMIT) return { body: full, full, shortened: false };
  const note = `\n\n> This description was shortened to fit GitHub's limit; the full text is in the run's artifacts: \`${input.artifactsPath}\`.`;
  for (const max of [8000, 3000, 1000, 300]) {
    const body = render(input, max) + note;
    if (body.length <= LIMIT) return { body, full, shortened: true };
  }
  return { body: render(input, 100).slice(0, LIMIT - note.length - 2) + note, full, shortened: true };
}
