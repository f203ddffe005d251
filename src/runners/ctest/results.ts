import type { RunnerResults } from "../parts/results.ts";
import { parseCTest } from "./results-output.ts";

/** CTest's per-test lines, or GoogleTest's when a test binary ran by itself. */
export const results: RunnerResults = {
  parseOutput: (output) => {
    const r = parseCTest(output);
    return r.tests.size > 0 ? r : null;
  },
  // CTest names tests, never a file that failed to load: a test whose executable did not build is
  // reported as a test that did not run (a failure).
  loadedName: () => null,
  tellsStoppedFile: false,
  // `--output-on-failure` prints a failed test's output after its verdict line, up to the next test's.
  failureReport: {
    header: /^\s*(?:\d+\/\d+ )?Test +#\d+: \S+ [ .]*\*\*\*/,
    boundary: /^\s*(?:\d+\/\d+ )?Test +#\d+: |^\s*Start +\d+: |^\d+% tests passed/,
  },
  missingRunner: (output) =>
    /(?:^|\n)[^\n]*\b(ctest|cmake): (?:command )?not found/.test(output)
      ? "CMake's ctest is not installed in the sandbox (Debian: apt-get install cmake)"
      : null,
};
