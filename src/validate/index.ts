export {
  compareRuns,
  type RunSummary,
  type TestsRan,
  showsFix,
  summarize,
  type ValidationResult,
  type ValidationStatus,
} from "./compare.ts";
export { mergeResults, mergeRuns } from "./merge-runs.ts";
export type { ParsedTests, TestOutcome } from "../runners/parts/results.ts";
export { parseTestOutput, resultsOf } from "./output.ts";
export { runSetup, runTestSuite, type SetupRun, type TestRun } from "./run-tests.ts";
export { DiffApplyError, reproducerRunKey, TreeStates, testRunKey } from "./tree-states.ts";
export { validatePatched } from "./validate.ts";
export { type OwnerOf, PristineTests } from "./baseline.ts";
export { type CandidateInput, type CandidateValidation, validateCandidate } from "./targeted.ts";
export { mostRelatedLimitMs, SLOWDOWN_FACTOR, SLOWDOWN_GRACE_MS } from "./related-runs.ts";
export { type RankedTest, rankTests, TIERS, tierOf } from "./targets/rank.ts";
export { TestTimes } from "./test-times.ts";
export {
  suiteCommand,
  type TargetedCommand,
  targetedCommand,
  validTarget,
} from "./targets/runner-command.ts";
export {
  describeSelected,
  selectTests,
  suiteFor,
  type TestSelection,
  targetsNamedIn,
} from "./targets/select-tests.ts";
export { listTree } from "./targets/tree-listing.ts";
export { REASON_TEXT, type SelectedTest, type SelectReason } from "./targets/types.ts";
export { changedFilesOfDiff } from "./targets/diff-files.ts";
export {
  candidateRun,
  toValidationOutcome,
  type ValidateStageInput,
  validateDiff,
  validateStage,
} from "./stage.ts";
export { type AddedTestCheck, addedTestChanges, checkAddedTest } from "./added-test.ts";
export { failureMessages, formatFailures, type TestFailure } from "./failure-messages.ts";
export { prepareSetup, type SetupCacheUse } from "./setup-step.ts";
