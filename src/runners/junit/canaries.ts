import type { RunnerCanaries } from "../parts/canaries.ts";
import type { JUnitTool } from "./tools.ts";

/**
 * No check tests are placed in JUnit runs yet (a Java test class would have to be compiled with the
 * repository's own tests, by each tool's rules): every such run reads "could not check", with this why.
 */
const none = (tool: JUnitTool): RunnerCanaries => ({
  canaries: { placed: false, why: `check tests are not placed for ${tool} runs` },
});

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const canaries: Readonly<Record<JUnitTool, RunnerCanaries>> = {
  maven: none("maven"),
  gradle: none("gradle"),
  junit: none("junit"),
};
