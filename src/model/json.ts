import type { z } from "zod";

export type JsonExtraction<T> = { ok: true; value: T } | { ok: false; message: string };

/** Most characters of a model answer searched for JSON; the rest is not read (the answer says so). */
export const MAX_JSON_ANSWER_CHARS = 1024 * 1024;
/** Most candidate texts tried per answer (each costs a JSON.parse and a schema check). */
export const MAX_JSON_CANDIDATES = 64;
/** Most balanced spans collected per scan (the candidates tried are fewer still). */
const MAX_SPANS = 1024;
/** Starts from which an unbalanced `{` is retried on its own (each retry scans to the end at most). */
const MAX_BRACE_RETRIES = 8;

export interface FencedBlock {
  /** The word right after the opening fence (`python`, `json`), lower-cased; "" when none. */
  lang: string;
  /** The text between the fence lines. */
  code: string;
}

/**
 * Fenced blocks (```` ```lang ````, up to the next ```` ``` ````) in one left-to-right pass: the text after
 * an opening fence line is searched for its close once, and an answer with no closing fence costs one
 * scan, not one per opening fence.
 */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let i = text.indexOf("```");
  while (i !== -1) {
    const nl = text.indexOf("\n", i + 3);
    if (nl < 0) break;
    // Of several fences on one line, the last one opens the block (its info string runs to the newline).
    i = text.lastIndexOf("```", nl - 3);
    let j = i + 3;
    while (j < nl && /[\w+#.-]/.test(text[j]!)) j++;
    const lang = text.slice(i + 3, j).toLowerCase();
    const close = text.indexOf("```", nl + 1);
    if (close < 0) break;
    blocks.push({ lang, code: text.slice(nl + 1, close) });
    i = text.indexOf("```", close + 3);
  }
  return blocks;
}

/**
 * Balanced `{…}` spans in one pass (strings honoured inside a span; quotes in prose outside any span
 * are ignored): every outermost span that closes, and inside a span that never closes, the spans
 * nested in it that do. Returns where the outermost span that never closes starts, or -1.
 */
function balancedSpans(text: string, from: number, out: [number, number][]): number {
  const opens: number[] = [];
  // pending[d]: closed spans whose enclosing open is opens[d - 1] (dropped once that one closes too).
  const pending: [number, number][][] = [];
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === "{") opens.push(i);
    else if (opens.length === 0) continue;
    else if (ch === '"') inString = true;
    else if (ch === "}") {
      const start = opens.pop()!;
      const depth = opens.length;
      if (pending[depth + 1]) pending[depth + 1]!.length = 0;
      if (depth === 0) {
        out.push([start, i]);
        if (out.length >= MAX_SPANS) return -1;
      } else {
        let list = pending[depth];
        if (!list) {
          list = [];
          pending[depth] = list;
        }
        if (list.length < MAX_SPANS) list.push([start, i]);
      }
    }
  }
  if (opens.length === 0) return -1;
  // The spans that closed inside the ones that never did, outermost first.
  for (let d = 1; d <= opens.length; d++) for (const span of pending[d] ?? []) out.push(span);
  return opens[0]!;
}

/** Candidate JSON texts in a model answer: the whole text, fenced blocks, then balanced {...} spans. */
export function jsonCandidates(text: string): string[] {
  const out: string[] = [];
  const trimmed = text.trim();
  if (trimmed) out.push(trimmed);
  for (const b of fencedBlocks(text)) {
    const code = b.code.trim();
    if (code) out.push(code);
  }
  const spans: [number, number][] = [];
  let unclosed = balancedSpans(text, 0, spans);
  // A `{` in prose before the JSON leaves the scan inside a span that never closes (and may have read
  // a quote in prose as a string): retry from the next few `{` on their own.
  for (let r = 0; r < MAX_BRACE_RETRIES && unclosed >= 0; r++) {
    const next = text.indexOf("{", unclosed + 1);
    if (next < 0) break;
    unclosed = balancedSpans(text, next, spans);
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const seen = new Set<string>();
  for (const [s, e] of spans) {
    const key = `${s}:${e}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(text.slice(s, e + 1));
    if (out.length >= MAX_JSON_CANDIDATES * 2) break;
  }
  return [...new Set(out)].slice(0, MAX_JSON_CANDIDATES);
}

/** Removes trailing commas before } or ] (a common slip), outside strings; one pass. */
function dropTrailingCommas(s: string): string {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === ",") {
      let j = i + 1;
      while (j < s.length && (s[j] === " " || s[j] === "\n" || s[j] === "\t" || s[j] === "\r")) j++;
      if (s[j] === "}" || s[j] === "]") {
        out += s.slice(from, i);
        from = i + 1;
      }
      i = j - 1;
    }
  }
  return out + s.slice(from);
}

/**
 * Finds a JSON object in a model's answer (plain JSON, fenced, or embedded in prose) that satisfies
 * `schema`. Linear in the answer, which is read up to MAX_JSON_ANSWER_CHARS. The failure message is
 * written to go back to the model.
 */
export function extractJson<T>(answer: string, schema: z.ZodType<T>): JsonExtraction<T> {
  if (!answer.trim()) return { ok: false, message: "Your answer was empty. Answer with one JSON object." };
  const cut = answer.length > MAX_JSON_ANSWER_CHARS;
  const text = cut ? answer.slice(0, MAX_JSON_ANSWER_CHARS) : answer;
  const cutNote = cut
    ? ` Your answer was ${answer.length} characters long; only the first ${MAX_JSON_ANSWER_CHARS} were read.`
    : "";
  let lastSchemaError: string | null = null;
  // JSON.parse is linear, but many large candidates (nested spans, retries) add up: bound the total.
  let budget = 8 * MAX_JSON_ANSWER_CHARS;
  for (const cand of jsonCandidates(text)) {
    budget -= 2 * cand.length;
    if (budget < 0) break;
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
    return {
      ok: false,
      message: `Your JSON does not have the required shape: ${lastSchemaError}.${cutNote}`,
    };
  }
  return {
    ok: false,
    message: `Your answer contains no valid JSON object. Answer with one JSON object only.${cutNote}`,
  };
}
