import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

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
  };
  "reproducer-feedback": { attempt: number; max: number; reason: string; output: string };
  "reproducer-rewrite": { analysis: string; advice: string };
  "review-system": Record<string, never>;
  "review-user": {
    issue: string;
    file: string;
    script: string;
    before: string;
    patch: string;
    after: string;
  };
  "review-retry": { problem: string };
  "review-patch-feedback": { analysis: string; advice: string; file: string; script: string; after: string };
  "review-validation-feedback": { command: string; summary: string; regressions: string; output: string };
}

export type ReviewPromptName = keyof ReviewPromptInputs;

const DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));
const cache = new Map<string, string>();

/**
 * Fills a prompt file: `{{name}}` is replaced by the input; `{{#name}}...{{/name}}` is kept only when the
 * input is non-empty. A placeholder without an input, or an input the file never uses, is an error.
 * Inserted text is never expanded again.
 */
export function renderReviewPrompt<K extends ReviewPromptName>(
  name: K,
  inputs: ReviewPromptInputs[K],
): string {
  let template = cache.get(name);
  if (template === undefined) {
    template = readFileSync(`${DIR}${name}.md`, "utf8");
    cache.set(name, template);
  }
  const values = inputs as Record<string, string | number>;
  const used = new Set<string>();
  const value = (key: string): string => {
    if (!(key in values)) throw new Error(`prompts/${name}.md: placeholder {{${key}}} has no input`);
    used.add(key);
    return String(values[key]);
  };
  let out = template.replace(
    /\{\{#(\w+)\}\}\n?([\s\S]*?)\{\{\/\1\}\}\n?/g,
    (_m, key: string, body: string) => (value(key).trim() ? body : ""),
  );
  out = out.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => value(key));
  for (const key of Object.keys(values)) {
    if (!used.has(key)) throw new Error(`prompts/${name}.md: input '${key}' is not used`);
  }
  return out.trimEnd();
}
