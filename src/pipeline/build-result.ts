import type { FixState, PatchCandidate } from "../contract/pipeline.ts";
import { candidateVerdict } from "../contract/failures.ts";
import {
  type EvidenceReport,
  type ExecReport,
  type FixResult,
  FixResultSchema,
  type LocationReport,
  PIPELINE_STAGES,
  type PipelineStage,
  type MaintainerReport,
  type ReproducerReport,
  type ReviewReport,
  type UsageReport,
  type ValidationReport,
} from "../contract/result.ts";
import { plural } from "../core/words.ts";
export { execReport, RESULT_STREAM_CHARS } from "../contract/exec-report.ts";

/** The files a unified diff changes, in order. */
export function diffFiles(diff: string): string[] {
  const files: string[] = [];
  for (const m of diff.matchAll(/^\+\+\+ (?:b\/)?(.+)$/gm)) {
    const f = m[1]!.trim();
    if (f !== "/dev/null" && !files.includes(f)) files.push(f);
  }
  for (const m of diff.matchAll(/^--- (?:a\/)?(.+)$/gm)) {
    const f = m[1]!.trim();
    if (f !== "/dev/null" && !files.includes(f)) files.push(f);
  }
  return files;
}

/** The reviewer's report on the chosen candidate, without the reproducer (that is the result's own field). */
function reviewOf(c: PatchCandidate): ReviewReport | null {
  const r = c.review;
  if (!r) return null;
  const d = r.data;
  return {
    approved: r.approved,
    summary: r.summary,
    rounds: d?.rounds ?? 0,
    "patch-correct": d?.["patch-correct"] ?? null,
    "test-correct": d?.["test-correct"] ?? null,
    "patch-analysis": d?.["patch-analysis"] ?? null,
    "patch-advice": d?.["patch-advice"] ?? null,
    "test-analysis": d?.["test-analysis"] ?? null,
    "test-advice": d?.["test-advice"] ?? null,
    history: d?.history ?? [],
  };
}

function validationOf(c: PatchCandidate): ValidationReport | null {
  const v = c.validation;
  if (!v) return null;
  // Without test runs behind it (the tree search's own checks), only the verdict itself is known.
  const status = v.data?.status ?? (v.passed ? "passed" : v.regressions.length > 0 ? "regressions" : "error");
  return {
    passed: v.passed,
    shows_fix: v.showsFix,
    status,
    command: v.data?.command ?? null,
    regressions: v.regressions,
    fixed: v.data?.fixed ?? [],
    perTest: v.data?.perTest ?? false,
    before: v.data?.before ?? null,
    after: v.data?.after ?? null,
    summary: v.summary,
    ...(v.data?.tests ? { tests: v.data.tests } : {}),
    ...(v.data?.stillFailing ? { stillFailing: v.data.stillFailing } : {}),
    ...(v.data?.stillFailingRelated ? { stillFailingRelated: v.data.stillFailingRelated } : {}),
    ...(v.data?.counted ? { counted: v.data.counted } : {}),
    ...(v.data?.related !== undefined ? { related: v.data.related } : {}),
    ...(v.data?.integrity ? { integrity: v.data.integrity } : {}),
  };
}

/**
 * The reproducer as the reviewer saw it with the chosen patch: the script version it judged, that
 * script's run before any patch and its run after the chosen patch. Without a review of the chosen patch,
 * the reproduce stage's script and run, and no run after.
 */
function reproducerOf(state: FixState, chosen: PatchCandidate | null): ReproducerReport | null {
  const base = state.reproduction?.data;
  if (!base) return null;
  const seen = chosen?.review?.data?.reproducer;
  if (!seen) return { ...base, after: null };
  return {
    ...base,
    script: seen.script,
    before: seen.before,
    after: seen.after,
    ...(seen.evidence ? { evidence: seen.evidence } : {}),
  };
}

