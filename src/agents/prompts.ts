import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The typed inputs of every prompt file in `prompts/` (file name without `.md`). */
export interface PromptInputs {
  "search-system": Record<string, never>;
  "search-select": { issue: string; apis: string; lead: string };
  "search-analyze": { results: string };
  "search-analyze-select": Record<string, never>;
  "search-retry": { problem: string };
  "proxy-system": { apis: string };
  "proxy-user": { notes: string };
  "proxy-retry": { problem: string };
  "patch-system": { format: string };
  "patch-user": { issue: string; context: string };
  "patch-retry": { attempt: number; max: number; status: string; feedback: string };
  "patch-context-locations": { locations: string };
  "patch-context-history": { history: string };
}

export type PromptName = keyof PromptInputs;

export const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));

const cache = new Map<string, string>();

export function loadPromptTemplate(name: PromptName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(`${PROMPTS_DIR}${name}.md`, "utf8");
    cache.set(name, text);
  }
  return text;
}

/**
 * Fills a template: `{{name}}` is replaced by the input's text; `{{#name}}...{{/name}}` is kept only
 * when the input is non-empty. A placeholder without an input, or an input the template never uses, is
 * an error (so a prompt and its caller cannot drift apart silently).
 */
export function renderTemplate(template: string, inputs: Record<string, string | number>): string {
  const used = new Set<string>();
  const value = (key: string): string => {
    if (!(key in inputs)) throw new Error(`prompt placeholder {{${key}}} has no input`);
    used.add(key);
    return String(inputs[key]);
  };
  let out = template.replace(
    /\{\{#(\w+)\}\}\n?([\s\S]*?)\{\{\/\1\}\}\n?/g,
    (_m, key: string, body: string) => (value(key).trim() ? body : ""),
  );
  // Single pass over placeholders so that inserted text (e.g. an issue containing "{{x}}") is never expanded.
  out = out.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => value(key));
  for (const key of Object.keys(inputs)) {
    if (!used.has(key)) throw new Error(`prompt input '${key}' is not used by the template`);
  }
  return out.trimEnd();
}

export function renderPrompt<K extends PromptName>(name: K, inputs: PromptInputs[K]): string {
  try {
    return renderTemplate(loadPromptTemplate(name), inputs as Record<string, string | number>);
  } catch (err) {
    throw new Error(`prompts/${name}.md: ${(err as Error).message}`);
  }
}
