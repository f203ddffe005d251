import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The folder of prompt files (`prompts/` at the project root). */
export const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));

const cache = new Map<string, string>();

/** The text of `prompts/<name>.md`, read once per process. */
export function loadPromptFile(name: string): string {
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

/** Renders `prompts/<name>.md` with `inputs`; errors name the file. Each stage types its own inputs. */
export function renderPromptFile(name: string, inputs: object): string {
  try {
    return renderTemplate(loadPromptFile(name), inputs as Record<string, string | number>);
  } catch (err) {
    throw new Error(`prompts/${name}.md: ${(err as Error).message}`);
  }
}
