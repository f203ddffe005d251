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
  /**
   * Globs the default branch's configuration protects, for a run on another ref (whose own file the
   * pipeline reads): a patch may touch none of them either.
   */
  protectedPaths: z.array(z.string().min(1).max(1000)).max(500).optional(),
  /** The previous run's reviewer advice (retries only). */
  previousAdvice: z.string().optional(),
  /** The comment holding the command (retry), to react on. */
  commandCommentId: z.number().int().optional(),
  /** The review that started the run: its comments are the run's guidance and get an answer each. */
  review: z.object({ pull: z.number().int().positive(), id: z.number().int().positive() }).optional(),
  /** The failing head commit of the app's pull request that started an automatic run (`ci_retries`). */
  ci: z
    .object({
      pull: z.number().int().positive(),
      sha: z.string().min(1).max(64),
      /** The failing checks' names, as the CI report on the status comment named them. */
      failing: z.array(z.string().max(200)).max(100).default([]),
      /** Which automatic run this is, of how many `ci_retries` allows. */
      automatic: z.object({ run: z.number().int().positive(), of: z.number().int().positive() }).optional(),
    })
    .optional(),
  /** The model the repository picked from the operator's list (`model:` in `.github/auto-fix.yml`). */
  model: z.string().optional(),
  /** The issue's run history as the status comment's marker holds it. */
  issueState: z.object({
    runs: z.number().int(),
    advice: z.string().optional(),
    pull: z.number().int().optional(),
    delivery: z.string().optional(),
    ciRetries: z.number().int().optional(),
    patches: z
      .array(z.object({ run: z.number().int().positive(), sha: z.string() }))
      .max(20)
      .optional(),
    guidance: z.string().max(2000).optional(),
  }),
  title: z.string(),
  /**
   * When the repository's CI may run on what the run pushes: `approval` (the commit says `[skip ci]`
   * until a maintainer approves with `/ci` or an approving review) or `immediate`.
   */
  ciGate: z.enum(["approval", "immediate"]).default("approval"),
  /** Lines for the status comment from admission (a stranger's `ref:` that was left out). */
  notices: z.array(z.string().max(2000)).max(10).optional(),
});
export type RunData = z.infer<typeof RunDataSchema>;
