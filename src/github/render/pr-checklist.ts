/**
 * The parts of the pull request body that speak to the reviewer: what changed since the previous run
 * (a retry), and the short checklist at the end (what to look at before merging).
 */
import { codeFence, inertProse, inlineCode } from "../../core/inert-markdown.ts";
import type { FixResult } from "../../contract/result.ts";
import { validationVerdict } from "../../contract/validation-verdict.ts";

/** How a run's patch and guidance compare with the previous run's (facts gathered by the runner). */
export interface ChangeSinceLast {
  patch:
    | { kind: "unchanged"; run: number }
    | { kind: "same-as"; run: number; previous: number }
    | { kind: "changed"; previous: number; interdiff: string | null };
  /** The previous run's guidance (null: it had none) and this run's (null: none). */
  guidanceBefore: string | null;
  guidanceNow: string | null;
}

/** One sentence on the patch compared with the previous run's, for the body and the retry comment. */
export function patchChangeSentence(run: number, since: ChangeSinceLast): string {
  const p = since.patch;
  if (p.kind === "unchanged")
    return `The patch is unchanged: run ${run} wrote the same patch as run ${p.run}.`;
  if (p.kind === "same-as")
    return `The patch differs from run ${p.previous}'s, but it is the same patch as run ${p.run}.`;
  return `The patch differs from run ${p.previous}'s${p.interdiff ? " (the inter-diff below shows how)" : ""}.`;
}

/** One sentence on what the guidance changed from the previous run. */
export function guidanceChangeSentence(since: ChangeSinceLast): string {
  const before = since.guidanceBefore?.trim() || null;
  const now = since.guidanceNow?.trim() || null;
  if (!before && !now) return "Neither run had guidance from a maintainer.";
  if (before === now) return "The guidance is the same as the previous run's.";
  if (!now)
    return `This run had no guidance; the previous one followed: ${inertProse(before!, { max: 500 })}`;
  if (!before) return "The previous run had no guidance; this run followed the guidance above.";
  return `The guidance changed; the previous run followed: ${inertProse(before, { max: 500 })}`;
}

/** The "Since the previous run" section of a retry's pull request body. */
export function changeLines(run: number, since: ChangeSinceLast, max: number): string[] {
  const lines = [
    "## Since the previous run",
    "",
    patchChangeSentence(run, since),
    "",
    guidanceChangeSentence(since),
    "",
  ];
  if (since.patch.kind === "changed" && since.patch.interdiff) {
    lines.push(
      "<details><summary>Inter-diff: the previous patch against this one</summary>",
      "",
      codeFence(since.patch.interdiff.slice(0, Math.min(max, 30_000)), "diff"),
      "",
      "</details>",
      "",
    );
  }
  return lines;
}

const diffFilesOf = (patch: string | null): string[] =>
  [...(patch ?? "").matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!.trim());

/**
 * What the maintainer should check before merging, as task-list items: behaviour beyond the issue, the
 * tests that could not run, files touched outside the located code, a missing regression test.
 */
export function checklist(r: FixResult, files: string[]): string[] {
  const items: string[] = [];
  const located = new Set(r.locations.map((l) => l.file));
  const test = r.regression_test?.status === "added" ? r.regression_test.path : null;
  const changed = (files.length > 0 ? files : diffFilesOf(r.patch)).filter((f) => f !== test);
  const outside = located.size > 0 ? changed.filter((f) => !located.has(f)) : [];
  items.push("The change does what the issue asks and nothing more: no other behaviour changes.");
  if (outside.length > 0)
    items.push(
      `The patch touches files outside the located code: ${outside.map((f) => inlineCode(f)).join(", ")}. Check why.`,
    );
  const val = r.validation;
  if (!val) items.push("The repository's tests did not run for this patch: run them before merging.");
  else {
    const v = validationVerdict(val);
    if (v.kind === "could-not-run" || v.kind === "tampered" || v.kind === "no-tests")
      items.push(
        "The repository's tests could not show this patch is safe (see Validation): run them before merging.",
      );
    else if (v.kind === "regressions" || v.kind === "still-failing")
      items.push("Some tests fail with this patch (see Validation): decide whether they matter.");
    else items.push("The tests that ran are the ones that matter for this change (see Validation).");
  }
  const t = r.regression_test;
  if (t?.status === "added")
    items.push(`The regression test ${inlineCode(t.path ?? "")} checks the behaviour the issue describes.`);
  else if (t?.covered_by?.length)
    items.push(
      `The repository's ${t.covered_by.length === 1 ? "test" : "tests"} ${t.covered_by
        .slice(0, 3)
        .map((x) => inlineCode(x))
        .join(
          ", ",
        )} already ${t.covered_by.length === 1 ? "fails" : "fail"} without the fix and ${t.covered_by.length === 1 ? "passes" : "pass"} with it: ${t.covered_by.length === 1 ? "it checks" : "they check"} the behaviour the issue describes.`,
    );
  else items.push("No regression test came with the fix (see Regression test): consider adding one.");
  if (r.review && !r.review.approved)
    items.push("The reviewer did not approve this patch: read its analysis above.");
  return ["## Before you merge", "", ...items.map((i) => `- [ ] ${i}`)];
}
