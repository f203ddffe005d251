/** Most characters of a reflection kept (prompts and the report quote it). */
export const MAX_REFLECTION_CHARS = 2_000;

/**
 * The model's reflection: the prose before its first edit block (`<file>`, `<original>`, `<patched>`,
 * or a code fence that holds one), without a leading `Reflection:` heading, trimmed and capped.
 */
export function extractReflection(answer: string): string {
  const text = answer.replace(/\r\n?/g, "\n");
  const tag = text.search(/<(file|original|patched)(\s[^>]*)?>/i);
  let head = tag >= 0 ? text.slice(0, tag) : text;
  // A fence opened just before the first tag belongs to the patch, not to the reflection.
  head = head.replace(/(^|\n)\s*(```|~~~)[\w+-]*\s*$/, "");
  head = head
    .replace(
      /^\s*(#{1,6}\s*)?\**\s*(reflection|analysis|explanation|reasoning)\s*\**\s*:?\s*\**\s*(\n|$)/i,
      "",
    )
    .replace(/^\s*\**(reflection|analysis|explanation|reasoning)\**\s*:\s*\**\s*/i, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // Text after a "patch" heading is an announcement, not reasoning.
  head = head.replace(/\n+\s*(#{1,6}\s*)?\**\s*(patch|change|fix)\s*\**\s*:?\s*\**\s*$/i, "").trim();
  if (head.length > MAX_REFLECTION_CHARS) head = `${head.slice(0, MAX_REFLECTION_CHARS - 1)}…`;
  return head;
}
