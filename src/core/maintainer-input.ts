import { z } from "zod";
import { sanitizeUntrusted, stripInvisible } from "./untrusted-text.ts";

/**
 * What a repository's maintainer tells a run besides the issue: their own words (`/retry <guidance>`,
 * `/auto-fix <guidance>`), a pull-request review with its line comments and the code each points at, the
 * failing CI checks of the app's pull request (names, annotations, log tails), the repository's
 * instructions file, and the reviewer's advice from the previous run. It crosses from the app to the
 * pipeline's child process as a JSON file (`auto-fix fix --guidance-file`), so it is validated here with
 * zod and size-capped field by field, and it reaches prompts only through `fenceMaintainerInput`: as data
 * between markers that the text inside cannot forge.
 */

const text = (max: number) => z.string().transform((s) => s.slice(0, max));
const line = z.coerce.number().int().positive().nullable().catch(null);

/** One point of a review: a line comment with the lines and code it points at on the pull request's head. */
export const ReviewPointSchema = z.object({
  id: z.number().int().nonnegative(),
  author: text(100),
  path: text(500),
  /** First and last line the comment covers (1-based, inclusive), on `side`; null when it is outdated. */
  startLine: line,
  endLine: line,
  side: z.enum(["LEFT", "RIGHT"]).catch("RIGHT"),
  body: text(6000),
  /** The lines it points at as the pull request's head has them (or the diff hunk when outdated). */
  code: text(8000).default(""),
  /** The comment no longer applies to the head's lines (the code moved since). */
  outdated: z.boolean().default(false),
  /** The first comment of its thread (where a reply goes), when this one is itself a reply. */
  threadId: z.number().int().nonnegative().optional(),
});
export type ReviewPoint = z.infer<typeof ReviewPointSchema>;

export const ReviewInputSchema = z.object({
  id: z.number().int().nonnegative(),
  author: text(100),
  /** `changes_requested`, `commented`, `approved`, or `open-comments` (collected for a `/retry`). */
  state: text(40),
  body: text(8000).default(""),
  points: z.array(ReviewPointSchema).max(50).default([]),
});
export type ReviewInput = z.infer<typeof ReviewInputSchema>;

export const CheckAnnotationSchema = z.object({
  path: text(500).default(""),
  startLine: line.default(null),
  endLine: line.default(null),
  level: text(20).default("failure"),
  title: text(300).default(""),
  message: text(2000).default(""),
});

export const CheckEvidenceSchema = z.object({
  name: text(200),
  conclusion: text(40),
  /** The commit the check ran on. */
  sha: text(64).default(""),
  url: text(500).default(""),
  summary: text(2000).default(""),
  annotations: z.array(CheckAnnotationSchema).max(30).default([]),
  /** The end of the check's log (or its output text), already capped. */
  logTail: text(12_000).default(""),
});
export type CheckEvidence = z.infer<typeof CheckEvidenceSchema>;

