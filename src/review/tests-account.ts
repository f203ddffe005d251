/**
 * What the repository's tests did with a patch, as the reviewer reads it: which related tests ran, which
 * did not and why (over the time given to related tests, could not be judged, need the network), what
 * of the suite was not run, and a run that showed nothing. Facts of the validation that ran, never more:
 * a reviewer that approved on the reproducer alone is told when the repository's tests did not back it.
 */
import type { ValidationResult } from "../validate/compare.ts";

type Selected = NonNullable<ValidationResult["tests"]>["selected"][number];

const NOT_RUN: Record<NonNullable<Selected["run"]>, string> = {
  ran: "ran before and after the patch",
  "over-budget": "did not run: the time given to related tests ran out",
  "after-regression": "did not run: a regression was already shown",
  "unpatched-too-slow": "could not be judged: its run before the patch did not finish",
  "needs-network": "could not be judged: it needs the network, which is off",
};

const MAX_NAMED = 15;

export interface TestsAccount {
  /** The repository's tests left something unjudged: related tests that did not run, or no test at all. */
  gaps: boolean;
  /** Lines for the reviewer's prompt (test names and texts are the repository's: untrusted, quoted). */
  text: string;
}

const one = (s: string, max = 300) => s.replace(/\s+/g, " ").trim().slice(0, max);

/** The account of one validation, and whether it leaves the patch unjudged by the repository's tests. */
export function testsAccount(v: ValidationResult): TestsAccount {
  const lines: string[] = [];
  const selected = v.tests?.selected ?? [];
  const unrun = selected.filter((s) => (s.run ?? "ran") !== "ran");
  if (v.status === "passed" || v.status === "no-regressions") {
    lines.push(
      v.counted
        ? `- The tests ran before and after the patch (${v.counted.before} before, ${v.counted.after} after) and none that passed before fails now.`
        : "- The tests ran before and after the patch and none that passed before fails now.",
    );
  } else if (v.status === "no-tests") {
    lines.push(`- No test of the repository judged the patch: ${one(v.summary)}.`);
  } else if (v.status === "could-not-run" || v.status === "error") {
    lines.push(`- The tests could not be run as evidence: ${one(v.summary)}.`);
  } else {
    lines.push(`- ${one(v.summary)}.`);
  }
  if (v.tests) lines.push(`- How the tests were chosen: ${one(v.tests.why)}.`);
  for (const s of selected.slice(0, MAX_NAMED)) {
    const why = s.reasons.length > 0 ? ` (${one(s.reasons.join(", "), 120)})` : "";
    lines.push(`  - \`${one(s.target, 200)}\`${why}: ${NOT_RUN[s.run ?? "ran"]}`);
  }
  if (selected.length > MAX_NAMED) lines.push(`  - ... and ${selected.length - MAX_NAMED} more`);
  if (v.tests?.notRun) lines.push(`- Not run: ${one(v.tests.notRun, 1000)}.`);
  const stillRelated = v.stillFailingRelated ?? [];
  if (stillRelated.length > 0)
    lines.push(
      `- Related tests that failed before the patch and still fail: ${stillRelated.slice(0, 10).join(", ")}.`,
    );
  const gaps =
    unrun.length > 0 ||
    stillRelated.length > 0 ||
    v.status === "no-tests" ||
    v.status === "could-not-run" ||
    v.status === "error";
  return { gaps, text: lines.join("\n") };
}
