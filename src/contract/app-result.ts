import { z } from "zod";

/**
 * The pipeline as the app sees it: the `auto-fix fix --json` contract. The fields the contract fixes are
 * checked; `review` and `validation` stay opaque here and are read leniently by `describe.ts`.
 */
export const FixResultSchema = z
  .object({
    status: z.enum(["fixed", "patched", "no-patch", "error"]),
    patch: z.string().nullable().default(null),
    reproduced: z.boolean().nullable().default(null),
    review: z.unknown().default(null),
    validation: z.unknown().default(null),
    usage: z
      .object({
        prompt_tokens: z.number().default(0),
        completion_tokens: z.number().default(0),
        // null: the model's price is unknown (shown as "unknown", never as $0).
        cost_usd: z.number().nullable().default(0),
      })
      .default({ prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }),
    out: z.string().nullable().default(null),
    reason: z.string().optional().catch(undefined),
    summary: z.string().optional().catch(undefined),
    error: z.string().optional().catch(undefined),
    /** Set when the run hit its wall-clock limit and was killed: the limit, e.g. `30 minutes`. */
    timed_out_after: z.string().optional().catch(undefined),
    model: z.string().optional().catch(undefined),
    locations: z.unknown().optional(),
    bug_locations: z.unknown().optional(),
    reproducer: z.unknown().optional(),
  })
  .loose();
export type FixResult = z.infer<typeof FixResultSchema>;

/** Progress the pipeline reports (stage names as in the status comment: indexed, reproduced, ...). */
export type StageReporter = (stage: string, note?: string) => void;

export interface PipelineRequest {
  /** The clone (a checkout the app owns; the pipeline works on a private copy of it). */
  repoDir: string;
  /** The issue as a Markdown file (title, then the sanitized body). */
  issueFile: string;
  /** The maintainer's `/retry` guidance and the previous run's reviewer advice, when there are any. */
  guidance?: string;
  /** Where the run writes its artifacts. */
  outDir: string;
  testCommand?: string;
  maxCostUsd: number;
  signal: AbortSignal;
  onStage: StageReporter;
}

/** Runs the repair pipeline on a clone. Rejects only on infrastructure failure; bad runs are results. */
export type Pipeline = (request: PipelineRequest) => Promise<FixResult>;
