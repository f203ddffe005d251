import type { RepoConfig } from "../config/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import { compareRuns, type ValidationResult } from "./compare.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";

/**
 * Validates the patched tree in `workdir` against a baseline run taken before any patch.
 * A limit hit by the baseline itself means the suite cannot judge anything; that is reported.
 * With `pristine` (the unpatched tree), its test configuration is put back first and the summary names
 * what was restored: the tests run as the unpatched tree configures them.
 */
export async function validatePatched(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
  baseline: TestRun | null,
  signal?: AbortSignal,
  pristine?: string,
): Promise<{ result: ValidationResult; run: TestRun | null }> {
  if (!baseline) return { result: compareRuns(null, null), run: null };
  const run = await runTestSuite(sandbox, workdir, config, signal, pristine ? { pristine } : {});
  const result = compareRuns(baseline, run);
  if (run?.restored && run.restored.length > 0) {
    result.summary += `; the patch changed test configuration, which was put back as the unpatched tree has it before the tests ran: ${run.restored.join(", ")}`;
  }
  if (baseline.exec.limit !== null) {
    result.status = "error";
    result.summary = `the test suite hit the ${baseline.exec.limit} limit before any patch; validation is not meaningful (${result.summary})`;
  }
  return { result, run };
}
