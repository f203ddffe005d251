import { z } from "zod";
import { sanitizeUntrusted } from "../core/untrusted-text.ts";

export interface Issue {
  title: string;
  body: string;
}

/** Most characters of issue text that reach a prompt; longer issues keep their head and tail. */
export const MAX_ISSUE_CHARS = 24_000;

/**
 * Cleans untrusted issue text for a prompt: what GitHub hides is removed (see `sanitizeUntrusted`, the
 * sanitiser the app and the pipeline share), and the ends are trimmed.
 */
export function sanitizeIssueText(text: string): string {
  return sanitizeUntrusted(text).trim();
}

/** Keeps the head and tail of an over-long text, saying how much was cut. */
export function capText(text: string, max: number, what = "text"): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n\n[... ${text.length - max} characters of the ${what} omitted ...]\n\n${text.slice(-tail)}`;
}

/**
 * The issue as prompt data: sanitised, capped, and fenced between markers that the text itself cannot
 * contain (any marker-like line inside is neutralised).
 */
export function fenceIssue(issue: Issue, maxChars = MAX_ISSUE_CHARS): string {
  const title = sanitizeIssueText(issue.title).replace(/\s+/g, " ");
  const body = capText(sanitizeIssueText(issue.body), maxChars, "issue").replace(
    /<\/?issue(-[a-z]+)?>/gi,
    (m) => m.replace("<", "‹").replace(">", "›"),
  );
  return `<issue>\n<issue-title>${title}</issue-title>\n<issue-body>\n${body || "(empty)"}\n</issue-body>\n</issue>`;
}

const jsonIssueSchema = z.object({
  title: z.string().default(""),
  body: z.string().nullable().default(""),
});

/**
 * Reads an issue file: JSON `{title, body}`, or plain text / markdown whose first line (a `#` heading or
 * the first non-empty line) is the title and the rest the body.
 */
export function parseIssueFile(text: string): Issue {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("{")) {
    try {
      const r = jsonIssueSchema.safeParse(JSON.parse(trimmed));
      if (r.success) return { title: r.data.title.trim(), body: (r.data.body ?? "").trim() };
    } catch {
      // not JSON after all: treat as text
    }
  }
  const lines = trimmed.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return { title: "", body: "" };
  const title = lines[first]!.replace(/^#+\s*/, "").trim();
  return {
    title,
    body: lines
      .slice(first + 1)
      .join("\n")
      .trim(),
  };
}

/** True when the issue says nothing a search could start from. */
export function isEmptyIssue(issue: Issue): boolean {
  return sanitizeIssueText(`${issue.title}\n${issue.body}`).replace(/\s+/g, "").length === 0;
}
