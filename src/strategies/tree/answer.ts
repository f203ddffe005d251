/** Most characters of a reflection kept (prompts and the report quote it). */
export const MAX_REFLECTION_CHARS = 2_000;

const TAGS = ["file", "original", "patched"] as const;
/** Longest heading line recognised (`## Reflection:`, `**Patch**`); longer lines are prose. */
const HEADING_CHARS = 120;

/** Index of the first `<file>`, `<original>` or `<patched …>` tag (any case), or -1; one pass. */
function firstTag(text: string): number {
  let gt = -1;
  for (let i = text.indexOf("<"); i !== -1; i = text.indexOf("<", i + 1)) {
    for (const tag of TAGS) {
      if (text.slice(i + 1, i + 1 + tag.length).toLowerCase() !== tag) continue;
      const after = text[i + 1 + tag.length];
      if (after === ">") return i;
      if (after !== undefined && /\s/.test(after)) {
        // `<tag attrs>`: needs a `>` later on; once there is none, no later tag can close either.
        if (gt < i) gt = text.indexOf(">", i);
        if (gt < 0) return -1;
        return i;
      }
    }
  }
  return -1;
}

const LEAD = /^(#{1,6}\s*)?\**\s*(reflection|analysis|explanation|reasoning)\s*\**\s*:?\s*\**\s*$/i;
const TRAIL = /^(#{1,6}\s*)?\**\s*(patch|change|fix)\s*\**\s*:?\s*\**\s*$/i;

/**
 * The model's reflection: the prose before its first edit block (`<file>`, `<original>`, `<patched>`,
 * or a code fence that holds one), without a leading `Reflection:` heading, trimmed and capped. Linear in
 * the answer: the heading patterns only ever see one short line.
 */
export function extractReflection(answer: string): string {
  const tag = firstTag(answer);
  // Only the start of the prose can end up in the reflection (it is capped), plus its last lines.
  let head = (tag >= 0 ? answer.slice(0, tag) : answer).replace(/\r\n?/g, "\n").trimEnd();
  // A fence opened just before the first tag belongs to the patch, not to the reflection.
  const fenceLine = head.slice(head.lastIndexOf("\n") + 1).trim();
  if (fenceLine.length <= HEADING_CHARS && /^(```|~~~)[\w+-]*$/.test(fenceLine))
    head = head.slice(0, Math.max(0, head.lastIndexOf("\n"))).trimEnd();
  head = head.trimStart();
  const firstNl = head.indexOf("\n");
  const firstLine = firstNl < 0 ? head : head.slice(0, firstNl);
  if (firstLine.length <= HEADING_CHARS && LEAD.test(firstLine)) head = head.slice(firstLine.length);
  else {
    const inline = /^\**(reflection|analysis|explanation|reasoning)\**\s*:[ \t*]*/i.exec(
      head.slice(0, HEADING_CHARS),
    );
    if (inline) head = head.slice(inline[0].length);
  }
  head = head.replace(/\n{3,}/g, "\n\n").trim();
  // Text after a "patch" heading is an announcement, not reasoning.
  const lastNl = head.lastIndexOf("\n");
  const lastLine = head.slice(lastNl + 1).trim();
  if (lastNl >= 0 && lastLine.length <= HEADING_CHARS && TRAIL.test(lastLine))
    head = head.slice(0, lastNl).trim();
  if (head.length > MAX_REFLECTION_CHARS) head = `${head.slice(0, MAX_REFLECTION_CHARS - 1)}…`;
  return head;
}
