import type { ArtifactRecorder } from "../model/recorder.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { type ApiSpecLike, describeApis, type ParsedCall } from "./api-call.ts";
import { codeFence } from "../core/inert-markdown.ts";
import { capText, fenceIssue, type Issue, sanitizeIssueText } from "./issue-text.ts";
import { renderPrompt } from "./prompts.ts";
import { readSearchAnswer } from "./answer-read.ts";
import { type LocationRequest, runProxy } from "./proxy-agent.ts";
import type { ResolvedLocationLike, SearchCallResult, SearchPort } from "./search-port.ts";

export const DEFAULT_ROUND_LIMIT = 15;
/** Consecutive rounds that only repeat earlier searches before the loop gives up. */
export const MAX_REPEAT_ROUNDS = 3;

export type SearchStatus =
  /** Bug locations resolved to real code. */
  | "located"
  /** The round limit came before usable locations. */
  | "round-limit"
  /** The model kept asking for searches it had already made. */
  | "repeating";

export interface CallRecord {
  call: string;
  ok: boolean;
  repeatedFrom: number | null;
  text: string;
}

export interface SearchRound {
  round: number;
  selection: string;
  /** The answer was read (from its own JSON block or call syntax, or by the proxy). */
  proxyOk: boolean;
  /** Where the calls and locations were read from; absent when the answer could not be read. */
  readFrom?: "json" | "calls" | "proxy";
  calls: CallRecord[];
  requested: LocationRequest[];
  resolved: number;
  note: string | null;
}

export interface SearchOutcome<L extends ResolvedLocationLike = ResolvedLocationLike> {
  status: SearchStatus;
  locations: L[];
  /** The locations as the model named them (for the report). */
  requested: LocationRequest[];
  rounds: SearchRound[];
  /** Search results the model saw, oldest first (used as patch context when nothing resolved). */
  results: { call: string; text: string }[];
  messages: ChatMessage[];
}

export interface SearchOptions {
  roundLimit?: number;
  /** Reproducer output, shown at the start as a lead. */
  lead?: string;
  /** The maintainer's input (conventions, review, CI evidence), already fenced as data. */
  maintainer?: string;
  /** Most characters of one round's results that go into the conversation. */
  maxResultChars?: number;
  recorder?: ArtifactRecorder;
  onRound?: (round: number, limit: number) => void;
}

function describeRequest(r: LocationRequest): string {
  return [
    r.file && `file ${r.file}`,
    r.class && `class ${r.class}`,
    r.method && `method ${r.method}`,
    r.add && `new code ${r.add}`,
    r.after && `after ${r.after}`,
  ]
    .filter(Boolean)
    .join(", ");
}

function roundMarkdown(r: SearchRound): string {
  const lines = [`# Search round ${r.round}`, "", "## Selection (search agent)", "", r.selection, ""];
  const how = { json: "its JSON block", calls: "the calls it wrote", proxy: "the proxy" };
  lines.push(r.readFrom ? `## Read from ${how[r.readFrom]}` : "## Proxy: could not extract calls", "");
  for (const c of r.calls) {
    const tag =
      c.repeatedFrom !== null
        ? ` (repeat of round ${c.repeatedFrom}, not run again)`
        : c.ok
          ? ""
          : " (no result)";
    lines.push(`### ${c.call}${tag}`, "", c.text, "");
  }
  if (r.requested.length > 0) {
    lines.push("## Bug locations named", "");
    for (const q of r.requested)
      lines.push(`- ${describeRequest(q)}: ${q.intended_behavior ?? "(no intended behavior)"}`);
    lines.push("", `Resolved to ${r.resolved} code unit(s).`, "");
  }
  if (r.note) lines.push("## Note", "", r.note, "");
  return lines.join("\n");
}

type RoundReading =
  | {
      ok: true;
      calls: ParsedCall[];
      locations: LocationRequest[];
      dropped: string[];
      from: "json" | "calls" | "proxy";
    }
  | { ok: false; message: string };

/**
 * The calls and locations of one search answer: read from the answer itself (its JSON block, or calls
 * in the APIs' syntax); only an answer that holds neither goes to the proxy, a second request.
 */
