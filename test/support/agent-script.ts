import type { ChatRequest, ScriptedReply, ScriptHandler } from "./scripted-model.ts";

export type AgentRole = "search" | "proxy" | "patch" | "other";

/** Which agent a request comes from, told by its system prompt (prompts/*-system.md). */
export function roleOf(req: ChatRequest): AgentRole {
  const sys = String(req.messages[0]?.content ?? "");
  if (sys.includes("turn an engineer's notes")) return "proxy";
  if (sys.includes("fixing a reported bug")) return "patch";
  if (sys.includes("investigating a bug report")) return "search";
  return "other";
}

type Reply = ScriptedReply | string;

export interface AgentScript {
  /** Replies of the search agent, in order (one per round: each analyses the results and chooses). */
  search: Reply[];
  /**
   * The proxy's reply to each request. Default: the JSON on the notes' last line starting with `JSON:`
   * (so a scripted search answer carries the structured form its proxy should extract), else garbage.
   */
  proxy?: (notes: string, req: ChatRequest) => Reply;
  /** Replies of the patch writer, in order. */
  patch: Reply[];
  /**
   * Replies to every other request (reproducer, reviewer, reward model). Default: the issue has no
   * reproducible example, so the reproduce and review stages stand aside.
   */
  other?: (req: ChatRequest, n: number) => Reply;
}

/** The default answer to the reproducer's first question. */
export const NO_REPRODUCIBLE_EXAMPLE = '{"has-reproducible-example": false}';

/** The default answer to the regression-test prompt: no test file (the test is left out). */
export const NO_REGRESSION_TEST = "I cannot write a regression test for this.";

export function proxyFromNotes(notes: string): string {
  const lines = notes.split("\n").filter((l) => l.trim().startsWith("JSON:"));
  const last = lines.at(-1);
  return last ? last.trim().slice("JSON:".length).trim() : "I cannot tell what the notes ask for.";
}

/**
 * A scripted-model handler that plays the three agents from separate queues. A queue that runs out
 * answers with a 500 naming the role, so a test sees an unexpected extra call.
 */
export function agentScript(script: AgentScript): ScriptHandler & { counts: Record<AgentRole, number> } {
  const counts: Record<AgentRole, number> = { search: 0, proxy: 0, patch: 0, other: 0 };
  const handler = (req: ChatRequest): Reply => {
    const role = roleOf(req);
    const i = counts[role]++;
    const missing = {
      status: 500,
      body: { error: { message: `scripted ${role} agent has no reply #${i + 1}` } },
    };
    if (role === "proxy") {
      const notesMsg = String(req.messages[1]?.content ?? "");
      return script.proxy ? script.proxy(notesMsg, req) : proxyFromNotes(notesMsg);
    }
    if (role === "search") return script.search[i] ?? missing;
    if (role === "patch") return script.patch[i] ?? missing;
    if (script.other) return script.other(req, i);
    // The regression-test stage: no test by default (the run goes on and says the test was left out).
    if (String(req.messages[0]?.content ?? "").startsWith("You write regression tests"))
      return NO_REGRESSION_TEST;
    return String(req.messages.map((m) => m.content).join("\n")).includes("has-reproducible-example")
      ? NO_REPRODUCIBLE_EXAMPLE
      : missing;
  };
  return Object.assign(handler, { counts });
}

/** A search answer in prose that ends with the JSON block the search prompt asks for. */
export function searchSays(prose: string, json: { API_calls?: string[]; bug_locations?: object[] }): string {
  return `${prose}\n\n\`\`\`json\n${JSON.stringify({ API_calls: json.API_calls ?? [], bug_locations: json.bug_locations ?? [] })}\n\`\`\`\n`;
}

/** A patch answer in the <file>/<original>/<patched> format. */
export function patchAnswer(
  file: string,
  original: string,
  patched: string,
  prose = "Here is the fix.",
): string {
  return `${prose}\n\n<file>${file}</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;
}
