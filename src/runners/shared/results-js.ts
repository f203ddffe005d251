import type { ParsedTests, RunnerResults } from "../parts/results.ts";
import { fileOfEntry } from "./results-outcomes.ts";
import { parseSymbolReporter } from "./results-symbol-reporter.ts";
import { parseTap } from "./results-tap.ts";

/** The first of `parsers` whose result names a test, or null. */
export function firstNaming(
  output: string,
  parsers: readonly ((text: string) => ParsedTests)[],
): ParsedTests | null {
  for (const parse of parsers) {
    const r = parse(output);
    if (r.tests.size > 0) return r;
  }
  return null;
}

/**
 * The results part of a JavaScript runner whose reporters nest tests under suites (a symbol per test:
 * node's spec reporter, jest's and vitest's trees, mocha's spec) or write TAP; `parser` names the
 * reporter's dialect. A file that failed as a whole is the
 * file's entry (`fileEntryId`). Files run side by side: a stopped run does not tell which it was in.
 */
export function jsResults(parser: string): RunnerResults {
  return {
    parseOutput: (output) => firstNaming(output, [(t) => parseSymbolReporter(t, parser), (t) => parseTap(t)]),
    loadedName: fileOfEntry,
    tellsStoppedFile: false,
  };
}

/**
 * Report lines of the symbol reporters and TAP: a failure (`✖ name`, `× name`, mocha's `1) name`, jest's
 * `● suite › name`, ` FAIL  file`) and the next test's line.
 */
export const JS_FAILURE_REPORT = {
  header: /^(?:not ok \d+|\s*[✖×] |\s*\d+\) |\s*● |FAIL\s)/,
  boundary: /^(?:(?:not )?ok \d+|# Subtest:|\s*[✖✔×✓] )/,
};