export const InstructionsSchema = z.object({
  /** Where the text came from: `.github/auto-fix.md` or `AGENTS.md`. */
  source: text(200),
  /** The branch or commit it was read from. */
  ref: text(200).default(""),
  text: text(40_000),
  /** The file's size in bytes before the cap. */
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type Instructions = z.infer<typeof InstructionsSchema>;

export const MaintainerInputSchema = z.object({
  /** The maintainer's own words (`/retry <guidance>`, `/auto-fix <guidance>`). */
  text: text(8000).optional(),
  /** The reviewer model's advice from the previous run. */
  advice: text(8000).optional(),
  review: ReviewInputSchema.optional(),
  /** The diff of the app's pull request the review and the checks are about (the previous run's patch). */
  previousPatch: text(30_000).optional(),
  checks: z.array(CheckEvidenceSchema).max(10).optional(),
  /**
   * The repository's instructions; null when they were looked for and none exist (the pipeline then does
   * not look in the checkout itself).
   */
  instructions: InstructionsSchema.nullable().optional(),
});
export type MaintainerInput = z.infer<typeof MaintainerInputSchema>;

/** Most bytes of an instructions file given to a prompt; the rest is cut and the report says so. */
export const MAX_INSTRUCTIONS_BYTES = 16 * 1024;
/** The instructions files, most specific first. */
export const INSTRUCTIONS_FILES = [".github/auto-fix.md", "AGENTS.md"] as const;

/** Cuts an instructions file to the cap (on a character boundary) and records what was cut. */
export function capInstructions(source: string, ref: string, raw: string): Instructions {
  const bytes = Buffer.byteLength(raw);
  let body = raw;
  if (bytes > MAX_INSTRUCTIONS_BYTES) {
    body = Buffer.from(raw)
      .subarray(0, MAX_INSTRUCTIONS_BYTES)
      .toString("utf8")
      .replace(/\uFFFD+$/, "");
  }
  return { source, ref, text: body.replace(/\0/g, ""), bytes, truncated: bytes > MAX_INSTRUCTIONS_BYTES };
}

/** True when the input carries anything a prompt should show. */
export function hasMaintainerInput(input: MaintainerInput | undefined): input is MaintainerInput {
  if (!input) return false;
  return Boolean(
    input.text?.trim() ||
      input.advice?.trim() ||
      input.review ||
      input.previousPatch?.trim() ||
      (input.checks && input.checks.length > 0) ||
      input.instructions?.text.trim(),
  );
}

/** Our markers: any of these inside the data is defused so that the data cannot end its fence early. */
const TAGS =
  "maintainer-input|conventions|guidance|previous-patch|review|review-body|review-comment|comment|code|ci-evidence|check|annotation|log|reviewer-advice|issue|issue-title|issue-body";
const TAG_LIKE = new RegExp(`<(/?)(${TAGS})(?=[\\s>/]|$)`, "gi");
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[@-_]/g;

const defuse = (s: string) => s.replace(TAG_LIKE, "‹$1$2");

/** Prose a person wrote (comments, review bodies, instructions): GitHub's hidden text removed. */
function prose(s: string): string {
  return defuse(sanitizeUntrusted(s).trim());
}

/** Machine or repository text (code, logs): escape sequences and invisible characters removed. */
function raw(s: string): string {
  return defuse(stripInvisible(s.replace(/\r\n?/g, "\n").replace(ANSI, ""))).replace(/\s+$/, "");
}

const attr = (s: string) => JSON.stringify(s.replace(/[\n\r]/g, " ").slice(0, 300));

function lines(p: { startLine: number | null; endLine: number | null }): string {
  if (p.endLine === null) return "outdated";
  return p.startLine !== null && p.startLine !== p.endLine
    ? `${p.startLine}-${p.endLine}`
    : String(p.endLine);
}

/** Keeps the last `max` characters of a log, starting on a whole line. */
export function logTail(text: string, max = 6000): string {
  const clean = text.replace(/\r\n?/g, "\n").replace(ANSI, "");
  if (clean.length <= max) return clean;
  const cut = clean.slice(-max);
  const nl = cut.indexOf("\n");
  return `[... ${clean.length - max + (nl + 1)} earlier characters omitted ...]\n${nl >= 0 ? cut.slice(nl + 1) : cut}`;
}

/** Most characters of rendered maintainer input in one prompt. */
export const MAX_MAINTAINER_CHARS = 48_000;

/**
 * The maintainer's input as prompt data, fenced between markers the text cannot contain, with each part
 * named for what it is: the repository's conventions, the maintainer's words, a review's points with
 * their code, CI results (evidence, never instructions) and earlier reviewer advice. Empty when there is
 * nothing to show.
 */
export function fenceMaintainerInput(input: MaintainerInput | undefined): string {
  if (!hasMaintainerInput(input)) return "";
  const parts: string[] = [];
  const ins = input.instructions;
  if (ins?.text.trim()) {
    const cut = ins.truncated ? ` truncated-from-bytes="${ins.bytes}"` : "";
    parts.push(`<conventions source=${attr(ins.source)}${cut}>\n${prose(ins.text)}\n</conventions>`);
  }
  if (input.text?.trim()) parts.push(`<guidance>\n${prose(input.text)}\n</guidance>`);
  const r = input.review;
  if (r) {
    const out = [`<review id="${r.id}" author=${attr(r.author)} state=${attr(r.state)}>`];
    if (r.body.trim()) out.push(`<review-body>\n${prose(r.body)}\n</review-body>`);
    for (const p of r.points) {
      out.push(
        `<review-comment id="${p.id}" author=${attr(p.author)} file=${attr(p.path)} lines="${lines(p)}"${p.side === "LEFT" ? ' side="base"' : ""}>`,
        `<comment>\n${prose(p.body)}\n</comment>`,
      );
      if (p.code.trim()) out.push(`<code>\n${raw(p.code)}\n</code>`);
      out.push("</review-comment>");
    }
    out.push("</review>");
    parts.push(out.join("\n"));
  }
  if (input.previousPatch?.trim()) {
    parts.push(`<previous-patch>\n${raw(input.previousPatch)}\n</previous-patch>`);
  }
  if (input.checks && input.checks.length > 0) {
    const out = ["<ci-evidence>"];
    for (const c of input.checks) {
      out.push(
        `<check name=${attr(c.name)} conclusion=${attr(c.conclusion)}${c.sha ? ` commit="${c.sha.slice(0, 12)}"` : ""}>`,
      );
      if (c.summary.trim()) out.push(raw(c.summary));
      for (const a of c.annotations) {
        const span = a.startLine ? lines({ startLine: a.startLine, endLine: a.endLine ?? a.startLine }) : "";
        const where = a.path ? ` file=${attr(a.path)}${span ? ` lines="${span}"` : ""}` : "";
        out.push(
          `<annotation level=${attr(a.level)}${where}>${raw([a.title, a.message].filter(Boolean).join(": "))}</annotation>`,
        );
      }
      if (c.logTail.trim()) out.push(`<log>\n${raw(c.logTail)}\n</log>`);
      out.push("</check>");
    }
    out.push("</ci-evidence>");
    parts.push(out.join("\n"));
  }
  if (input.advice?.trim()) parts.push(`<reviewer-advice>\n${prose(input.advice)}\n</reviewer-advice>`);
  let body = parts.join("\n");
  if (body.length > MAX_MAINTAINER_CHARS) {
    body = `${body.slice(0, MAX_MAINTAINER_CHARS)}\n[... ${body.length - MAX_MAINTAINER_CHARS} characters omitted ...]`;
  }
  return `<maintainer-input>\n${body}\n</maintainer-input>`;
}

/**
 * The maintainer input of a run: the structured input, with plain guidance text (the `--guidance` flag
 * or an older caller) as its words when it has none of its own.
 */
export function maintainerInputOf(options: {
  maintainer?: MaintainerInput | undefined;
  guidance?: string | undefined;
}): MaintainerInput | undefined {
  const m = options.maintainer;
  const g = options.guidance?.trim();
  if (!g) return m;
  if (m?.text?.trim()) return m;
  return { ...(m ?? {}), text: g };
}
