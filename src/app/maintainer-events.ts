import type { PullGitHub } from "../github/pull-port.ts";
import { type CheckTriggerEvent, handleCheckTrigger, parseCheckTrigger } from "./check-trigger.ts";
import type { DeliveryDeps, HandleOutcome } from "./handler.ts";
import { handleReviewTrigger, parseReviewTrigger, type ReviewTriggerEvent } from "./review-trigger.ts";

/** Where a delivery belongs: enough to authenticate as its installation and bind the ports. */
export interface DeliveryTarget {
  installationId: number;
  owner: string;
  repo: string;
}

export type MaintainerDeps = DeliveryDeps & { pulls: PullGitHub };

interface MaintainerEvent {
  parse(deliveryId: string, payload: unknown): DeliveryTarget | null;
  handle(event: DeliveryTarget, deps: MaintainerDeps): Promise<HandleOutcome>;
}

/**
 * The events a maintainer's work on the app's pull request arrives by (reviews, line comments, CI
 * results), by the name a held delivery is stored under: each one's payload parser and handler.
 */
export const MAINTAINER_EVENTS: Record<string, MaintainerEvent> = {
  "pull_request_review.submitted": {
    parse: (id, payload) => parseReviewTrigger(id, "review", payload),
    handle: (e, deps) => handleReviewTrigger(e as ReviewTriggerEvent, deps),
  },
  "pull_request_review_comment.created": {
    parse: (id, payload) => parseReviewTrigger(id, "review-comment", payload),
    handle: (e, deps) => handleReviewTrigger(e as ReviewTriggerEvent, deps),
  },
  "check_suite.completed": {
    parse: (id, payload) => parseCheckTrigger(id, "check-suite", payload),
    handle: (e, deps) => handleCheckTrigger(e as CheckTriggerEvent, deps),
  },
  "check_run.completed": {
    parse: (id, payload) => parseCheckTrigger(id, "check-run", payload),
    handle: (e, deps) => handleCheckTrigger(e as CheckTriggerEvent, deps),
  },
};
