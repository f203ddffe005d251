/**
 * What the runner checks (two planted tests run with the repository's, see docs/validation.md) showed, in
 * the same plain words wherever a run's evidence is shown (report.md, the pull request body). They show
 * that the runner was not ended, stubbed wholesale or made to report tests that did not run; they never
 * show that a patch is honest, so they are never put as a pass or an assurance.
 */
export interface RunnerIntegrity {
  state: "intact" | "tampered" | "unverified";
  detail: string;
}

/** The runner checks held: what they held against, and what they do not show. */
export const RUNNER_CHECKS_HELD =
  "two check tests added to the run (one that must fail, one that must pass and leave a file behind) were reported as they ran, so the test runner was not stopped early, replaced or made to report tests that did not run. This does not show that the patch is honest.";

/** The runner checks' own words made plain: the file a check test writes, not its "proof". */
export function plainChecks(text: string): string {
  return text
    .replace(/\b(its|the) proof file\b/g, "the file the check test writes")
    .replace(/\bproof\b/g, "file");
}

/** One line: `Runner checks: …` for the run after the patch; `detail` adds the checks' own words. */
export function runnerChecksLine(integrity: RunnerIntegrity, opts: { detail?: boolean } = {}): string {
  const why = plainChecks(integrity.detail.replace(/\.$/, ""));
  switch (integrity.state) {
    case "intact":
      return `Runner checks: ${RUNNER_CHECKS_HELD}${opts.detail ? ` (${why})` : ""}`;
    case "unverified":
      return `Runner checks: could not check: ${why}. Whether the runner reported the tests as they ran is not known.`;
    case "tampered":
      return `Runner checks: failed: ${why}. The runner's report of the tests cannot be trusted.`;
  }
}
