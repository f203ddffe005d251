export { planRegressionTest, type PlanResult, type TestPlan } from "./conventions.ts";
export {
  diffFiles,
  newFileDiff,
  REGRESS_ATTEMPTS,
  type RegressStageInput,
  type RegressTree,
  regressStage,
} from "./stage.ts";
