import { setFlagsFromString } from "node:v8";

let enabled = false;

/**
 * Longest pattern accepted. The linear engine's cost is the text's length times the pattern's size: a
 * 100 kB alternation against 256 kB of stderr runs for minutes. At this length it stays near a second.
 */
export const MAX_PATTERN_CHARS = 256;

/**
 * Compiles `pattern` for V8's linear-time engine (the `l` flag): matching costs time proportional to the
 * text times the pattern, never exponential, whatever the pattern. Patterns that engine cannot run
 * (backreferences, lookarounds) are refused with a message, not run by the backtracking engine.
 * For patterns written by strangers (a repository's configuration) matched against sandbox output.
 * Patterns longer than MAX_PATTERN_CHARS are refused too.
 */
export function linearRegExp(
  pattern: string,
  flags = "",
): { ok: true; re: RegExp } | { ok: false; message: string } {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return {
      ok: false,
      message: `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_CHARS} are accepted, so that matching it stays fast`,
    };
  }
  if (!enabled) {
    // Only makes the `l` flag known to the parser; no other regular expression changes.
    setFlagsFromString("--enable-experimental-regexp-engine");
    enabled = true;
  }
  try {
    return { ok: true, re: new RegExp(pattern, `${flags}l`) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      message: /linear time/.test(why)
        ? `the pattern ${JSON.stringify(pattern)} cannot be matched in linear time (backreferences, lookarounds and very large repetitions are not supported)`
        : `the pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${why}`,
    };
  }
}
