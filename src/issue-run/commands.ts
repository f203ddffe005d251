import { sanitizeUntrusted } from "../core/untrusted-text.ts";

/** Commands in untrusted comment text, and the ref an issue names; both read after hidden text is removed. */

export type Command = { kind: "retry"; guidance: string } | { kind: "cancel" };

const MAX_GUIDANCE = 4000;

/**
 * A comment is a command when its first non-empty line starts with `/retry` or `/cancel` (quoted lines
 * and text after an ordinary first line are not commands). `/retry` takes the rest of the comment as
 * guidance.
 */
export function parseCommand(body: string): Command | null {
  const text = sanitizeUntrusted(body).trim();
  const m = /^\/(retry|cancel)(?=\s|$)([\s\S]*)$/i.exec(text);
  if (!m) return null;
  if (m[1]!.toLowerCase() === "cancel") return { kind: "cancel" };
  return { kind: "retry", guidance: m[2]!.trim().slice(0, MAX_GUIDANCE) };
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
