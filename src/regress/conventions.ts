import type { RepoConfig } from "../config/index.ts";
import { RUNNER_NAMES, RUNNERS, type Runner, type RunnerName, runnerFor } from "../runners/index.ts";
import type { PlanResult } from "../runners/parts/conventions.ts";

export type { PlanResult, TestPlan, TestVerdicts } from "../runners/parts/conventions.ts";

const isRunnerName = (name: string): name is RunnerName => (RUNNER_NAMES as readonly string[]).includes(name);

/**
 * The runner a regression test is written for: the repository's own, else the one its language's tests
 * are written for by default.
 */
function regressionRunner(config: RepoConfig): Runner | undefined {
  const fw = config.test.framework;
  if (isRunnerName(fw)) return runnerFor(fw);
  const lang = config.language;
  return RUNNERS.find((r) => r.regressionDefault && (r.languages as readonly string[]).includes(lang));
}

/**
 * The test plan for a patch changing `changed` (paths from the diff) in the tree at `root`, by the
 * runner's conventions (folder, file name, style, how to run the file alone), or why no regression test
 * can be planned (a runner this stage does not write for).
 */
export function planRegressionTest(root: string, config: RepoConfig, changed: string[]): PlanResult {
  const runner = regressionRunner(config);
  if (!runner) return { ok: false, reason: "the repository's test framework could not be told" };
  return runner.regression.plan(root, changed);
}
