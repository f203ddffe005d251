import { capId } from "./text-scan.ts";

export type TestOutcome = "passed" | "failed" | "skipped";

/**
 * Per-test outcomes read from a runner's output, keyed by a stable test id. Every parser of test output
 * is linear in its input: test output is written by the repository's code and may be crafted.
 */
export interface ParsedTests {
  parser: string;
  tests: Map<string, TestOutcome>;
  /** Set when the input was cut to its cap before parsing: what was left out. */
  note?: string;
}

const worse = (a: TestOutcome | undefined, b: TestOutcome): TestOutcome =>
  a === "failed" || b === "failed" ? "failed" : a === "passed" || b === "passed" ? "passed" : b;

/** Records an outcome under an id cut to its cap; a test seen twice keeps the worse outcome. */
export function put(map: Map<string, TestOutcome>, id: string, outcome: TestOutcome): void {
  const key = capId(id);
  map.set(key, worse(map.get(key), outcome));
}
