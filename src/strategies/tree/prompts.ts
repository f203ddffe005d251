import { renderPromptFile } from "../../prompts/render.ts";

/** The typed inputs of the tree search's prompt files (`prompts/tree-*.md`). */
export interface TreePromptInputs {
  "tree-system": { format: string };
  "tree-expand": {
    guidance: string;
    issue: string;
    context: string;
    current: string;
    failure: string;
    attempt: string;
    tried: string;
  };
  "tree-attempt": { depth: number; reflection: string; diff: string; rating: string };
  "tree-reward-system": Record<string, never>;
  "tree-reward": { issue: string; before: string; reflection: string; diff: string; after: string };
}

export type TreePromptName = keyof TreePromptInputs;

export function renderTreePrompt<K extends TreePromptName>(name: K, inputs: TreePromptInputs[K]): string {
  return renderPromptFile(name, inputs);
}

/** `> ` before every line, for quoting model prose inside a prompt. */
export function quote(text: string): string {
  return (text.trim() || "(no reasoning given)")
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n> ");
}
