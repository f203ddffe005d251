import { z } from "zod";

/**
 * The pipeline as the app sees it: the `auto-fix fix` command's contract. Its JSON result is read
 * leniently (extra fields are kept; fields the app renders are optional and shape-tolerant).
 */

const Exec = z
  .object({
    exit_code: z.number().nullable().optional(),
    exitCode: z.number().nullable().optional(),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    timed_out: z.boolean().optional(),
  })
  .loose();
export type ExecOutput = z.infer<typeof Exec>;

const Review = z
  .object({
    "patch-correct": z.string().optional(),
    "test-correct": z.string().optional(),
    "patch-analysis": z.string().optional(),
    "patch-advice": z.string().optional(),
    "test-analysis": z.string().optional(),
    "test-advice": z.string().optional(),
  })
  .loose();
export type Review = z.infer<typeof Review>;

const Location = z
  .object({
    file: z.string(),
    class: z.string().nullable().optional(),
    method: z.string().nullable().optional(),
    start: z.number().optional(),
    end: z.number().optional(),
    intended_behavior: z.string().optional(),
    intendedBehavior: z.string().optional(),
  })
  .loose();
export type BugLocation = z.infer<typeof Location>;

const Reproducer = z
  .object({
    script: z.string().optional(),
    path: z.string().optional(),
    command: z.string().optional(),
    before: Exec.optional(),
    after: Exec.optional(),
  })
  .loose();

const TestRun = z.object({ command: z.string().optional(), passed: z.number().optional() }).loose();

const Validation = z
  .object({
    command: z.string().optional(),
    ran: z.boolean().optional(),
    before: z.union([Exec, TestRun]).optional(),
    after: z.union([Exec, TestRun]).optional(),
    regressions: z.array(z.string()).optional(),
    passed: z.boolean().optional(),
    summary: z.string().optional(),
  })
  .loose();

export const FixResultSchema = z
  .object({
    status: z.enum(["fixed", "patched", "no-patch", "error"]),
    patch: z.string().nullable().default(null),
    reproduced: z.boolean().nullable().default(null),
    review: z
      .union([Review, z.array(Review)])
      .nullable()
      .default(null)
      .catch(null),
    validation: Validation.nullable().default(null).catch(null),
    usage: z
      .object({
        prompt_tokens: z.number().default(0),
        completion_tokens: z.number().default(0),
        cost_usd: z.number().default(0),
      })
      .default({ prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }),
    out: z.string().nullable().default(null),
    summary: z.string().optional().catch(undefined),
    reason: z.string().optional().catch(undefined),
    error: z.string().optional().catch(undefined),
    model: z.string().optional().catch(undefined),
    seconds: z.number().optional().catch(undefined),
    locations: z.array(Location).optional().catch(undefined),
    bug_locations: z.array(Location).optional().catch(undefined),
    reproducer: Reproducer.nullable().optional().catch(undefined),
    selection: z.string().optional().catch(undefined),
  })
  .loose();
export type FixResult = z.infer<typeof FixResultSchema>;

/** Progress the pipeline reports (stage names as in the status comment: indexed, reproduced, ...). */
export type StageReporter = (stage: string, note?: string) => void;

export interface PipelineRequest {
  /** The clone (a private checkout the app owns). */
  repoDir: string;
  /** The issue as a Markdown file (title, sanitized body, maintainer guidance, reviewer advice). */
  issueFile: string;
  /** Where the run writes its artifacts. */
  outDir: string;
  testCommand?: string;
  maxCostUsd: number;
  signal: AbortSignal;
  onStage: StageReporter;
}

/** Runs the repair pipeline on a clone. Rejects only on infrastructure failure; bad runs are results. */
export type Pipeline = (request: PipelineRequest) => Promise<FixResult>;

/** The last review when the pipeline returns the whole review history. */
export function lastReview(result: FixResult): Review | null {
  const r = result.review;
  if (Array.isArray(r)) return r[r.length - 1] ?? null;
  return r;
}
