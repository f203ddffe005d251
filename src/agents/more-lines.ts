/**
 * A patch answer may ask for lines of the repository it was not shown (a file's imports, a helper the
 * located code calls) instead of editing blind: `<more_lines file="pkg/mod.py" from="1" to="40"/>`, once
 * per patch writing, a few requests of bounded length. The answer's text is the model's (hostile): each
 * request is checked (a path of the tree, a range of its lines) and refused by name when it is not one.
 */

/** Requests read from one answer; past it, the rest are refused. */
export const MAX_LINE_REQUESTS = 3;
/** Most lines given for one request. */
export const MAX_LINES_PER_REQUEST = 200;

export interface LinesRequest {
  file: string;
  from: number;
  to: number;
}

export interface MoreLinesAsked {
  requests: LinesRequest[];
  /** Requests that could not be read, as written (shortened), each with why. */
  malformed: string[];
}

const TAG = /<more_lines\b([^>]{0,600}?)\/?>/g;

function attr(attrs: string, name: string): string | null {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'/>]+))`).exec(attrs);
  return m ? (m[1] ?? m[2] ?? m[3] ?? "") : null;
}

/** The `<more_lines …/>` requests of a patch answer (none: the answer asks for nothing). */
export function parseMoreLines(answer: string): MoreLinesAsked {
  const requests: LinesRequest[] = [];
  const malformed: string[] = [];
  for (const m of answer.matchAll(TAG)) {
    const written = m[0].length > 160 ? `${m[0].slice(0, 157)}...` : m[0];
    const file = attr(m[1]!, "file")?.trim() ?? "";
    const from = attr(m[1]!, "from");
    const to = attr(m[1]!, "to");
    if (!file || from === null || to === null) {
      malformed.push(`${written}: it needs file, from and to`);
      continue;
    }
    if (!/^\d{1,7}$/.test(from.trim()) || !/^\d{1,7}$/.test(to.trim())) {
      malformed.push(`${written}: from and to must be line numbers`);
      continue;
    }
    requests.push({ file, from: Number(from), to: Number(to) });
  }
  return { requests, malformed };
}

/** Reads a file of the work tree as text; throws with the reason it cannot (missing, a link, too large). */
export type ReadTreeFile = (path: string) => string;

/** One request's answer: the lines, numbered, or why they are refused. */
function answerOne(r: LinesRequest, read: ReadTreeFile): string {
  const head = `${r.file}, lines ${r.from}-${r.to}`;
  if (r.from < 1 || r.to < r.from)
    return `${head}: refused: the range must start at 1 or later and end at or after its start.`;
  if (r.to - r.from + 1 > MAX_LINES_PER_REQUEST)
    return `${head}: refused: at most ${MAX_LINES_PER_REQUEST} lines per request.`;
  let text: string;
  try {
    text = read(r.file);
  } catch (err) {
    return `${head}: refused: ${(err as Error).message}`;
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (r.from > lines.length)
    return `${head}: refused: the file has ${lines.length} line${lines.length === 1 ? "" : "s"}.`;
  const to = Math.min(r.to, lines.length);
  const width = String(to).length;
  const shown = lines
    .slice(r.from - 1, to)
    .map((l, i) => `${String(r.from + i).padStart(width)} | ${l}`)
    .join("\n");
  const end = to < r.to ? ` (the file ends at line ${lines.length})` : "";
  return `${r.file}, lines ${r.from}-${to}${end}:\n${shown}`;
}

/** The reply to an answer's requests: each one's lines or refusal, in order, the extra ones refused. */
export function answerMoreLines(asked: MoreLinesAsked, read: ReadTreeFile): string {
  const parts = asked.requests.slice(0, MAX_LINE_REQUESTS).map((r) => answerOne(r, read));
  for (const r of asked.requests.slice(MAX_LINE_REQUESTS))
    parts.push(`${r.file}, lines ${r.from}-${r.to}: refused: at most ${MAX_LINE_REQUESTS} requests at once.`);
  for (const m of asked.malformed) parts.push(`${m}: refused.`);
  return parts.join("\n\n");
}