const exitText = (e: ExecReport): string =>
  e.limit
    ? `stopped by the ${e.limit} limit`
    : e.exitCode === null
      ? `killed by ${e.signal}`
      : `exit ${e.exitCode}`;

/** The unit a location names: `Class.method`, `method`, `Class`, or the file alone. */
const unitOf = (l: LocationReport): string => [l.class, l.method].filter(Boolean).join(".") || "the file";

/** One paragraph for people: what the run found and did, from the result's own fields. */
export function summarize(r: Omit<FixResult, "summary">): string {
  const parts: string[] = [];
  if (r.patch) {
    const files = diffFiles(r.patch);
    parts.push(`The patch changes ${files.length > 0 ? files.join(", ") : "the code"}.`);
  } else {
    parts.push(`No patch is proposed: ${r.reason}.`);
  }
  if (r.locations.length > 0) {
    const shown = r.locations.slice(0, 3).map((l) => `${l.file} (${unitOf(l)})`);
    const more = r.locations.length > 3 ? ` and ${r.locations.length - 3} more` : "";
    parts.push(`The search located the bug in ${shown.join(", ")}${more}.`);
  }
  const rep = r.reproducer;
  if (rep?.status === "reproduced" && rep.before) {
    const after = rep.after
      ? rep.after.exitCode === 0 && rep.after.limit === null
        ? ` and passes with the patch (${exitText(rep.after)})`
        : ` and still fails with the patch (${exitText(rep.after)})`
      : "";
    parts.push(`A reproducer script fails on the unpatched code (${exitText(rep.before)})${after}.`);
  } else if (rep?.status === "no-example") {
    parts.push("The issue has no reproducible example, so no reproducer was written.");
  } else if (rep) {
    parts.push(`The issue was not reproduced: ${rep.summary.replace(/\.$/, "")}.`);
  }
  const rv = r.review;
  if (rv) {
    if (rv["patch-correct"] !== null || rv["test-correct"] !== null) {
      parts.push(
        `The reviewer judged the patch ${rv["patch-correct"] === "yes" ? "correct" : "not correct"} and the reproducer ${rv["test-correct"] === "yes" ? "correct" : "not correct"} after ${rv.rounds} review round${rv.rounds === 1 ? "" : "s"}${rv.approved ? "" : "; the patch was not approved"}.`,
      );
    } else {
      parts.push(`The review gave no verdict: ${rv.summary.replace(/\.$/, "")}.`);
    }
  } else if (r.patch) {
    parts.push("No reviewer judged the patch (there was no reproducer to judge it with).");
  }
  const v = r.validation;
  if (v?.status === "tampered") {
    parts.push(`The repository's test run cannot be trusted: ${v.summary.replace(/\.$/, "")}.`);
  } else if (v?.status === "could-not-run" || v?.status === "error") {
    parts.push(`The repository's tests could not be run as evidence: ${v.summary.replace(/\.$/, "")}.`);
  } else if (v?.status === "no-tests") {
    parts.push(`The repository's tests did not judge the patch: ${v.summary.replace(/\.$/, "")}.`);
  } else if (v) {
    const regress =
      v.regressions.length > 0
        ? `${plural(v.regressions.length, "test")} that passed before ${v.regressions.length === 1 ? "fails or no longer runs" : "fail or no longer run"} after it`
        : "no test that ran before fails or goes missing after it";
    const counted = v.counted ? ` (${v.counted.before} before, ${v.counted.after} after)` : "";
    const fixed =
      v.fixed.length > 0
        ? `, ${plural(v.fixed.length, "failing test")} ${v.fixed.length === 1 ? "passes" : "pass"} with it`
        : "";
    const still =
      (v.stillFailingRelated?.length ?? 0) > 0
        ? `, and ${plural(v.stillFailingRelated!.length, "related test")} that failed before still ${v.stillFailingRelated!.length === 1 ? "fails" : "fail"}`
        : "";
    parts.push(
      `The repository's tests ran before and after the patch${counted}: ${regress}${fixed}${still}.`,
    );
  }
  const t = r.regression_test;
  if (t?.status === "added")
    parts.push(
      `A regression test (${t.path}) fails without the fix and passes with it${t.suite ? "; with it in place, every other test of the suite came out as without it" : ""}.`,
    );
  if (r.evidence?.not_fixed && r.patch)
    parts.push(`It is not marked fixed: ${r.evidence.not_fixed.replace(/\.$/, "")}.`);
  else if (r.evidence?.rests_on && r.status === "fixed")
    parts.push(`The fix rests on ${r.evidence.rests_on}.`);
  return parts.join(" ");
}

