import { fencedBlocks, MAX_JSON_ANSWER_CHARS, MAX_JSON_CANDIDATES } from "../model/json.ts";

/**
 * The smallest model interface the reproducer and reviewer need. The pipeline's model port satisfies it
 * (same method and option names), so a scripted test model or the real client can be passed directly.
 */
export interface ChatMessageLike {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatModel {
  chat(
    messages: ChatMessageLike[],
    opts: { stage: string; json?: boolean; label?: string; signal?: AbortSignal },
  ): Promise<{ content: string }>;
}

/** Fenced code blocks of an answer, with their language tags (one linear pass). */
export function codeBlocks(text: string): { lang: string; code: string }[] {
  return fencedBlocks(text);
}

/** The first `{...}` object in a text that parses as JSON (plain, fenced or embedded in prose). */
export function firstJsonObject(answer: string): unknown {
  const text = answer.length > MAX_JSON_ANSWER_CHARS ? answer.slice(0, MAX_JSON_ANSWER_CHARS) : answer;
  const tries = [text.trim(), ...codeBlocks(text).map((b) => b.code.trim())].slice(0, MAX_JSON_CANDIDATES);
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) tries.push(text.slice(start, end + 1));
  for (const t of tries) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === "object" && v !== null) return v;
    } catch {
      // next candidate
    }
  }
  return undefined;
}
