import type { RunnerCommand } from "../parts/command.ts";
import type { JUnitTool } from "./tools.ts";

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const command: Readonly<Record<JUnitTool, RunnerCommand>> = { maven: {}, gradle: {}, junit: {} };
