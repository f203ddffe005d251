import type { RunnerResults } from "../parts/results.ts";

export const results: RunnerResults = {};
