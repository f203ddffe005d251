/** Parsing of untrusted issue and comment text: hidden content stripped, commands recognised. */

const HIDDEN_CHARS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u00AD]/g;

/** Removes HTML comments and invisible/bidi control characters; normalises line ends. */
export function sanitizeText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .replace(HIDDEN_CHARS, "")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "");
}

export type Command = { kind: "retry"; guidance: string } | { kind: "cancel" };

const MAX_GUIDANCE = 4000;

/**
 * A comment is a command when its first non-empty line starts with `/retry` or `/cancel` (quoted lines
 * and text after an ordinary first line are not commands). `/retry` takes the rest of the comment as
 * guidance.
 */
export function parseCommand(body: string): Command | null {
  const text = sanitizeText(body).trim();
  const m = /^\/(retry|cancel)(?=\s|$)([\s\S]*)$/i.exec(text);
  if (!m) return null;
  if (m[1]!.toLowerCase() === "cancel") return { kind: "cancel" };
  return { kind: "retry", guidance: m[2]!.trim().slice(0, MAX_GUIDANCE) };
}

/** A ref named in the issue (`ref: v1.2`, `branch: release-1`), when it looks like a safe git ref. */
export function refFromIssue(body: string): string | undefined {
  const m = /^\s*(?:auto-fix\s+)?(?:ref|branch)\s*:\s*`?([A-Za-z0-9._/-]{1,100})`?\s*$/im.exec(
    sanitizeText(body),
  );
  const ref = m?.[1];
  if (!ref || ref.includes("..") || ref.startsWith("/") || ref.startsWith("-") || ref.endsWith(".lock")) {
    return undefined;
  }
  return ref;
}
