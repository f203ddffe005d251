/**
 * Text from a sandboxed command, a repository or a model can carry terminal escape sequences (colour,
 * cursor movement, window titles, OSC 8 links, "clear screen"). The command line prints such text with
 * every C0 control except newline and tab, DEL, every C1 control, a carriage return not followed by a
 * newline, and the bidirectional overrides written as visible `\uXXXX` escapes, so that it cannot drive
 * the user's terminal or hide what it says. The escapes are valid inside JSON strings too.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

export function inertForTerminal(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** One line of untrusted text for a message: made inert, whitespace folded, cut to `max` characters. */
export function quoteForMessage(text: string, max = 200): string {
  const flat = inertForTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length - max} more characters)` : flat;
}
