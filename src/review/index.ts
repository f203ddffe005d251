export { type ReviewPromptInputs, type ReviewPromptName, renderReviewPrompt } from "../prompts/review.ts";
export {
  type ReviewInput,
  ReviewUnavailable,
  type ReviewVerdict,
  reviewCandidate,
  reviewMessages,
  reviewVerdictSchema,
} from "./reviewer.ts";
