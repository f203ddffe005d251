import type { ChatMessage } from "./types.ts";

const NOTE_RE =
  /^\[(\d+) earlier message\(s\) of this conversation were removed to fit the context window\.\]$/;

/**
 * Makes a conversation shorter after the endpoint said it does not fit the context window.
 * First drops the oldest messages between the opening (system + first user message, which hold the
 * instructions and the issue) and the last two; once nothing is left to drop, shortens the longest message
 * to half, keeping its head and tail. Returns null when the conversation cannot get any shorter.
 */
export function trimHistory(messages: ChatMessage[]): { messages: ChatMessage[]; dropped: number } | null {
  const keepHead = messages[0]?.role === "system" ? 2 : 1;
  const keepTail = 2;
  const middle = messages.length - keepHead - keepTail;
  if (middle > 0) {
    // Drop about half of the middle (at least one user/assistant pair) so that a retry has a real chance.
    const head = messages.slice(0, keepHead);
    let rest = messages.slice(keepHead);
    let already = 0;
    const prior = NOTE_RE.exec(rest[0]?.content ?? "");
    if (prior) {
      already = Number(prior[1]);
      rest = rest.slice(1);
    }
    const candidates = rest.length - keepTail;
    if (candidates > 0) {
      const drop = Math.min(candidates, Math.max(2, Math.ceil(candidates / 2)));
      const note: ChatMessage = {
        role: "user",
        content: `[${already + drop} earlier message(s) of this conversation were removed to fit the context window.]`,
      };
      return { messages: [...head, note, ...rest.slice(drop)], dropped: drop };
    }
  }
  let longest = -1;
  for (let i = 0; i < messages.length; i++) {
    if (longest < 0 || messages[i]!.content.length > messages[longest]!.content.length) longest = i;
  }
  const target = messages[longest];
  if (!target || target.content.length < 2000) return null;
  const half = Math.floor(target.content.length / 4);
  const omitted = target.content.length - 2 * half;
  const content = `${target.content.slice(0, half)}\n[... ${omitted} characters omitted to fit the context window ...]\n${target.content.slice(-half)}`;
  const out = messages.map((m, i) => (i === longest ? { ...m, content } : m));
  return { messages: out, dropped: 1 };
}
