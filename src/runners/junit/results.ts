import type { RunnerResults } from "../parts/results.ts";
import type { JUnitTool } from "./tools.ts";

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const results: Readonly<Record<JUnitTool, RunnerResults>> = { maven: {}, gradle: {}, junit: {} };
