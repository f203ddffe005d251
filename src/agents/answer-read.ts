import { fencedBlocks, jsonCandidates } from "../model/json.ts";
import { type ApiSpecLike, type ParsedCall, parseApiCall } from "./api-call.ts";
import { cleanLocation, type LocationRequest, proxyAnswerSchema, callText } from "./proxy-agent.ts";

/** What a search answer asks for, read from the answer itself (no second request). */
export interface AnswerReading {
  calls: ParsedCall[];
  locations: LocationRequest[];
  /** Problems with calls that could not be read (the model is told). */
  dropped: string[];
  /** Where it came from: the answer's JSON block, or calls written in the APIs' own syntax. */
  from: "json" | "calls";
}

/** Most calls read from one answer's prose (a longer list is most likely quoted text, not a request). */
export const MAX_CALLS_READ = 12;

const KEYS = /"(?:API_calls|bug_locations)"\s*:/;

/** The answer's JSON block: the last fenced block (or else the last JSON object) with our keys. */
function readJson(answer: string, specs: readonly ApiSpecLike[]): AnswerReading | null {
  if (!KEYS.test(answer)) return null;
  // Fenced blocks first, last first; then any JSON object in the answer (a string in the JSON may
  // itself hold a fence and cut the block short).
  const fenced = fencedBlocks(answer)
    .map((b) => b.code)
    .filter((c) => KEYS.test(c))
    .reverse();
  const texts = [...fenced, ...jsonCandidates(answer).reverse()];
  for (const t of texts) {
    if (!KEYS.test(t)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(t.trim());
    } catch {
      continue;
    }
    const parsed = proxyAnswerSchema.safeParse(raw);
    if (!parsed.success) continue;
    const calls: ParsedCall[] = [];
    const dropped: string[] = [];
    for (const c of parsed.data.API_calls) {
      const r = parseApiCall(callText(c), specs);
      if (r.ok) calls.push(r.call);
      else dropped.push(r.message);
    }
    const locations = parsed.data.bug_locations
      .map(cleanLocation)
      .filter((l): l is LocationRequest => l !== null);
    return { calls, locations, dropped, from: "json" };
  }
  return null;
}

/** Index just past the `)` closing the call whose `(` is at `open` (quotes honoured), or -1. */
function closeOf(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  const end = Math.min(text.length, open + 4000);
  for (let i = open; i < end; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === "\\" && text[i + 1] === quote) i++;
      else if (ch === quote) quote = null;
      else if (ch === "\n" && quote !== "`") return -1;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/** Calls written in the APIs' own syntax anywhere in the prose, e.g. `search_method("unescapeHTML")`. */
function readCalls(answer: string, specs: readonly ApiSpecLike[]): AnswerReading | null {
  const names = specs.map((s) => s.name).sort((a, b) => b.length - a.length);
  if (names.length === 0) return null;
  const re = new RegExp(`(?<![\\w.])(?:${names.join("|")})\\s*\\(`, "g");
  const calls: ParsedCall[] = [];
  const dropped: string[] = [];
  for (const m of answer.matchAll(re)) {
    const open = m.index + m[0].length - 1;
    const end = closeOf(answer, open);
    if (end < 0) continue;
    const r = parseApiCall(answer.slice(m.index, end), specs);
    if (!r.ok) dropped.push(r.message);
    else if (!calls.some((c) => c.text === r.call.text)) calls.push(r.call);
    if (calls.length > MAX_CALLS_READ) return null;
  }
  return calls.length > 0 ? { calls, locations: [], dropped, from: "calls" } : null;
}

/**
 * Reads the calls and bug locations a search answer asks for: its JSON block (authoritative: it may
 * give locations only, even where the prose quotes earlier calls), else calls written in the APIs' own
 * syntax in the prose. Null when the answer holds neither: only then is the proxy asked to read it.
 */
export function readSearchAnswer(answer: string, specs: readonly ApiSpecLike[]): AnswerReading | null {
  return readJson(answer, specs) ?? readCalls(answer, specs);
}