async function readRound(
  model: ModelPort,
  answer: string,
  specs: readonly ApiSpecLike[],
  tag: string,
  recorder: ArtifactRecorder | undefined,
): Promise<RoundReading> {
  const read = readSearchAnswer(answer, specs);
  if (read) {
    recorder?.writeJson(`search/read-${tag}.json`, {
      from: read.from,
      calls: read.calls.map((c) => c.text),
      bug_locations: read.locations,
      dropped: read.dropped,
    });
    return { ok: true, ...read };
  }
  const proxy = await runProxy(model, answer, specs, { label: `round-${tag}` });
  recorder?.writeJson(
    `search/proxy-${tag}.json`,
    proxy.ok
      ? {
          ok: true,
          json: proxy.json,
          calls: proxy.calls.map((c) => c.text),
          dropped: proxy.dropped,
          tries: proxy.tries,
        }
      : { ok: false, message: proxy.message, tries: proxy.tries, lastText: proxy.lastText },
  );
  return proxy.ok ? { ...proxy, from: "proxy" } : proxy;
}

/**
 * The search loop of the design (stage 3): the search agent chooses API calls and ends its answer with
 * them in a JSON block (read directly; the proxy only reads an answer that has neither block nor calls);
 * results go back with "analyse, then choose again" in one turn, until bug locations come without API
 * calls and resolve to real code, or the round limit. Model errors (budget, endpoint down) propagate;
 * every finished round is already on disk by then.
 */
