export { type ReviewPromptInputs, type ReviewPromptName, renderReviewPrompt } from "../prompts/review.ts";
export { answerPoints, type PointAnswer, PointAnswerSchema } from "./points.ts";
export {
  type ReviewInput,
  ReviewUnavailable,
  type ReviewVerdict,
  reviewCandidate,
  reviewMessages,
  reviewVerdictSchema,
} from "./reviewer.ts";
export {
  type PatchProposal,
  type ReviewLoopDeps,
  type ReviewLoopOutcome,
  type ReviewRound,
  type RoundAction,
  runReviewLoop,
} from "./loop.ts";
export { type ReviewStageInput, type ReviewStageResult, reviewStage } from "./stage.ts";
