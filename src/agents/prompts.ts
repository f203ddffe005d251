import { loadPromptFile, renderPromptFile } from "../prompts/render.ts";

/** The typed inputs of every prompt file in `prompts/` (file name without `.md`). */
export interface PromptInputs {
  "search-system": Record<string, never>;
  "search-select": { issue: string; maintainer: string; apis: string; lead: string; project: string };
  "search-results": { results: string };
  "search-retry": { problem: string };
  "proxy-system": { apis: string };
  "proxy-user": { notes: string };
  "proxy-retry": { problem: string };
  "patch-system": { format: string };
  "patch-user": {
    issue: string;
    maintainer: string;
    context: string;
    /** "yes" when the answer may ask for more lines ("" or absent: it may not, and the rest are absent). */
    more_lines?: string;
    example?: string;
    requests?: number;
    per_request?: number;
  };
  "patch-more-lines": { lines: string };
  "patch-retry": { attempt: number; max: number; status: string; feedback: string };
  "patch-context-locations": { locations: string };
  "patch-context-history": { history: string };
}

export type PromptName = keyof PromptInputs;

export { PROMPTS_DIR, renderTemplate } from "../prompts/render.ts";

export function loadPromptTemplate(name: PromptName): string {
  return loadPromptFile(name);
}

export function renderPrompt<K extends PromptName>(name: K, inputs: PromptInputs[K]): string {
  return renderPromptFile(name, inputs);
}
