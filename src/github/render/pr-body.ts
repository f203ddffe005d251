import { codeFence, inertProse, inlineCode } from "../../core/inert-markdown.ts";
import type { GITHUB_BODY_LIMIT } from "../port.ts";
import { testChangeLines, testChanges, testsRunLines } from "../../report/test-names.ts";
import { scanLines } from "../../report/scan-lines.ts";
import { maintainerLines } from "./maintainer-lines.ts";
import { type ChangeSinceLast, changeLines, checklist } from "./pr-checklist.ts";
import { runnerChecksLine } from "../../contract/runner-checks.ts";
import { summaryAddsToVerdict, validationVerdict } from "../../contract/validation-verdict.ts";
import { pullMarker } from "./markers.ts";
import type {
  ExecReport,
  FixResult,
  LocationReport,
  ReviewReport,
  ReviewRoundReport,
} from "../../contract/result.ts";
import { formatUsd } from "../../model/usage.ts";
import { plural } from "../../core/words.ts";
import { withoutRecaps } from "../../runners/shared/results-recap.ts";

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
  /** How this run's patch and guidance differ from the previous run's (retries). */
  since?: ChangeSinceLast;
}

/**
 * Everything in the body that the model, the issue's author or the repository wrote is rendered inert
 * (`inert-markdown.ts`): prose (analysis, reasons, guidance, intended behaviour) as escaped text that
 * reads as text; names, commands, test ids, code and output as code.
 */
export const fence = codeFence;

const clip = (text: string, max: number) =>
  text.length <= max
    ? text
    : `${text.slice(0, max)}\n… (${text.length - max} more characters in the artifacts)`;

/** Both streams of a run, stdout first (what a person running the script sees, in order of use). */
export function execOutput(e: ExecReport): string {
  return [e.stdout.trimEnd(), e.stderr.trimEnd()].filter((t) => t.trim() !== "").join("\n");
}

function execBlock(label: string, e: ExecReport | null, max: number): string[] {
  if (!e) return [];
  const how =
    e.exitCode !== null
      ? `exit code ${e.exitCode}`
      : e.signal
        ? `killed by ${inlineCode(e.signal, 40)}`
        : "no exit code";
  const limit = e.limit ? `, stopped by the ${e.limit} limit` : "";
  const cut = e.truncated ? ", output shortened" : "";
  const out = withoutRecaps(execOutput(e));
  return [`${label} (${how}${limit}${cut}):`, "", fence(clip(out || "(no output)", max)), ""];
}

/** `Class.method`, `method` or `Class`: the code unit a location names, or null for a whole file. */
export const unitOf = (l: LocationReport): string | null =>
  [l.class, l.method].filter((x) => x?.trim()).join(".") || null;

function locationLine(l: LocationReport): string {
  const unit = unitOf(l);
  const intended = l.intendedBehavior.trim() ? `: ${inertProse(l.intendedBehavior, { max: 1000 })}` : "";
  return `- ${inlineCode(l.file)}${unit ? ` › ${inlineCode(unit)}` : ""} (lines ${l.start}–${l.end})${intended}`;
}

const judged = (v: "yes" | "no" | null) => v ?? "not judged";

const ACTIONS: Record<ReviewRoundReport["action"], string> = {
  accepted: "accepted",
  "validation-failed": "accepted by the reviewer, but the tests failed",
  "rewrite-patch": "patch rejected and rewritten",
  "rewrite-test": "reproducer rejected and rewritten",
  "rewrite-both": "patch and reproducer rejected and rewritten",
  duplicate: "the rewrite repeated a patch already tried; not run again",
  rejected: "rejected, no rounds left",
  stopped: "stopped",
};

/** What each review round did, one line each (the notes are the pipeline's, with test ids in them). */
function roundLines(v: ReviewReport): string[] {
  // Patches are numbered in the order the rounds saw them: their internal ids stay in the artifacts.
  const numbers = new Map<string, number>();
  for (const h of v.history) if (!numbers.has(h.patchId)) numbers.set(h.patchId, numbers.size + 1);
  return [
    "Review rounds:",
    "",
    ...v.history.map(
      (h) =>
        `- Round ${h.round}: patch ${numbers.get(h.patchId)} with reproducer version ${h.scriptVersion}: ${ACTIONS[h.action]}${h.note.trim() ? ` (${inlineCode(h.note, 300)})` : ""}`,
    ),
  ];
}

/** Model prose as a quotation: escaped text, each paragraph in the quote. */
const quoted = (text: string, max: number): string =>
  inertProse(text, { max })
    .split("\n\n")
    .map((p) => `> ${p}`)
    .join("\n>\n");

function extName(path: string | null): string {
  const m = /\.([a-z0-9]+)$/i.exec(path ?? "");
  const ext = m?.[1]?.toLowerCase() ?? "";
  return { py: "python", js: "javascript", ts: "typescript", go: "go", java: "java" }[ext] ?? ext;
}

