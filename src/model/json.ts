import type { z } from "zod";

export type JsonExtraction<T> = { ok: true; value: T } | { ok: false; message: string };

/** Candidate JSON texts in a model answer: the whole text, fenced blocks, then balanced {...} spans. */
export function jsonCandidates(text: string): string[] {
  const out: string[] = [];
  const trimmed = text.trim();
  if (trimmed) out.push(trimmed);
  for (const m of text.matchAll(/```[a-zA-Z]*\s*\n([\s\S]*?)```/g)) if (m[1]) out.push(m[1].trim());
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "{") continue;
    const end = balancedEnd(text, i);
    if (end > i) {
      out.push(text.slice(i, end + 1));
      i = end;
    }
  }
  return [...new Set(out)];
}

/** Index of the `}` closing the `{` at `start`, honouring strings; -1 when unbalanced. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Removes trailing commas before } or ] (a common slip), outside strings. */
function dropTrailingCommas(s: string): string {
  return s.replace(/,(\s*[}\]])/g, "$1");
}

/**
 * Finds a JSON object in a model's answer (plain JSON, fenced, or embedded in prose) that satisfies
 * `schema`. The failure message is written to go back to the model.
 */
export function extractJson<T>(text: string, schema: z.ZodType<T>): JsonExtraction<T> {
  if (!text.trim()) return { ok: false, message: "Your answer was empty. Answer with one JSON object." };
  let lastSchemaError: string | null = null;
  for (const cand of jsonCandidates(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(cand);
    } catch {
      try {
        parsed = JSON.parse(dropTrailingCommas(cand));
      } catch {
        continue;
      }
    }
    const r = schema.safeParse(parsed);
    if (r.success) return { ok: true, value: r.data };
    lastSchemaError = r.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`)
      .join("; ");
  }
  if (lastSchemaError) {
    return { ok: false, message: `Your JSON does not have the required shape: ${lastSchemaError}.` };
  }
  return {
    ok: false,
    message: "Your answer contains no valid JSON object. Answer with one JSON object only.",
  };
}
