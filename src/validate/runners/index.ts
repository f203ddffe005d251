import type { TestRunnerKind } from "../../config/index.ts";
import { mochaReportFlags } from "./mocha/options.ts";
import { nodeTestReportFlags } from "./node-test/options.ts";

/**
 * The runners whose knowledge lives in a folder of its own (`runners/<name>/`), and what each gives:
 * the words that make it write a per-test report file. Runners not listed are still handled by the
 * shared code of `targets/runner-command.ts`.
 */
export const REPORT_FLAGS: Partial<Record<TestRunnerKind, (report: string) => string[]>> = {
  mocha: mochaReportFlags,
  "node-test": nodeTestReportFlags,
};

/** The words that make `runner` write its report to `report`. */
export function reportFlags(runner: "mocha" | "node-test", report: string): string[] {
  return REPORT_FLAGS[runner]!(report);
}