/** The regression test the patch adds, with its runs; or why none was added. */
function regressionLines(r: FixResult, max: number): string[] {
  const t = r.regression_test;
  if (!t) return [];
  const lines = ["## Regression test", ""];
  if (t.status !== "added" || !t.path) {
    lines.push(inertProse(t.summary, { max: 2000 }), "");
    return lines;
  }
  lines.push(
    `The patch adds ${inlineCode(t.path)}${t.framework ? ` (${inertProse(t.framework, { max: 40 })})` : ""}: it fails without the fix and passes with it, both checked in the sandbox.`,
    "",
  );
  if (t.suite) lines.push(inertProse(t.suite, { max: 1000 }), "");
  if (t.command) lines.push(`Run it alone: ${inlineCode(t.command, 500)}`, "");
  if (t.before || t.after) {
    lines.push("<details><summary>Its output without and with the fix</summary>", "");
    lines.push(...execBlock("Without the fix", t.before, max), ...execBlock("With the fix", t.after, max));
    lines.push("</details>", "");
  }
  return lines;
}

/** Lines of output a section shows before its details are opened: around the failure it names. */
const SHOWN_LINES = 12;
/** A line that names a failure: an error or exception, a failed assertion, a panic. */
const FAILURE_LINE = /^\s*(?:[\w.]*(?:Error|Exception)\b|panic:|FAIL\b|E\s{2,})/;
/** Frames of the runtime itself (node's internals), which say nothing of the failure. */
const RUNTIME_FRAME = /^\s+at (?:async )?(?:node:|\S+ \(node:)/;

/**
 * What a run's output shows of its failure: the lines around the last line that names one (the
 * traceback's end before it, the values after it, the runtime's own frames left out), else its last
 * lines; and whether that is all of the output.
 */
function excerptOf(e: ExecReport): { text: string; whole: boolean } {
  const all = withoutRecaps(execOutput(e)).split("\n");
  if (all.length <= SHOWN_LINES) return { text: all.join("\n"), whole: true };
  let at = -1;
  for (let i = all.length - 1; i >= 0 && at < 0; i--) if (FAILURE_LINE.test(all[i]!)) at = i;
  if (at < 0) return { text: all.slice(-SHOWN_LINES).join("\n"), whole: false };
  let from = Math.max(0, at - 6);
  // A traceback's own heading starts it: what the script printed before is not the failure.
  for (let i = at - 1; i >= from; i--) if (/^Traceback \(most recent call last\):/.test(all[i]!)) from = i;
  const before = all.slice(from, at).filter((l) => !RUNTIME_FRAME.test(l));
  const after = all.slice(at, at + 1 + SHOWN_LINES).filter((l) => !RUNTIME_FRAME.test(l));
  return { text: [...before, ...after].slice(0, SHOWN_LINES).join("\n").trimEnd(), whole: false };
}

const exitWords = (e: ExecReport): string =>
  e.exitCode !== null
    ? `exit code ${e.exitCode}`
    : e.signal
      ? `killed by ${inlineCode(e.signal, 40)}`
      : "no exit code";

/**
 * The reproducer reduced to what matters: how its run before the patch ended (the failing check, from
 * the end of its output) and how it ran after; the script and the full output in a collapsed section.
 */
function reproducerLines(rep: NonNullable<FixResult["reproducer"]>, max: number): string[] {
  const lines = ["## Reproducer", ""];
  const shown = rep.before && execOutput(rep.before).trim() ? excerptOf(rep.before) : null;
  if (rep.before) {
    lines.push(
      `Before the patch, ${inlineCode(rep.command)} ended with ${exitWords(rep.before)}${shown ? (shown.whole ? ":" : "; where its output names the failure:") : " and no output."}`,
      "",
    );
    if (shown) lines.push(fence(clip(shown.text, max)), "");
  }
  if (rep.after) {
    const out = execOutput(rep.after).trim();
    lines.push(`After the patch it ended with ${exitWords(rep.after)}${out ? "." : " and no output."}`, "");
  }
  const script = rep.script ?? "";
  const count = script.trimEnd().split("\n").length;
  const afterOutput = rep.after !== null && execOutput(rep.after).trim() !== "";
  const more = shown?.whole === false || afterOutput ? " and its full output" : "";
  lines.push(
    `<details><summary>The reproducer script (${plural(count, "line")})${more}</summary>`,
    "",
    `Save it as ${inlineCode(rep.path)} and run it from the repository root.`,
    "",
    fence(clip(script, max), extName(rep.path)),
    "",
  );
  if (shown?.whole === false) lines.push(...execBlock("Before the patch", rep.before, max));
  if (afterOutput) lines.push(...execBlock("After the patch", rep.after, max));
  lines.push("</details>", "");
  return lines;
}

function summaryText(input: PullBodyInput): string {
  const verdict =
    input.result.status === "fixed"
      ? "The evidence below supports it; review the change before marking this ready."
      : "It applies, but it is not marked fixed: the evidence below does not show the bug gone. Review it carefully.";
  return `auto-fix wrote a patch for #${input.issueNumber} (“${inertProse(input.issueTitle, { max: 300 })}”). ${verdict}`;
}

function render(input: PullBodyInput, max: number): string {
  const r = input.result;
  // Each fact once: the sections below say what the run's one-paragraph summary would say again.
  const lines: string[] = [pullMarker(input.issueNumber), "## Summary", "", summaryText(input), ""];
  lines.push(`Fixes #${input.issueNumber}`, "");
  if (input.guidance?.trim())
    lines.push(
      `Run ${input.run} followed this guidance:`,
      "",
      quoted(input.guidance, Math.min(max, 2000)),
      "",
    );
  if (input.since) lines.push(...changeLines(input.run, input.since, max));
  lines.push(...maintainerLines(r));
  if (r.locations.length > 0) {
    lines.push("## Bug locations and intended behaviour", "", ...r.locations.map(locationLine), "");
  }
  if (input.files.length > 0)
    lines.push(`Changed files: ${input.files.map((f) => inlineCode(f)).join(", ")}`, "");
  lines.push("## Review", "");
  const v = r.review;
  if (v && (v["patch-correct"] !== null || v["test-correct"] !== null)) {
    lines.push(
      `Verdict: ${v.approved ? "approved" : "not approved"} after ${v.rounds} review round${v.rounds === 1 ? "" : "s"}.`,
      "",
    );
    // A test the patch writer says pins the old behaviour: named for the maintainer to decide.
    const pinned = /; ([^;]+ with the patch; the patch writer claims (?:it|they) pin[\s\S]*)$/.exec(
      v.summary,
    )?.[1];
    if (pinned) lines.push(`**A test pins the old behaviour?** ${inertProse(pinned, { max: 1500 })}.`, "");
    lines.push(`**Patch** — correct: ${judged(v["patch-correct"])}`, "");
    if (v["patch-analysis"]?.trim()) lines.push(quoted(v["patch-analysis"], max), "");
    lines.push(`**Reproducer** — correct: ${judged(v["test-correct"])}`, "");
    if (v["test-analysis"]?.trim()) lines.push(quoted(v["test-analysis"], max), "");
    if (v.history.length > 1) lines.push(...roundLines(v), "");
  } else if (v) {
    lines.push(`Verdict: ${v.approved ? "approved" : "not approved"}. ${inertProse(v.summary, { max })}`, "");
  } else {
    lines.push("No review: without a reproducer the patch was only validated.", "");
  }
  const rep = r.reproducer;
  if (rep?.script) {
    lines.push(...reproducerLines(rep, max));
  } else {
    lines.push(
      "## Reproducer",
      "",
      rep ? `The issue was not reproduced: ${inertProse(rep.summary, { max })}` : "No reproducer.",
      "",
    );
  }
  lines.push(...regressionLines(r, max));
  lines.push("## Validation", "");
  const val = r.validation;
  if (!val) {
    lines.push("The repository's tests were not run (no test command configured or detected).", "");
  } else {
    const verdict = validationVerdict(val);
    lines.push(`${verdict.icon} ${inertProse(verdict.text, { max })}`, "");
    // Said once: the targeted command is named below ("How they were run") when it is another.
    const ranAs = val.tests?.command;
    if (val.command && ranAs !== val.command)
      lines.push(`The repository's test command: ${inlineCode(val.command, 500)}`, "");
    // The verdict already says how many tests ran and that none regressed, or why none judged the patch
    // (from the summary): the summary and the "no regression" line would say it again.
    const counted = verdict.kind === "counted" || verdict.kind === "still-failing";
    if (summaryAddsToVerdict(val)) lines.push(inertProse(val.summary, { max }), "");
    for (const line of testChangeLines(testChanges(val)))
      if (!(counted && line.startsWith("No test that passed before"))) lines.push(line, "");
    for (const line of testsRunLines(r.validation)) lines.push(line, "");
  }
  if (r.evidence) {
    lines.push("## Evidence", "");
    const restsOn = r.status === "fixed" ? r.evidence.rests_on : null;
    const why = restsOn ?? r.evidence.not_fixed ?? "nothing that ran shows the bug gone";
    lines.push(
      `${restsOn ? "✅ Marked fixed: it rests on" : "⚠️ Not marked fixed:"} ${inertProse(why, { max }).replace(/\.$/, "")}.`,
      "",
      `Code change: ${inertProse(r.evidence.code, { max: 1000 })}.`,
      "",
      ...scanLines(r.evidence, (t) => inertProse(t, { max: 600 })),
    );
  }
  // What the runner checks held against, in the evidence's details; a failed check is the verdict above.
  if (r.validation?.integrity && r.validation.integrity.state !== "tampered") {
    if (!r.evidence) lines.push("## Evidence", "");
    lines.push(
      inertProse(
        runnerChecksLine({ ...r.validation.integrity, detail: r.validation.integrity.detail.slice(0, 500) }),
        { max },
      ),
      "",
    );
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
    "- A review that requests changes (or has a `/retry` line) — run again with its comments; each gets an answer.",
    "- `/cancel` — stop a run in progress.",
    "",
    ...checklist(r, input.files),
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
