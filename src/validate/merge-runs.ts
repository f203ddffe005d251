import { plural } from "../core/words.ts";
import { mergeIntegrity } from "./canaries/index.ts";
import {
  compareRuns,
  countedClean,
  type RunSummary,
  type ValidationResult,
  type ValidationStatus,
} from "./compare.ts";
import { MAX_FAILURE_MESSAGES } from "./failure-messages.ts";
import type { TestRun } from "./run-tests.ts";

/** The runs of one tree put together (several batches of tests): every test, the time summed. */
export function mergeRuns(runs: readonly TestRun[]): TestRun | null {
  if (runs.length <= 1) return runs[0] ?? null;
  const perTest = runs.every((r) => r.tests !== null);
  const tests = perTest ? new Map<string, "passed" | "failed" | "skipped">() : null;
  for (const r of runs)
    for (const [id, o] of r.tests ?? []) if (tests?.get(id) !== "failed") tests?.set(id, o);
  const first = runs[0]!;
  const failedRun = runs.find((r) => r.exec.exitCode !== 0);
  const limited = runs.find((r) => r.exec.limit !== null);
  return {
    command: runs.map((r) => r.command).join(" + "),
    exec: {
      ...first.exec,
      exitCode: failedRun ? failedRun.exec.exitCode : 0,
      signal: (limited ?? failedRun ?? first).exec.signal,
      limit: limited?.exec.limit ?? null,
      truncated: runs.some((r) => r.exec.truncated),
      stdout: runs.map((r) => r.exec.stdout).join("\n"),
      stderr: runs.map((r) => r.exec.stderr).join("\n"),
      durationMs: runs.reduce((a, r) => a + r.exec.durationMs, 0),
    },
    tests,
    parser: first.parser,
    passed: runs.reduce((a, r) => a + r.passed, 0),
    failed: runs.reduce((a, r) => a + r.failed, 0),
    skipped: runs.reduce((a, r) => a + r.skipped, 0),
    restored: [...new Set(runs.flatMap((r) => r.restored ?? []))],
    notes: runs.flatMap((r) => r.notes ?? []),
    ...(runs.find((r) => r.perTestUnavailable)?.perTestUnavailable
      ? { perTestUnavailable: runs.find((r) => r.perTestUnavailable)!.perTestUnavailable! }
      : {}),
    ...mergeIntegrity(runs),
  };
}

const addSummaries = (a: RunSummary | null, b: RunSummary | null): RunSummary | null => {
  if (!a || !b) return a ?? b;
  const notes = [...(a.notes ?? []), ...(b.notes ?? [])];
  return {
    exitCode: a.exitCode !== 0 ? a.exitCode : b.exitCode,
    limit: a.limit ?? b.limit,
    passed: a.passed + b.passed,
    failed: a.failed + b.failed,
    skipped: a.skipped + b.skipped,
    parser: a.parser,
    durationMs: a.durationMs + b.durationMs,
    ...(notes.length > 0 ? { notes } : {}),
  };
};

/**
 * The comparisons of several batches of tests (each against the unpatched results of the same tests)
 * as one: a regression in any is a regression; an error in any (with no regression) is an error.
 */
export function mergeResults(results: readonly ValidationResult[]): ValidationResult {
  if (results.length === 1) return results[0]!;
  if (results.length === 0) return compareRuns(null, null);
  const has = (s: ValidationStatus) => results.some((r) => r.status === s);
  const counted = results.filter((r) => countedClean(r));
  // Tests that ran and were counted in some batches are evidence of those batches; a batch that could
  // not run is named in the summary, and judges nothing on its own.
  const status: ValidationStatus = has("tampered")
    ? "tampered"
    : has("regressions")
      ? "regressions"
      : has("error")
        ? "error"
        : counted.length > 0
          ? results.every(
              (r) => r.status === "passed" || r.status === "no-tests" || r.status === "could-not-run",
            )
            ? "passed"
            : "no-regressions"
          : has("could-not-run")
            ? "could-not-run"
            : "no-tests";
  const regressions = results.flatMap((r) => r.regressions);
  const failures = results.flatMap((r) => r.failures ?? []).slice(0, MAX_FAILURE_MESSAGES);
  const fixed = results.flatMap((r) => r.fixed);
  const stillFailing = results.flatMap((r) => r.stillFailing ?? []);
  const before = results.map((r) => r.before).reduce(addSummaries, null);
  const after = results.map((r) => r.after).reduce(addSummaries, null);
  const notable = results.filter((r) => r.status === status);
  const sum = (k: "before" | "after") => counted.reduce((a, r) => a + (r.counted?.[k] ?? 0), 0);
  const unrun = results.filter((r) => r.status === "could-not-run").map((r) => r.summary);
  const summary =
    status === "passed" || status === "no-regressions"
      ? `${plural(sum("before"), "test")} ran before the patch and ${sum("after")} after: ${after?.passed ?? 0} passed, ${after?.failed ?? 0} failed after the patch (before: ${before?.passed ?? 0} passed, ${before?.failed ?? 0} failed); no regressions${fixed.length > 0 ? `; ${fixed.length} fixed` : ""}${stillFailing.length > 0 ? `; ${stillFailing.length} still failing` : ""}${unrun.length > 0 ? `; in another batch ${unrun.join("; ")}` : ""}`
      : notable.map((r) => r.summary).join("; ");
  const integrity = mergeIntegrity(results.map((r) => (r.integrity ? { integrity: r.integrity } : {})));
  return {
    status,
    command:
      results
        .map((r) => r.command)
        .filter(Boolean)
        .join(" + ") || null,
    regressions,
    ...(failures.length > 0 ? { failures } : {}),
    fixed,
    ...(stillFailing.length > 0 ? { stillFailing } : {}),
    ...(counted.length > 0 ? { counted: { before: sum("before"), after: sum("after") } } : {}),
    ...integrity,
    perTest: results.every((r) => r.perTest),
    before,
    after,
    summary,
  };
}
