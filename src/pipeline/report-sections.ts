import type { Reproduction } from "../reproduce/index.ts";
import { describeOutcome, type ExecResult, truncateMiddle } from "../sandbox/index.ts";
import type { Selection } from "../select/index.ts";
import type { ReviewLoopOutcome } from "../review/index.ts";

const fence = (text: string, lang = ""): string => {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.trimEnd()}\n${f}`;
};
const cell = (s: string): string => s.replace(/\s+/g, " ").replaceAll("|", "\\|").trim();

function runBlock(label: string, exec: ExecResult): string {
  const out = [exec.stdout.trim(), exec.stderr.trim()].filter(Boolean).join("\n");
  return `${label}: ${describeOutcome(exec)}\n\n${fence(truncateMiddle(out || "(no output)", 3000))}`;
}

/** The reproducer (collapsed) with its run before any patch and after the chosen one. */
export function reproducerSection(
  rep: Reproduction,
  file: string,
  command: string,
  lang: string,
  after: ExecResult | null,
  /** What went wrong around the stage (a configuration file ignored, no sandbox), if anything. */
  problem: string | null = null,
): string {
  const lines = [`${rep.summary}.`, ""];
  if (problem) lines.push(problem, "");
  if (rep.script) {
    lines.push(
      `<details><summary>Reproducer <code>${file}</code> (run with <code>${command}</code>)</summary>`,
      "",
      fence(rep.script, lang),
      "",
      "</details>",
      "",
    );
  }
  if (rep.run) lines.push(runBlock("Before the patch", rep.run.exec), "");
  if (after) lines.push(runBlock("After the chosen patch", after), "");
  return lines.join("\n");
}

/** The reviewer's verdict on the chosen patch and the rounds that led to it. */
export function reviewSection(outcome: ReviewLoopOutcome, candidateId: string): string {
  const last = [...outcome.rounds].reverse().find((r) => r.patchId === candidateId && r.verdict);
  const lines: string[] = [];
  if (last?.verdict) {
    const v = last.verdict;
    lines.push(`**Patch correct: ${v["patch-correct"]}.** ${v["patch-analysis"]}`, "");
    if (v["patch-advice"]) lines.push(`Advice: ${v["patch-advice"]}`, "");
    lines.push(`**Reproducer correct: ${v["test-correct"]}.** ${v["test-analysis"]}`, "");
    if (v["test-advice"]) lines.push(`Advice: ${v["test-advice"]}`, "");
  }
  lines.push("| Round | Patch | Reproducer | Outcome |", "|---|---|---|---|");
  for (const r of outcome.rounds) {
    lines.push(
      `| ${r.round} | ${r.patchId} | v${r.scriptVersion} | ${cell(`${r.action}${r.note ? `: ${r.note}` : ""}`)} |`,
    );
  }
  return lines.join("\n");
}

/** Every candidate of the run with its tier, and why the winner won. */
export function selectionSection(sel: Selection): string {
  const lines = [
    sel.reason.endsWith(".") ? sel.reason : `${sel.reason}.`,
    "",
    "| Candidate | Tier | Why |",
    "|---|---|---|",
  ];
  for (const r of sel.ranking) lines.push(`| ${r.id} | ${r.tier} | ${cell(r.why)} |`);
  lines.push(
    "",
    "Tiers: 1 = approved by the reviewer and regression-free, 2 = regression-free, 3 = best status.",
  );
  return lines.join("\n");
}