export async function runSearch<L extends ResolvedLocationLike>(
  model: ModelPort,
  port: SearchPort<L>,
  issue: Issue,
  opts: SearchOptions = {},
): Promise<SearchOutcome<L>> {
  const limit = Math.max(1, opts.roundLimit ?? DEFAULT_ROUND_LIMIT);
  const maxResultChars = opts.maxResultChars ?? 16_000;
  const messages: ChatMessage[] = [
    { role: "system", content: renderPrompt("search-system", {}) },
    {
      role: "user",
      content: renderPrompt("search-select", {
        issue: fenceIssue(issue),
        maintainer: opts.maintainer ?? "",
        apis: describeApis(port.specs),
        project: port.project ?? "",
        lead: opts.lead ? codeFence(sanitizeIssueText(capText(opts.lead.trim(), 6000, "output"))) : "",
      }),
    },
  ];
  port.focus?.(`${issue.title}\n${issue.body}\n${opts.lead ?? ""}`);
  const rounds: SearchRound[] = [];
  const results: { call: string; text: string }[] = [];
  const seen = new Map<string, number>();
  /** Short stretches of code the search showed, oldest first. */
  const looked: { file: string; start: number; end: number }[] = [];
  let lastRequested: LocationRequest[] = [];
  let repeatRounds = 0;

  /** The verdict on the last search answer, given once it is read (the proxy judges its own). */
  let judgeLast: ((v: { usable: boolean; why?: string }) => void) | undefined;
  const ask = async (label: string): Promise<string> => {
    const res = await model.chat(messages, { stage: "search", label });
    judgeLast = res.judge;
    // Prose is judged by the proxy that reads it; only an empty answer is unusable on its face.
    if (!res.content.trim()) res.judge?.({ usable: false, why: "an empty answer" });
    const text = res.content.trim() ? res.content : "(empty answer)";
    messages.push({ role: "assistant", content: text });
    return text;
  };
  const tell = (content: string) => messages.push({ role: "user", content });
  const finish = (status: SearchStatus, locations: L[]): SearchOutcome<L> => {
    opts.recorder?.writeJson("search/outcome.json", {
      status,
      requested: lastRequested,
      locations,
      rounds: rounds.length,
    });
    return { status, locations, requested: lastRequested, rounds, results, messages };
  };
  const resolveEach = async (named: LocationRequest[]) => {
    // Each request goes with the short stretches of code the search showed: where the model was
    // looking, for a change outside any definition of a file it names.
    const requests = looked.length > 0 ? named.map((q) => ({ ...q, seen: [...looked] })) : named;
    let found: L[] = [];
    const misses: string[] = [];
    let repeated = false;
    for (const q of requests) {
      const locs = await port.resolve([q]);
      if (locs.length === 0) {
        const why = locs.unresolved?.[0]?.reason;
        misses.push(why ? `${describeRequest(q)}: ${why}` : describeRequest(q));
      }
      for (const l of locs) {
        if (!found.some((f) => f.file === l.file && f.start === l.start && f.end === l.end)) found.push(l);
        else repeated = true;
      }
    }
    // Two requests on the same code unit (a class for a new method and for an attribute): resolved
    // together, they make one location that shows what each points at.
    if (repeated) {
      const together = await port.resolve(requests);
      if (together.length > 0) found = [...together];
    }
    return { found, misses };
  };

  opts.onRound?.(1, limit);
  let selection = await ask("round-01-select");
  for (let round = 1; ; round++) {
    const tag = String(round).padStart(2, "0");
    const rec: SearchRound = {
      round,
      selection,
      proxyOk: false,
      calls: [],
      requested: [],
      resolved: 0,
      note: null,
    };
    rounds.push(rec);
    const proxy = await readRound(model, selection, port.specs, tag, opts.recorder);
    if (proxy.ok && proxy.from !== "proxy") {
      const usable = proxy.calls.length > 0 || proxy.locations.length > 0;
      judgeLast?.(usable ? { usable } : { usable, why: "neither a valid API call nor a bug location" });
    }
    const last = round >= limit;
    let feedback: string | null = null;
    let calls: ParsedCall[] = [];
    if (!proxy.ok) {
      feedback = `Your answer could not be turned into search calls or bug locations (${proxy.message.trim()})`;
    } else {
      rec.proxyOk = true;
      rec.readFrom = proxy.from;
      calls = proxy.calls;
      rec.requested = proxy.locations;
      if (proxy.locations.length > 0) lastRequested = proxy.locations;
      // Locations without calls end the search (seed 002); on the last round, locations always count.
      if (proxy.locations.length > 0 && (calls.length === 0 || last)) {
        const { found, misses } = await resolveEach(proxy.locations);
        rec.resolved = found.length;
        if (found.length > 0) {
          if (misses.length > 0) rec.note = `Not found in the repository: ${misses.join("; ")}.`;
          opts.recorder?.write(`search/round-${tag}.md`, roundMarkdown(rec));
          return finish("located", found);
        }
        feedback =
          `None of the bug locations you gave matches code in the repository (${misses.join("; ")}). ` +
          "Check the file, class and method names against the search results, or search for more context.";
      } else if (calls.length === 0) {
        feedback =
          proxy.dropped.length > 0
            ? `None of your API calls can be run:\n${proxy.dropped.map((d) => `- ${d}`).join("\n")}`
            : "You named neither search API calls nor bug locations.";
      }
    }
    if (feedback !== null) {
      rec.note = feedback;
      opts.recorder?.write(`search/round-${tag}.md`, roundMarkdown(rec));
      if (last) break;
      opts.onRound?.(round + 1, limit);
      tell(renderPrompt("search-retry", { problem: feedback }));
      selection = await ask(`round-${String(round + 1).padStart(2, "0")}-select`);
      continue;
    }
    // Run the calls; repeats are not run again, the model is told instead.
    const blocks: string[] = [];
    let fresh = 0;
    for (const call of calls) {
      const before = seen.get(call.text);
      if (before !== undefined) {
        const text =
          before === round
            ? "This call appears twice in your answer; it was run once (see its result above)."
            : `You already made this call in round ${before}; its result is earlier in this conversation. Do not repeat a search: try different arguments or another API.`;
        rec.calls.push({ call: call.text, ok: false, repeatedFrom: before, text });
        blocks.push(`Result of ${call.text}:\n${text}`);
        continue;
      }
      fresh++;
      seen.set(call.text, round);
      let res: SearchCallResult;
      try {
        res = await port.call(call.name, call.args);
      } catch (err) {
        res = { ok: false, text: `The search failed: ${(err as Error).message}` };
      }
      rec.calls.push({ call: call.text, ok: res.ok, repeatedFrom: null, text: res.text });
      // Matches past the display limit were not shown; a stretch longer than a few lines is a whole unit.
      for (const m of (res.matches ?? []).slice(0, 3)) if (m.end - m.start < 20) looked.push(m);
      results.push({ call: call.text, text: res.text });
      blocks.push(`Result of ${call.text}:\n${res.text}`);
    }
    if (proxy.ok && proxy.dropped.length > 0) {
      const text = `These calls could not be run:\n${proxy.dropped.map((d) => `- ${d}`).join("\n")}`;
      blocks.push(text);
      rec.note = text;
    }
    repeatRounds = fresh === 0 ? repeatRounds + 1 : 0;
    if (repeatRounds > 0)
      rec.note = `${rec.note ? `${rec.note}\n` : ""}Every call in this round repeated an earlier one.`;
    opts.recorder?.write(`search/round-${tag}.md`, roundMarkdown(rec));
    if (repeatRounds >= MAX_REPEAT_ROUNDS || last) break;
    opts.onRound?.(round + 1, limit);
    // One turn analyses the results and chooses: more calls, or the bug locations.
    tell(
      renderPrompt("search-results", { results: capText(blocks.join("\n\n"), maxResultChars, "results") }),
    );
    selection = await ask(`round-${String(round + 1).padStart(2, "0")}-select`);
  }
  // Out of rounds (or stuck): fall back to the last locations the model named, if any resolve.
  if (lastRequested.length > 0) {
    const { found } = await resolveEach(lastRequested);
    if (found.length > 0) return finish("located", found);
  }
  return finish(repeatRounds >= MAX_REPEAT_ROUNDS ? "repeating" : "round-limit", []);
}
