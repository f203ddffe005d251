export {
  type Candidate,
  type Selection,
  STATUS_ORDER,
  selectCandidate,
  statusRank,
  type ValidationEvidence,
} from "./select.ts";
export { type SelectInput, type SelectOutcome, selectStage } from "./stage.ts";
