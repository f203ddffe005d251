import type { RunnerResults } from "../parts/results.ts";
import { parseJUnitConsole } from "./results-console.ts";
import type { JUnitTool } from "./tools.ts";

/** JUnit 4's entry for a class that could not be loaded or run, and Gradle's for a class-level failure. */
const CLASS_ENTRIES = [".initializationError", ".classMethod"];

/**
 * Results of JUnit tests, whatever runs them: the XML reports are read by the run itself (Maven and
 * Gradle write them on their own); the lines each tool prints on its console for single tests are the
 * fallback.
 */
const shared: RunnerResults = {
  parseOutput: (output) => {
    const r = parseJUnitConsole(output);
    return r.tests.size > 0 ? r : null;
  },
  loadedName: (id) => {
    const end = CLASS_ENTRIES.find((e) => id.endsWith(e));
    return end ? id.slice(0, -end.length) : null;
  },
  tellsStoppedFile: false,
  failureReport: { header: /^(?:Tests run:.*FAIL|\[ERROR\])/ },
};

/** The part for each tool that runs JUnit tests (what they share is written once and spread in). */
export const results: Readonly<Record<JUnitTool, RunnerResults>> = {
  maven: shared,
  gradle: shared,
  junit: shared,
};
