import type { RunnerResults } from "../parts/results.ts";
import { JS_FAILURE_REPORT, jsResults } from "../shared/results-js.ts";

/** node --test: its spec reporter (the default on a terminal and off it since Node 23) or TAP. */
export const results: RunnerResults = { ...jsResults("node-test"), failureReport: JS_FAILURE_REPORT };
