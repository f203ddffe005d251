import type { RunnerResults } from "../parts/results.ts";
import { parseGoTest } from "./results-output.ts";

const PACKAGE = ".<package>";

/** `go test -json` events or `go test -v` lines. */
export const results: RunnerResults = {
  // `go test -json` events that name no test are a run that collected none, not a run without a
  // per-test report.
  parseOutput: (output) => {
    const r = parseGoTest(output);
    return r.tests.size > 0 || r.parser === "go-json" ? r : null;
  },
  loadedName: (id) => (id.endsWith(PACKAGE) ? id.slice(0, -PACKAGE.length) : null),
  tellsStoppedFile: false,
  // go test prints a test's messages before its verdict: from its `=== RUN` line to its `--- FAIL:`.
  failureReport: {
    header: /^--- FAIL:/,
    boundary: /^(?:--- (?:FAIL|PASS|SKIP):|=== RUN|-{3,} (?:FAIL|PASS))/,
    before: /^=== RUN/,
  },
};