/** The chosen patch with the regression test's new file after it. */
const withTest = (diff: string, test: string | null): string =>
  test ? `${diff.endsWith("\n") ? diff : `${diff}\n`}${test}` : diff;

/** What the chosen patch's status rests on, from the same rule that decided it. */
function evidenceOf(c: PatchCandidate): EvidenceReport {
  const verdict = candidateVerdict(c);
  return {
    code_changed: c.codeChange?.changed ?? null,
    code: c.codeChange?.detail ?? "whether the patch changes code was not checked",
    rests_on: verdict.restsOn,
    not_fixed: verdict.notFixed,
    ...(c.scan ? { patch_findings: c.scan.findings, shared_literals: c.scan.shared } : {}),
  };
}

export interface ResultInputs {
  status: FixResult["status"];
  reason: string;
  state: FixState;
  usage: UsageReport;
  out: string;
  model: string | null;
  seconds: number;
  /** The maintainer input the run used and the answers to its review's comments, or null. */
  maintainer: MaintainerReport | null;
  /** The names of the stages that started (timed), in order; unknown names are left out. */
  stagesTried?: readonly string[];
}

/**
 * The run's result, built as the contract's type from the stages' typed outcomes (never by spreading
 * their records), and checked against the contract's schema before anything prints or saves it.
 */
export function buildResult(i: ResultInputs): FixResult {
  const chosen = i.state.chosen?.applicable ? i.state.chosen : null;
  const reproducer = reproducerOf(i.state, chosen);
  const base: Omit<FixResult, "summary"> = {
    status: i.status,
    patch: chosen ? withTest(chosen.result.diff, i.state.regression?.diff ?? null) : null,
    reproduced: i.state.reproduction ? i.state.reproduction.reproduced : null,
    review: chosen ? reviewOf(chosen) : null,
    validation: chosen ? validationOf(chosen) : null,
    reproducer,
    usage: {
      prompt_tokens: i.usage.prompt_tokens,
      completion_tokens: i.usage.completion_tokens,
      cost_usd: i.usage.cost_usd,
    },
    out: i.out,
    reason: i.reason,
    error: i.status === "error" ? i.reason : null,
    timed_out_after: null,
    model: i.model,
    locations: (i.state.search?.locations ?? []).map((l) => ({
      file: l.file,
      class: l.class ?? null,
      method: l.method ?? null,
      start: Math.max(1, l.start),
      end: Math.max(1, l.start, l.end),
      intendedBehavior: l.intendedBehavior ?? "",
    })),
    selection: i.state.chosenWhy || null,
    seconds: i.seconds,
    // Answers to review comments stand for a patch: without one there is nothing they describe.
    maintainer: i.maintainer && !chosen ? { ...i.maintainer, points: [] } : i.maintainer,
    evidence: chosen ? evidenceOf(chosen) : null,
    ...(chosen && i.state.regression ? { regression_test: i.state.regression.data } : {}),
    ...(i.stagesTried ? { stages_tried: stagesTried(i.stagesTried) } : {}),
  };
  return FixResultSchema.parse({ ...base, summary: summarize(base) });
}

function stagesTried(names: readonly string[]): PipelineStage[] {
  const known = new Set<string>(PIPELINE_STAGES);
  return [...new Set(names)].filter((n): n is PipelineStage => known.has(n));
}
