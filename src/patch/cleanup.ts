/**
 * Clean-up of edit text before matching: line-number prefixes copied from search output, and
 * placeholder lines that stand for code the model did not repeat.
 */

// "123 code", "123: code", "123|code", "   123\tcode", "123" (a numbered blank line). After ":" or "|" at
// most one space belongs to the prefix; a tab there is the code's own indentation.
const PREFIX_RE = /^(\s*)(\d{1,6})(: ?|\| ?|\t| |$)/;

interface Prefixed {
  number: number;
  rest: string;
}

function splitPrefix(line: string): Prefixed | null {
  const m = PREFIX_RE.exec(line);
  if (!m) return null;
  return { number: Number(m[2]), rest: line.slice(m[0].length) };
}

/**
 * When every non-blank line of a block carries a line-number prefix (`123 `, `123:`, `  123\t`, `123|`),
 * with numbers that never go down, the prefixes are removed. Otherwise the block is returned unchanged.
 */
export function stripLineNumbers(lines: readonly string[]): { lines: string[]; stripped: boolean } {
  const nonBlank = lines.filter((l) => l.trim() !== "");
  if (nonBlank.length === 0) return { lines: [...lines], stripped: false };
  const parsed: (Prefixed | null)[] = lines.map((l) => (l.trim() === "" ? null : splitPrefix(l)));
  let last = -1;
  let separators = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    const p = parsed[i];
    if (!p) return { lines: [...lines], stripped: false };
    if (p.number < last) return { lines: [...lines], stripped: false };
    last = p.number;
    separators.add(PREFIX_RE.exec(lines[i]!)![3]!.trim() || "ws");
  }
  // A block like "1 2 3" on one line is data, not numbered code: demand two lines or a clear separator.
  if (nonBlank.length === 1 && separators.has("ws") && !/^\s*\d+(:|\t|\|)/.test(nonBlank[0]!)) {
    return { lines: [...lines], stripped: false };
  }
  separators = new Set([...separators].filter((s) => s !== ""));
  if (separators.size > 1) return { lines: [...lines], stripped: false };
  // "12: code": the space after ":" or "|" is part of the prefix only when every line has it.
  const eatSpace = lines.every(
    (l, i) => l.trim() === "" || /^\s*\d+[:|] /.test(l) || (parsed[i]?.rest.trim() ?? "") === "",
  );
  return {
    lines: lines.map((l, i) => {
      if (l.trim() === "") return "";
      const m = PREFIX_RE.exec(l)!;
      const sep = m[3]!;
      if (/^[:|] $/.test(sep) && !eatSpace) return l.slice(m[0].length - 1);
      return parsed[i]!.rest;
    }),
    stripped: true,
  };
}

const COMMENT_START = /^\s*(#|\/\/|\/\*+|\*|--|<!--)\s*/;
const PLACEHOLDER_WORDS =
  /\b(rest of|remaining|existing|unchanged|same as (before|above)|omitted|elided|other (code|methods|functions|fields)|previous (code|implementation)|code (here|above|below)|as before|no changes?|keep(s)? the)\b/i;

/** A line the model wrote instead of code: `# Rest of the code...`, `// ... existing code ...`. */
export function isPlaceholder(line: string): boolean {
  const t = line.trim();
  // Placeholders are short; a long line is code (and the patterns below stay cheap).
  if (t === "" || t.length > 160) return false;
  const c = COMMENT_START.exec(t);
  if (!c) {
    // "..." alone is valid Python (Ellipsis) and a spread in JS: only "...." or "…" alone count.
    return /^(\.{4,}|…)$/.test(t);
  }
  const body = t
    .slice(c[0].length)
    .replace(/\*+\/\s*$|-->\s*$/, "")
    .trim();
  if (body === "") return false;
  if (/^(\.{3,}|…)$/.test(body)) return true;
  const hasDots = /\.{3}|…/.test(body);
  if (
    PLACEHOLDER_WORDS.test(body) &&
    (hasDots || /\b(code|unchanged|implementation|methods?)\b/i.test(body))
  ) {
    return body.length < 80;
  }
  return false;
}
