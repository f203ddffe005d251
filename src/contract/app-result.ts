import type { MaintainerInput } from "../core/maintainer-input.ts";
import type { FixResult } from "./result.ts";

/**
 * The pipeline as the app calls it: one request in, the result contract (`result.ts`) out. The app's
 * implementation runs `auto-fix fix --json` in a child process and parses its output with that schema.
 */

export type { FixResult } from "./result.ts";

/** Progress the pipeline reports (stage names as in the status comment: indexed, reproduced, ...). */
export type StageReporter = (stage: string, note?: string) => void;

export interface PipelineRequest {
  /** The clone (a checkout the app owns; the pipeline works on a private copy of it). */
  repoDir: string;
  /** The issue as a Markdown file (title, then the sanitized body). */
  issueFile: string;
  /** The maintainer's `/retry` guidance and the previous run's reviewer advice, when there are any. */
  guidance?: string;
  /**
   * The maintainer's input as typed data (their words, a review with its points, CI evidence, the
   * repository's instructions); when given, it is what the prompts show and `guidance` is not used.
   */
  maintainer?: MaintainerInput;
  /** The model the repository picked from the operator's allowed list. */
  model?: string;
  /** Where the run writes its artifacts. */
  outDir: string;
  testCommand?: string;
  /** Globs a patch may not touch besides those of the clone's own configuration. */
  protectedPaths?: string[];
  maxCostUsd: number;
  signal: AbortSignal;
  onStage: StageReporter;
}

/** Runs the repair pipeline on a clone. Rejects only on infrastructure failure; bad runs are results. */
export type Pipeline = (request: PipelineRequest) => Promise<FixResult>;
