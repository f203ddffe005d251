import { setFlagsFromString } from "node:v8";

let enabled = false;

/**
 * Compiles `pattern` for V8's linear-time engine (the `l` flag): matching costs time proportional to the
 * text times the pattern, never exponential, whatever the pattern. Patterns that engine cannot run
 * (backreferences, lookarounds) are refused with a message, not run by the backtracking engine.
 * For patterns written by strangers (a repository's configuration) matched against sandbox output.
 */
export function linearRegExp(
  pattern: string,
  flags = "",
): { ok: true; re: RegExp } | { ok: false; message: string } {
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
        ? `the pattern ${JSON.stringify(pattern)} cannot be matched in linear time (backreferences and lookarounds are not supported)`
        : `the pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${why}`,
    };
  }
}
