import type { RunnerResults } from "../parts/results.ts";
import { JS_FAILURE_REPORT, jsResults } from "../shared/results-js.ts";

/** jest: its default reporter (verbose or not: without --verbose, only the failures are named). */
export const results: RunnerResults = { ...jsResults("jest"), failureReport: JS_FAILURE_REPORT };
