/**
 * The test runners auto-fix knows, by the name a repository's settings use (`validation.runner`).
 * Each has a folder of its own under `src/runners/` and an entry in `registry.ts`; JUnit's three
 * spellings (`maven`, `gradle`, plain `junit`) share one folder.
 */
export const RUNNER_NAMES = [
  "pytest",
  "unittest",
  "node-test",
  "jest",
  "vitest",
  "mocha",
  "go",
  "maven",
  "gradle",
  "junit",
  "ctest",
  "cargo",
] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];
