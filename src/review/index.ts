export {
  type PatchProposal,
  type ReviewLoopDeps,
  type ReviewLoopOutcome,
  type ReviewRound,
  type RoundAction,
  runReviewLoop,
} from "./loop.ts";
export { type ReviewPromptInputs, type ReviewPromptName, renderReviewPrompt } from "./prompt-files.ts";
export {
  type ReviewInput,
  ReviewUnavailable,
  type ReviewVerdict,
  reviewCandidate,
  reviewMessages,
  reviewVerdictSchema,
} from "./reviewer.ts";
