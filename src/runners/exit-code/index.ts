export { anyRunnerResults } from "../shared/results-any-runner.ts";
export { exitCodeResults } from "./results.ts";
