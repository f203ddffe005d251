import { z } from "zod";
import { extractJson } from "../model/json.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { type ApiSpecLike, type ParsedCall, describeApis, formatCall, parseApiCall } from "./api-call.ts";
import { renderPrompt } from "./prompts.ts";

/** A bug location as the model named it (before it is resolved to real code). */
export interface LocationRequest {
  file?: string;
  class?: string;
  method?: string;
  /** New code: the name of what to add (to `class`, or to the module `file`). */
  add?: string;
  /** New code: the existing member it goes after. */
  after?: string;
  intended_behavior?: string;
  /**
   * Short stretches of code the search showed the model (not the model's words): where in a named file
   * it was looking, a hint for a change outside any definition.
   */
  seen?: { file: string; start: number; end: number }[];
}

const text = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined ? undefined : String(v).trim() || undefined));

const callObject = z.object({
  name: z.string().optional(),
  api: z.string().optional(),
  args: z.union([z.array(z.union([z.string(), z.number()])), z.record(z.string(), z.unknown())]).optional(),
  arguments: z
    .union([z.array(z.union([z.string(), z.number()])), z.record(z.string(), z.unknown())])
    .optional(),
});

/** The proxy's JSON. Key names are fixed; lenient about nulls, numbers and call objects. */
export const proxyAnswerSchema = z.object({
  API_calls: z
    .array(z.union([z.string(), callObject]))
    .nullish()
    .transform((v) => v ?? []),
  bug_locations: z
    .array(
      z.object({
        file: text,
        class: text,
        method: text,
        add: text,
        after: text,
        intended_behavior: text,
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
});

export type ProxyAnswer = z.infer<typeof proxyAnswerSchema>;

export type ProxyOutcome =
  | {
      ok: true;
      calls: ParsedCall[];
      locations: LocationRequest[];
      /** The validated JSON, as recorded in the artifacts. */
      json: ProxyAnswer;
      /** Problems with calls that were dropped after the last try (empty normally). */
      dropped: string[];
      tries: number;
    }
  | { ok: false; message: string; tries: number; lastText: string };

export const PROXY_MAX_TRIES = 5;

/** A call given as an object ({name, args}) becomes call text so that one parser checks everything. */
export function callText(c: ProxyAnswer["API_calls"][number]): string {
  if (typeof c === "string") return c;
  const name = c.name ?? c.api ?? "";
  const args = c.args ?? c.arguments ?? [];
  const list = Array.isArray(args) ? args.map(String) : Object.values(args).map(String);
  return formatCall(name, list);
}

export function cleanLocation(l: ProxyAnswer["bug_locations"][number]): LocationRequest | null {
  const out: LocationRequest = {};
  if (l.file) out.file = l.file;
  if (l.class) out.class = l.class;
  if (l.method) out.method = l.method;
  if (l.add) out.add = l.add;
  if (l.after) out.after = l.after;
  if (l.intended_behavior) out.intended_behavior = l.intended_behavior;
  return out.file || out.class || out.method || out.add ? out : null;
}

/**
 * Turns the search agent's prose into validated API calls and bug locations. Invalid JSON, an unknown
 * API or a wrong argument count goes back to the proxy model with a precise message, up to `maxTries`.
 */
export async function runProxy(
  model: ModelPort,
  notes: string,
  specs: readonly ApiSpecLike[],
  opts: { maxTries?: number; label?: string } = {},
): Promise<ProxyOutcome> {
  const maxTries = opts.maxTries ?? PROXY_MAX_TRIES;
  const messages: ChatMessage[] = [
    { role: "system", content: renderPrompt("proxy-system", { apis: describeApis(specs) }) },
    { role: "user", content: renderPrompt("proxy-user", { notes: notes.trim() || "(the notes are empty)" }) },
  ];
  let lastProblem = "";
  let lastText = "";
  let best: Extract<ProxyOutcome, { ok: true }> | null = null;
  for (let tri = 1; tri <= maxTries; tri++) {
    const res = await model.chat(messages, {
      stage: "proxy",
      json: true,
      temperature: 0,
      label: `${opts.label ?? "proxy"}-try${tri}`,
    });
    lastText = res.content;
    const parsed = extractJson(res.content, proxyAnswerSchema);
    let problem: string;
    if (!parsed.ok) {
      problem = parsed.message;
      res.judge?.({ usable: false, why: "no JSON object of the required shape" });
    } else {
      const calls: ParsedCall[] = [];
      const errors: string[] = [];
      for (const c of parsed.value.API_calls) {
        const r = parseApiCall(callText(c), specs);
        if (r.ok) calls.push(r.call);
        else errors.push(r.message);
      }
      const locations = parsed.value.bug_locations
        .map(cleanLocation)
        .filter((l): l is LocationRequest => l !== null);
      const outcome = {
        ok: true as const,
        calls,
        locations,
        json: parsed.value,
        dropped: errors,
        tries: tri,
      };
      // An answer is usable when it names a valid call or a location; valid but empty JSON is not.
      const usable = calls.length > 0 || locations.length > 0;
      res.judge?.(
        usable
          ? { usable }
          : {
              usable,
              why: errors.length > 0 ? "only invalid API calls" : "neither API calls nor bug locations",
            },
      );
      if (errors.length === 0) return outcome;
      if (calls.length > 0 || locations.length > 0) best = outcome;
      problem = `Some API calls are invalid:\n${errors.map((e) => `- ${e}`).join("\n")}`;
    }
    lastProblem = problem;
    messages.push(
      { role: "assistant", content: res.content },
      { role: "user", content: renderPrompt("proxy-retry", { problem }) },
    );
  }
  if (best) return { ...best, tries: maxTries };
  return { ok: false, message: lastProblem, tries: maxTries, lastText };
}
