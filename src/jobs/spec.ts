import { z } from "zod";
import { UserError } from "../core/errors.ts";
import type { JobSpec } from "./types.ts";

const name = z.string().min(1).max(100);

export const jobSpecSchema = z.object({
  deliveryId: z.string().min(1).max(200),
  kind: z.enum(["run", "retry"]),
  installationId: z.number().int().nonnegative(),
  owner: name,
  repo: name,
  issueNumber: z.number().int().positive(),
  sender: z.string().min(1).max(100),
  guidance: z.string().max(20_000).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** Validates a spec before it is stored; a bad one is refused with a clear message, never stored. */
export function parseJobSpec(spec: unknown): JobSpec {
  const r = jobSpecSchema.safeParse(spec);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; ");
    throw new UserError(`invalid job: ${issues}`);
  }
  return r.data as JobSpec;
}

/** The (repo, issue) a job belongs to: GitHub names are case-insensitive. */
export function issueKey(owner: string, repo: string, issueNumber: number): string {
  return `${owner.toLowerCase()}/${repo.toLowerCase()}#${issueNumber}`;
}

/**
 * Delay before retry number `attempt` (1-based) of a retryable failure: doubling from `baseMs`, and no
 * sooner than the failure asked (`retryAfterMs`, e.g. GitHub's rate-limit reset); at most an hour.
 */
export function retryDelayMs(baseMs: number, attempt: number, retryAfterMs = 0): number {
  return Math.min(Math.max(baseMs * 2 ** Math.max(0, attempt - 1), retryAfterMs), 60 * 60 * 1000);
}
