import { renderPromptFile } from "./render.ts";

/** The typed inputs of the reproducer and reviewer prompts in `prompts/` (file name without `.md`). */
export interface ReviewPromptInputs {
  "reproducer-system": Record<string, never>;
  "reproducer-has-example": { issue: string };
  "reproducer-write": {
    issue: string;
    language: string;
    file: string;
    command: string;
    language_notes: string;
    layout: string;
    version: string;
  };
  "reproducer-feedback": { attempt: number; max: number; reason: string; installs: string; output: string };
  "reproducer-rewrite": { analysis: string; advice: string };
  "review-system": Record<string, never>;
  "review-user": {
    issue: string;
    maintainer: string;
    file: string;
    script: string;
    before: string;
    patch: string;
    after: string;
    /** The patch scan's findings and shared literals, one per line; empty when it found nothing. */
    scan: string;
    pinned: string;
    /** What the repository's tests did with the patch (ran, did not run and why); empty before they ran. */
    tests: string;
  };
  "review-retry": { problem: string };
  "review-points-system": Record<string, never>;
  "review-points": { maintainer: string; patch: string; ids: string };
  "review-points-retry": { ids: string };
  "review-patch-feedback": { analysis: string; advice: string; file: string; script: string; after: string };
  "regression-test-write": {
    issue: string;
    patch: string;
    script: string;
    script_status?: string;
    environment: string;
    checked: string;
    framework: string;
    language: string;
    file: string;
    command: string;
    notes: string;
    example: string;
    example_path?: string;
  };
  "regression-test-feedback": { verdict: string; reason: string; which: string; output: string };
  "regression-test-scan": { findings: string };
  "review-validation-feedback": { command: string; summary: string; regressions: string; failures: string };
  "review-duplicate": { id: string; fate: string; guidance: string };
}

export type ReviewPromptName = keyof ReviewPromptInputs;

/** Fills `prompts/<name>.md` (see `renderTemplate` for the placeholder rules). */
export function renderReviewPrompt<K extends ReviewPromptName>(
  name: K,
  inputs: ReviewPromptInputs[K],
): string {
  return renderPromptFile(name, inputs);
}
