import type { FixRunRecord } from "../contract/pipeline.ts";
import { formatUsd } from "../model/usage.ts";
import { testChangeLines, testChanges, testsRunLines } from "./test-names.ts";
import { runnerChecksLine } from "../contract/runner-checks.ts";
import { summaryAddsToVerdict, validationVerdict } from "../contract/validation-verdict.ts";
import { scanLines } from "./scan-lines.ts";

const fence = (text: string, lang = "") => {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.trimEnd()}\n${f}`;
};

const one = (s: string) => s.replace(/\s+/g, " ").trim();

/** A patch's status in words: "applies", "raw patch but unmatched" (the codes are in result.json). */
export function plainStatus(status: string): string {
  return status === "APPLICABLE_PATCH" ? "applies" : status.toLowerCase().replaceAll("_", " ");
}

/** Where a patch came from, in words: "patch attempt 2", "tree search node #4 (depth 2)". */
function plainSource(source: string): string {
  return source.replace(/\blinear attempt\b/g, "patch attempt").replace(/^tree node\b/, "tree search node");
}

/** The human-readable `report.md` of one run. */
export function renderReport(run: FixRunRecord): string {
  const r = run.result;
  const s = run.state;
  const out: string[] = [];
  out.push(`# auto-fix report: ${one(run.issue.title) || "(untitled issue)"}`, "");
  out.push(`**Status: ${r.status}** — ${r.reason}`, "");
  if (r.evidence) {
    out.push(
      r.status === "fixed" && r.evidence.rests_on
        ? `Evidence: the fix rests on ${r.evidence.rests_on}.`
        : `Evidence: not marked fixed: ${r.evidence.not_fixed ?? "nothing that ran shows the bug gone"}.`,
      `Code change: ${r.evidence.code}.`,
      "",
      ...scanLines(r.evidence, (t) => t),
    );
  }
  const tokens = r.usage.prompt_tokens + r.usage.completion_tokens;
  out.push(
    `- Repository: \`${run.options.repo}\` (read only; the run worked in a private copy${run.workdir ? ` kept at \`${run.workdir}\`` : ""})`,
    `- Model calls: ${run.modelCalls}; tokens: ${r.usage.prompt_tokens} prompt + ${r.usage.completion_tokens} completion = ${tokens}; cost: ${formatUsd(r.usage.cost_usd)}`,
    `- Reproduced: ${r.reproduced === null ? "not attempted" : r.reproduced ? "yes" : "no"}`,
  );
  if (run.error) out.push(`- Stopped by: ${one(run.error)}`);
  out.push("");

  out.push("## Bug locations", "");
  const search = s.search;
  if (!search) {
    out.push("The search did not finish.", "");
  } else {
    out.push(`Search: ${search.status} after ${search.rounds.length} round(s).`, "");
    if (search.locations.length > 0) {
      for (const l of search.locations) {
        const name = [l.class, l.method].filter(Boolean).join(".");
        out.push(`- \`${l.file}\` lines ${l.start}–${l.end}${name ? ` (\`${name}\`)` : ""}`);
        if (l.intendedBehavior) out.push(`  - Intended behaviour: ${one(l.intendedBehavior)}`);
      }
      out.push("");
    } else if (search.requested.length > 0) {
      out.push("The model named these locations, but none matched code in the repository:", "");
      for (const q of search.requested) {
        const what = [q.file, q.class, q.method].filter(Boolean).join(" / ");
        out.push(`- ${what}${q.intended_behavior ? `: ${one(q.intended_behavior)}` : ""}`);
      }
      out.push("");
    } else {
      out.push("No bug location was found; the patch was written from the search history.", "");
    }
    out.push("| Round | Calls | Outcome |", "|---|---|---|");
    for (const rd of search.rounds) {
      const calls = rd.calls
        .map((c) => `\`${c.call.replaceAll("|", "\\|")}\`${c.repeatedFrom !== null ? " (repeat)" : ""}`)
        .join("<br>");
      const outcome =
        rd.note ??
        (rd.requested.length > 0
          ? `${rd.resolved} location(s) resolved`
          : rd.proxyOk
            ? "results returned"
            : "unreadable answer");
      out.push(`| ${rd.round} | ${calls || "—"} | ${one(outcome).replaceAll("|", "\\|")} |`);
    }
    out.push("");
  }

  out.push("## Patch", "");
  if (s.candidates.length === 0) out.push("No patch was attempted.", "");
  else {
    out.push("| Attempt | Status | What the patch engine said |", "|---|---|---|");
    for (const c of s.candidates) {
      out.push(
        `| ${plainSource(c.source)} | ${plainStatus(c.result.status)} | ${one(c.result.feedback).slice(0, 200).replaceAll("|", "\\|")} |`,
      );
    }
    out.push("");
    if (s.chosen) out.push(`Chosen: ${s.chosenWhy}.`, "");
  }
  if (r.patch) out.push(fence(r.patch, "diff"), "");
  // The stages' own sections (reproducer, reviewer) merge into the report's: each subject once.
  const sections = [...(s.sections ?? [])];
  const take = (title: string) => {
    const i = sections.findIndex((x) => x.title === title);
    return i < 0 ? null : sections.splice(i, 1)[0]!.markdown.trimEnd();
  };
  const reproducer = take("Reproducer");
  if (reproducer) out.push("## Reproducer", "", reproducer, "");
  else if (s.reproduction) out.push("## Reproducer", "", s.reproduction.summary, "");

  const chosen = s.chosen;
  const reviewer = take("Reviewer");
  if (chosen?.review || reviewer) {
    out.push("## Review", "");
    if (chosen?.review) {
      out.push(`Approved: ${chosen.review.approved ? "yes" : "no"} — ${one(chosen.review.summary)}`, "");
    }
    if (reviewer) out.push(reviewer, "");
  }
  if (chosen?.validation) {
    const v = chosen.validation;
    const verdict = validationVerdict(r.validation);
    out.push(
      "## Validation",
      "",
      `${verdict.icon} ${verdict.text}`,
      "",
      `Passed (tests ran before and after the patch, no regression): ${v.passed ? "yes" : "no"}`,
      `Shows the fix (a test failed before the patch and passes after): ${v.showsFix ? "yes" : "no"}`,
      ...(v.data?.integrity ? [runnerChecksLine(v.data.integrity, { detail: true })] : []),
      "",
      ...(r.validation && !summaryAddsToVerdict(r.validation) ? [] : [v.summary, ""]),
    );
    const changes = testChanges({
      fixed: v.data?.fixed ?? [],
      regressions: v.regressions,
      perTest: v.data?.perTest ?? false,
    });
    for (const line of testChangeLines(changes)) out.push(line, "");
    for (const line of testsRunLines(v.data)) out.push(line, "");
  }
  for (const section of sections) out.push(`## ${section.title}`, "", section.markdown.trimEnd(), "");

  out.push(
    "## Cost and time",
    "",
    "| Stage | Calls | Prompt tokens | Completion tokens | Cost |",
    "|---|---|---|---|---|",
  );
  for (const [stage, u] of Object.entries(run.usageByStage)) {
    out.push(
      `| ${stage} | ${u.calls} | ${u.prompt_tokens} | ${u.completion_tokens} | ${formatUsd(u.cost_usd)} |`,
    );
  }
  out.push("", "| Stage | Wall time |", "|---|---|");
  for (const t of run.timings)
    out.push(`| ${t.stage}${t.ok ? "" : " (failed)"} | ${(t.ms / 1000).toFixed(2)} s |`);
  out.push(
    `| search APIs (inside search) | ${(run.toolMs.search / 1000).toFixed(3)} s |`,
    `| patch application (inside patch) | ${(run.toolMs.apply / 1000).toFixed(3)} s |`,
    "",
  );
  if (run.indexStats) {
    out.push(
      `Index: ${Object.entries(run.indexStats)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(", ")}`,
      "",
    );
  }
  if (run.notes.length > 0) {
    out.push("## Notes", "", ...run.notes.slice(0, 30).map((n) => `- ${one(n)}`));
    if (run.notes.length > 30) out.push(`- ... and ${run.notes.length - 30} more`);
    out.push("");
  }
  out.push(
    "## Artifacts",
    "",
    "Every model call (`model-calls/`), each search round and its answer read as JSON (`search/`), each patch attempt (`patch/`) are in this folder.",
    "",
  );
  return `${out.join("\n")}\n`;
}
