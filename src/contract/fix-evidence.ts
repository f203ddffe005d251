/**
 * When a run may say "fixed": the one rule, used by the linear pipeline, the tree search and the result
 * contract alike. The reviewer is the same untrusted model that wrote the patch, so its approval alone
 * never makes a run "fixed", and neither does the reproducer, which the model wrote too. Something that
 * ran and that the model did not write must show the bug gone: a repository test that failed before the
 * patch and passes after it; or the reproducer going red → green by a failed assertion whose runs went
 * through the patched lines (traced: reproducer-evidence.ts) together with related repository tests that
 * load the patched code and show no regression. The patch must change code (not only comments or
 * whitespace), the repository's tests must have run and been counted with no regression, no run may
 * have been tampered with, and no test that relates to the change may still fail.
 */
import { RUNNERS } from "../runners/index.ts";

/** The facts the rule reads, from a candidate or from a finished result. */
export interface EvidenceFacts {
  /** Whether the patch changes code once comments and whitespace are set aside (null: not known). */
  codeChanged: boolean | null | undefined;
  /** The reviewer's verdict: true approved, false not approved, undefined not reviewed. */
  reviewApproved: boolean | undefined;
  /** The reproducer failed on the unpatched code and exits 0 after the patch (the run shows it). */
  reproducerFixed: boolean;
  /** The validation's status, or undefined when the repository has no test command. */
  validationStatus: string | undefined;
  validationSummary?: string | undefined;
  /** The repository's tests show the fix: a test failed before the patch and passes after it. */
  testsShowFix: boolean;
  /** Those tests, by name (may be empty when only the verdict is known). */
  testsFixed: readonly string[];
  /** Tests that relate to the change, failed before the patch and still fail after it. */
  stillFailingRelated: readonly string[];
  /** Tests that ran and relate to the change (undefined: not known). */
  related: number | undefined;
  /** Whether the reproducer's runs can back "fixed" (reproducer-evidence.ts); absent: not judged, it cannot. */
  reproducerBacks?: { backs_fix: boolean; detail: string } | undefined;
  /** Related tests that ran and load the patched code (import a changed module, or share its Go package). */
  loading?: number | undefined;
  /**
   * What the patch scan found in the code the patch adds (src/scan): call-stack or environment reads,
   * runner state, test-library changes, process exits, each as "the patch reads the environment: `…` at
   * calc.py:3". Any finding keeps the patch from "fixed" (undefined: not scanned).
   */
  patchFindings?: readonly string[] | undefined;
}

/** The selection reasons (validate/targets) that mean a test loads the changed code. */
const LOADS = "imports a changed module";
const SAME_PACKAGE = "in a changed package";

/** How many selected tests that ran load the changed code; undefined when that cannot be told. */
export function loadingTests(
  tests: { runner: string | null; selected: { reasons: string[]; run?: string | undefined }[] } | undefined,
): number | undefined {
  // Without a runner the tests of the whole suite cannot be told apart.
  if (!tests || tests.runner === null) return undefined;
  // Where the runner compiles a package's tests with its code (Go), a test of the changed package loads
  // it; elsewhere a package is only a name.
  const compiled = RUNNERS.find((r) => r.name === tests.runner)?.packageTestsCompiledWithCode === true;
  return tests.selected.filter(
    (t) =>
      (t.run ?? "ran") === "ran" &&
      (t.reasons.includes(LOADS) || (compiled && t.reasons.includes(SAME_PACKAGE))),
  ).length;
}

export interface EvidenceVerdict {
  fixed: boolean;
  /** What "fixed" rests on (when fixed), in words for people. */
  restsOn: string | null;
  /** Why the run is not "fixed" although its patch applies (when not fixed). */
  notFixed: string | null;
}

const list = (ids: readonly string[]): string =>
  `${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}`;

