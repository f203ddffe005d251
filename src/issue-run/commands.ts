import { sanitizeUntrusted } from "../core/untrusted-text.ts";

/** Commands in untrusted comment text, and the ref an issue names; both read after hidden text is removed. */

export type Command =
  | { kind: "retry"; guidance: string }
  | { kind: "auto-fix"; guidance: string }
  | { kind: "cancel" }
  | { kind: "ci" };

const MAX_GUIDANCE = 4000;

/**
 * A comment is a command when its first non-empty line starts with `/retry`, `/auto-fix`, `/cancel` or
 * `/ci` (quoted lines and text after an ordinary first line are not commands). `/retry` and `/auto-fix`
 * take the rest of the comment as guidance. `/ci` approves running the repository's CI on the app's
 * branch.
 */
export function parseCommand(body: string): Command | null {
  const text = sanitizeUntrusted(body).trim();
  const m = /^\/(retry|auto-fix|cancel|ci)(?=\s|$)([\s\S]*)$/i.exec(text);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  if (name === "cancel") return { kind: "cancel" };
  if (name === "ci") return { kind: "ci" };
  return { kind: name === "auto-fix" ? "auto-fix" : "retry", guidance: m[2]!.trim().slice(0, MAX_GUIDANCE) };
}

/**
 * True when a review body or a line comment asks for a run: a line of its own that starts with `/retry`
 * (a review often says more around it). Read after hidden text is removed.
 */
export function asksForRetry(body: string): boolean {
  return /^[ \t]*\/retry(?=\s|$)/im.test(sanitizeUntrusted(body));
}

/** A ref named in the issue (`ref: v1.2`, `branch: release-1`), when it looks like a safe git ref. */
export function refFromIssue(body: string): string | undefined {
  const m = /^\s*(?:auto-fix\s+)?(?:ref|branch)\s*:\s*`?([A-Za-z0-9._/-]{1,100})`?\s*$/im.exec(
    sanitizeUntrusted(body),
  );
  const ref = m?.[1];
  if (!ref || ref.includes("..") || ref.startsWith("/") || ref.startsWith("-") || ref.endsWith(".lock")) {
    return undefined;
  }
  return ref;
}
