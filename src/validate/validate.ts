import type { RepoConfig } from "../config/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import { compareRuns, type ValidationResult } from "./compare.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";

/**
 * Validates the patched tree in `workdir` against a baseline run taken before any patch.
 * A limit hit by the baseline itself means the suite cannot judge anything; that is reported.
 */
export async function validatePatched(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
  baseline: TestRun | null,
  signal?: AbortSignal,
): Promise<{ result: ValidationResult; run: TestRun | null }> {
  if (!baseline) return { result: compareRuns(null, null), run: null };
  const run = await runTestSuite(sandbox, workdir, config, signal);
  const result = compareRuns(baseline, run);
  if (baseline.exec.limit !== null) {
    result.status = "error";
    result.summary = `the test suite hit the ${baseline.exec.limit} limit before any patch; validation is not meaningful (${result.summary})`;
  }
  return { result, run };
}
