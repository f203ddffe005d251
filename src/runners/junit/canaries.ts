import type { RunnerCanaries } from "../parts/canaries.ts";
import type { JUnitTool } from "./tools.ts";

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const canaries: Readonly<Record<JUnitTool, RunnerCanaries>> = { maven: {}, gradle: {}, junit: {} };
