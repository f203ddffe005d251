export { RUNNER_NAMES, type RunnerName } from "./names.ts";
export type { RunnerCanaries } from "./parts/canaries.ts";
export type { RunnerCommand } from "./parts/command.ts";
export type { RunnerConventions } from "./parts/conventions.ts";
export type { RunnerResults } from "./parts/results.ts";
export { RUNNERS, runnerFor } from "./registry.ts";
export type { Runner } from "./types.ts";
export { anyRunnerResults, exitCodeResults } from "./exit-code/index.ts";
