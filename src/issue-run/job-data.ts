import { z } from "zod";

/** What the handler stores in `JobSpec.data` for the worker (validated again when the job runs). */
export const RunDataSchema = z.object({
  cloneUrl: z.string(),
  defaultBranch: z.string(),
  /** The ref to clone (a ref named in the issue) or the default branch. */
  ref: z.string(),
  statusCommentId: z.number().int(),
  run: z.number().int().positive(),
  maxRuns: z.number().int().positive(),
  trigger: z.string(),
  maxCostUsd: z.number().positive(),
  /** The model budget this run reserved from the repository's daily spend (given back as used). */
  spend: z.object({ key: z.string(), reservedUsd: z.number().nonnegative() }).optional(),
  testCommand: z.string().optional(),
  /** The previous run's reviewer advice (retries only). */
  previousAdvice: z.string().optional(),
  /** The comment holding the command (retry), to react on. */
  commandCommentId: z.number().int().optional(),
  /** The issue's run history as the status comment's marker holds it. */
  issueState: z.object({
    runs: z.number().int(),
    advice: z.string().optional(),
    pull: z.number().int().optional(),
    delivery: z.string().optional(),
  }),
  title: z.string(),
});
export type RunData = z.infer<typeof RunDataSchema>;
