import type { RunnerResults } from "../parts/results.ts";
import { JS_FAILURE_REPORT, jsResults } from "../shared/results-js.ts";

/** vitest: its default and verbose reporters (the default names each failure, and every test of a failing file). */
export const results: RunnerResults = { ...jsResults("vitest"), failureReport: JS_FAILURE_REPORT };
