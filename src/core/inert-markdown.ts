/**
 * Text from the model, from issue authors or from a repository (its file names, test ids, test output)
 * shown in a pull request or a comment, rendered inert: it cannot close an issue (`Closes #7`), mention a
 * user or team (`@org/team`), link, embed an image, or add HTML or Markdown structure.
 *
 * Markdown surfaces show it as code: GitHub links no mention, reference or URL inside code, counts no
 * closing keyword there, and renders no Markdown or HTML in it. A code span or block is delimited by a
 * backtick run longer than any inside the text, so the text cannot end it. Plain-text surfaces (a pull
 * request title, a commit message: no code there) get the characters that start references and
 * mentions replaced by visible look-alikes that GitHub does not read as such (`＃7`, `＠user`).
 * Prose (a reviewer's analysis, a reason, guidance) reads better as text than as code: `inertProse`
 * escapes every character that starts Markdown or HTML structure and swaps the starts of references,
 * mentions and links for the same look-alikes, so it renders as the words it holds and nothing more.
 * Nothing here adds invisible characters.
 */

function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 96) {
      run++;
      if (run > longest) longest = run;
    } else {
      run = 0;
    }
  }
  return longest;
}

/** A fenced code block that `text` cannot close: its fence is longer than any backtick run inside. */
export function codeFence(text: string, lang = ""): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
  const info = /^[\w+#.-]{0,30}$/.test(lang) ? lang : "";
  // A lone carriage return ends a line in Markdown too: line ends are made plain.
  const body = text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
  return `${fence}${info}\n${body}\n${fence}`;
}

/** Collapses whitespace to single spaces and clips to `max` characters. */
export function oneLine(text: string, max = 300): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One line of untrusted text as a code span (whitespace collapsed, clipped to `max`). */
export function inlineCode(text: string, max = 300): string {
  const t = oneLine(text, max);
  if (t === "") return "(empty)";
  const ticks = "`".repeat(longestBacktickRun(t) + 1);
  // A span that starts or ends with a backtick needs a space inside its delimiters (one is stripped).
  const pad = t.startsWith("`") || t.endsWith("`") ? " " : "";
  return `${ticks}${pad}${t}${pad}${ticks}`;
}

/** Long lines broken at spaces so that prose in a code block reads without scrolling sideways. */
export function wrapLines(text: string, width = 100): string {
  const out: string[] = [];
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.length <= width) {
      out.push(line);
      continue;
    }
    let current = "";
    for (const word of line.split(" ")) {
      if (current !== "" && current.length + 1 + word.length > width) {
        out.push(current);
        current = word;
      } else {
        current = current === "" ? word : `${current} ${word}`;
      }
    }
    out.push(current);
  }
  return out.join("\n");
}

/**
 * Untrusted prose (the reviewer's analysis, a reason, guidance): a code span when it is one short line,
 * otherwise a plain-text code block with its long lines wrapped, set apart by blank lines (so it may
 * follow a label on the same line: `Reason: ${inertText(reason)}`).
 */
export function inertText(text: string, options: { max?: number; inlineMax?: number } = {}): string {
  const trimmed = text.trim();
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const clipped =
    trimmed.length > max
      ? `${trimmed.slice(0, max)}\n… (${trimmed.length - max} more characters in the artifacts)`
      : trimmed;
  if (!clipped.includes("\n") && clipped.length <= (options.inlineMax ?? 160)) return inlineCode(clipped);
  // A fence only opens at the start of a line and only closes on a line of its own: the block stands
  // apart from whatever the caller writes before and after it.
  return `\n\n${codeFence(wrapLines(clipped), "text")}\n\n`;
}

/**
 * Untrusted text for a plain-text surface (a pull request title, a commit message): `#` before a digit,
 * `@` before a name, `GH-` before a digit and `://` become look-alikes GitHub does not link, so the text
 * can neither reference nor close an issue, nor mention anyone. Control characters become spaces.
 */
export function plainInert(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/#(?=\d)/g, "＃")
    .replace(/@(?=[A-Za-z0-9_-])/g, "＠")
    .replace(/\b(GH)-(?=\d)/gi, "$1‐")
    .replace(/:\/\//g, "∶//");
}

/** Characters that start inline Markdown or HTML anywhere in a line (always escaped in prose). */
const INLINE_SPECIAL = /[\\`*_{}[\]<>&|~#!]/g;

/**
 * Untrusted prose as ordinary Markdown text that renders exactly as the words it holds: every character
 * that could start emphasis, a link, an image, HTML, a table or code is backslash-escaped; what could
 * start a block (a heading, a list, a quote, a rule, an indented code block) at a line's start is
 * escaped or removed; references, mentions and bare links get the look-alikes of `plainInert`. Paragraph
 * breaks stay; single line breaks become spaces. Clipped to `max` characters.
 */
export function inertProse(text: string, options: { max?: number } = {}): string {
  const trimmed = text.replace(/\r\n?/g, "\n").trim();
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const clipped =
    trimmed.length > max
      ? `${trimmed.slice(0, max)} … (${trimmed.length - max} more characters in the artifacts)`
      : trimmed;
  if (clipped === "") return "(empty)";
  const paragraphs = clipped
    .split(/\n\s*\n/)
    .map((p) =>
      p
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "")
        .join(" "),
    )
    .filter((p) => p !== "");
  return paragraphs.map(escapeProseLine).join("\n\n");
}

function escapeProseLine(line: string): string {
  const looked = plainInert(line).replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\u2024`);
  let out = looked.replace(INLINE_SPECIAL, (c) => `\\${c}`);
  // Block starts: a list marker, a quote, a heading, a rule or a setext underline at the start.
  out = out.replace(/^([-+=])/, "\\$1").replace(/^(\d{1,9})([.)])/, "$1\\$2");
  return out;
}