export function judgeEvidence(f: EvidenceFacts): EvidenceVerdict {
  const no = (why: string): EvidenceVerdict => ({ fixed: false, restsOn: null, notFixed: why });
  if (f.codeChanged === false)
    return no("the patch changes no code: only comments or whitespace differ from the unpatched files");
  const s = f.validationStatus;
  const summary = f.validationSummary ? `: ${f.validationSummary}` : "";
  if (s === "tampered") return no(`the repository's test run cannot be trusted${summary}`);
  if (s === "regressions") return no(`the repository's tests show regressions${summary}`);
  if (s === "could-not-run")
    return no(
      f.validationSummary?.startsWith("tests could not be run")
        ? `the repository's ${f.validationSummary}`
        : `the repository's tests could not be run${summary}`,
    );
  if (s === "error") return no(`the repository's tests could not be judged${summary}`);
  if (f.stillFailingRelated.length > 0)
    return no(
      `tests that relate to the change failed before the patch and still fail after it: ${list(f.stillFailingRelated)}`,
    );
  if (f.patchFindings && f.patchFindings.length > 0)
    return no(
      `the patch holds code that can tell a test run from other use, which no check can vouch for: ${f.patchFindings.slice(0, 3).join("; ")}${f.patchFindings.length > 3 ? `; and ${f.patchFindings.length - 3} more` : ""}`,
    );
  const testsShow = (s === "passed" || s === "no-regressions") && f.testsShowFix;
  if (f.reviewApproved === false) return no("the reviewer did not approve the patch");
  if (f.reviewApproved === undefined && !testsShow)
    return no("no reviewer judged the patch and no test of the repository failed before it and passes after");
  if (!f.reproducerFixed && !testsShow)
    return no(
      "nothing that ran shows the bug gone: no reproducer failed before the patch and passed after, and no test of the repository did",
    );
  const backs = f.reproducerFixed && f.reproducerBacks?.backs_fix === true;
  const ran = s === "passed" || s === "no-regressions";
  if (!testsShow) {
    // Only the reproducer, the model's own script, shows the bug gone.
    const only = "shown only by the reproducer, which the model wrote";
    if (!backs)
      return no(
        `${only}, and it cannot back "fixed": ${f.reproducerBacks?.detail ?? "how it ran was not traced"}`,
      );
    if (ran && f.loading === undefined)
      return no(
        `${only}; which of the repository's tests load this code cannot be told (the tests that ran were not told apart: the test command names no runner auto-fix knows)`,
      );
    if (!ran || !f.loading)
      return no(
        `${only}; no test of the repository loads this code${s === undefined ? " (the repository has no test command)" : s === "no-tests" ? " (the repository has no test that runs for it)" : ""}`,
      );
  }
  const parts: string[] = [];
  if (testsShow)
    parts.push(
      f.testsFixed.length > 0
        ? `the repository's tests: ${list(f.testsFixed)} failed before the patch and ${f.testsFixed.length === 1 ? "passes" : "pass"} after it`
        : "the repository's tests: a test that failed before the patch passes after it",
    );
  if (backs)
    parts.push(
      "the reproducer, which failed by an assertion before the patch and passes after it, its runs going through the patched lines (traced)",
    );
  else if (f.reproducerFixed) parts.push("the reproducer, which failed before the patch and passes after it");
  if (!testsShow && f.loading)
    parts.push(
      f.loading === 1
        ? "the 1 related test that loads the patched code ran before and after the patch with no regression"
        : `the ${f.loading} related tests that load the patched code ran before and after the patch with no regression`,
    );
  else if (ran && f.related !== 0)
    parts.push(
      f.related === undefined
        ? "the repository's tests ran before and after the patch with no regression"
        : f.related === 1
          ? "the 1 related test ran before and after the patch with no regression"
          : `the ${f.related} related tests ran before and after the patch with no regression`,
    );
  return { fixed: true, restsOn: parts.join("; "), notFixed: null };
}

/** An ExecReport-like run: its exit code and the limit it hit. */
interface Ran {
  exitCode: number | null;
  limit: string | null;
}

/** The reproducer failed on the unpatched code and exits 0 (no limit hit) after the patch. */
export function reproducerShowsFix(before: Ran | null | undefined, after: Ran | null | undefined): boolean {
  if (!before || !after) return false;
  const failedBefore = before.exitCode !== 0 || before.limit !== null;
  return failedBefore && after.exitCode === 0 && after.limit === null;
}
