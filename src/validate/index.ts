export {
  compareRuns,
  type RunSummary,
  showsFix,
  summarize,
  type ValidationResult,
  type ValidationStatus,
} from "./compare.ts";
export {
  type ParsedTests,
  parseGoTest,
  parseJUnitXml,
  parsePytest,
  parseSymbolReporter,
  parseTap,
  parseTestOutput,
  parseUnittest,
  type TestOutcome,
} from "./parsers.ts";
export { runSetup, runTestSuite, type SetupRun, type TestRun } from "./run-tests.ts";
export { DiffApplyError, reproducerRunKey, TreeStates, testRunKey } from "./tree-states.ts";
export { validatePatched } from "./validate.ts";
export { toValidationOutcome, type ValidateStageInput, validateDiff, validateStage } from "./stage.ts";
