import type { RunnerConventions } from "../parts/conventions.ts";
import type { JUnitTool } from "./tools.ts";

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const conventions: Readonly<Record<JUnitTool, RunnerConventions>> = {
  maven: {},
  gradle: {},
  junit: {},
};
