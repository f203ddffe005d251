import type { JobSpec } from "../../../src/jobs/types.ts";

let n = 0;

/** A valid job spec; each call gets a fresh delivery id unless given one. */
export function spec(over: Partial<JobSpec> = {}): JobSpec {
  n += 1;
  return {
    deliveryId: `delivery-${process.pid}-${n}-${Math.random().toString(36).slice(2)}`,
    kind: "run",
    installationId: 7,
    owner: "octo",
    repo: "widgets",
    issueNumber: n,
    sender: "maintainer",
    ...over,
  };
}
