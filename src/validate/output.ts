import type { TestFramework } from "../config/index.ts";
import {
  exitCodeResults,
  RUNNER_NAMES,
  type RunnerName,
  type RunnerResults,
  runnerFor,
} from "../runners/index.ts";
import type { ParsedTests } from "../runners/parts/results.ts";
import {
  capHeadTail,
  MAX_TEST_OUTPUT_CHARS,
  MAX_TEST_OUTPUT_LINES,
} from "../runners/shared/results-text-scan.ts";

const isRunnerName = (name: string | null | undefined): name is RunnerName =>
  (RUNNER_NAMES as readonly string[]).includes(name ?? "");

/**
 * What the runner called `name` knows of its output; for a name that is no runner's (`npm`, `unknown`,
 * none), the exit-code fallback, which reads any runner's ordinary output and else says the run is its
 * exit code only.
 */
export const resultsOf = (name: TestFramework | string | null | undefined): RunnerResults =>
  isRunnerName(name) ? runnerFor(name) : exitCodeResults;

/**
 * Reads per-test results from a run's output with the parsers of its framework's runner; null when none
 * names a test. Output past MAX_TEST_OUTPUT_CHARS or MAX_TEST_OUTPUT_LINES is cut in the middle (head
 * and tail kept) and not parsed; the result's `note` says so.
 */
export function parseTestOutput(
  framework: TestFramework,
  stdout: string,
  stderr: string,
): ParsedTests | null {
  const results = resultsOf(framework);
  const own = results.reportStream === "stderr" ? stderr : results.reportStream === "stdout" ? stdout : null;
  if (own !== null) {
    const r = parseCapped(results, own);
    if (r) return r;
  }
  return parseCapped(results, `${stdout}\n${stderr}`);
}

function parseCapped(results: RunnerResults, output: string): ParsedTests | null {
  const { text, note } = capHeadTail(output, MAX_TEST_OUTPUT_CHARS, "The test output", MAX_TEST_OUTPUT_LINES);
  const r = results.parseOutput(text);
  return r && note ? { ...r, note } : r;
}
