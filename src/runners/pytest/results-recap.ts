/**
 * pytest prints each failure twice: in full under FAILURES and again in its closing "short test summary
 * info". With the full section there, the recap is left out (its last line, the counts, stays).
 */
export function withoutRecap(text: string): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^=+ short test summary info =+$/.test(l.trim()));
  if (start < 0 || !lines.some((l) => /^=+ FAILURES =+$/.test(l.trim()))) return text;
  let end = lines.length - 1;
  while (end > start && !/\b\d+ (?:failed|passed|errors?)\b/.test(lines[end]!)) end--;
  return end > start ? [...lines.slice(0, start), ...lines.slice(end)].join("\n") : text;
}
