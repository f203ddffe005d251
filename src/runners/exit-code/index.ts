export { anyRunnerResults } from "../shared/results-any-runner.ts";
export { EXIT_CODE_ONLY, exitCodeResults } from "./results.ts";
