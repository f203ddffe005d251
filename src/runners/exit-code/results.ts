import type { RunnerResults } from "../parts/results.ts";
import { anyRunnerResults } from "../shared/results-any-runner.ts";

/**
 * Results for a command no runner is recognised in (a script, a Makefile, `npm test` running something
 * unknown): what it prints may still be a known runner's ordinary output, read by each runner's own
 * parser in the registry's order (the first that names a test wins); when none does, the run is its
 * exit code only, and the run says so ("only an exit code: its output named no single test"). Which
 * file a stopped run was in is not known.
 */
export const exitCodeResults: RunnerResults = {
  parseOutput: anyRunnerResults.parseOutput,
  loadedName: anyRunnerResults.loadedName,
  tellsStoppedFile: false,
};
