/**
 * Indentation: the file's own style (tabs or spaces, and the width of one level), column arithmetic,
 * and rendering an indentation in that style.
 */

export interface IndentStyle {
  tabs: boolean;
  /** Columns per level: the space width for space files, the width a tab stands for otherwise. */
  unit: number;
  /** False when the text had no indented line to learn from. */
  known: boolean;
}

function leading(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function modeIncrease(blocks: readonly (readonly string[])[]): number | null {
  const counts = new Map<number, number>();
  for (const block of blocks) countIncreases(block, counts);
  let best: number | null = null;
  let bestN = 0;
  for (const [w, c] of counts) {
    if (c > bestN || (c === bestN && best !== null && w < best)) {
      best = w;
      bestN = c;
    }
  }
  return best;
}

/** Counts the indentation increases between consecutive lines; a snippet's first line sets the start. */
function countIncreases(lines: readonly string[], counts: Map<number, number>): void {
  let prev: number | null = null;
  for (const l of lines) {
    // The " * " lines of block comments sit one space in: they say nothing about the indentation width.
    if (l.trim() === "" || l.trimStart().startsWith("*")) continue;
    const lead = leading(l);
    if (lead.includes("\t")) {
      prev = null;
      continue;
    }
    const w = lead.length;
    if (prev !== null && w > prev && w - prev <= 8) counts.set(w - prev, (counts.get(w - prev) ?? 0) + 1);
    prev = w;
  }
}

/** The file's style; `modelBlocks` (the edit's own text, block by block) tell what width a tab stands for. */
export function detectStyle(
  lines: readonly string[],
  modelBlocks: readonly (readonly string[])[] = [],
): IndentStyle {
  let tabs = 0;
  let spaces = 0;
  for (const l of lines) {
    if (l.startsWith("\t")) tabs++;
    else if (l.startsWith(" ") && l.trim() !== "" && !/^ \*/.test(l)) spaces++;
  }
  if (tabs === 0 && spaces === 0) {
    const flat = modelBlocks.flat();
    if (flat.length === 0) return { tabs: false, unit: 4, known: false };
    return { ...detectStyle(flat), known: false };
  }
  if (tabs > spaces) return { tabs: true, unit: modeIncrease(modelBlocks) ?? 4, known: true };
  return { tabs: false, unit: modeIncrease([lines]) ?? 4, known: true };
}

export function columns(line: string, unit: number): number {
  let c = 0;
  for (const ch of line) {
    if (ch === " ") c++;
    else if (ch === "\t") c += unit;
    else break;
  }
  return c;
}

export function render(cols: number, style: IndentStyle): string {
  const c = Math.max(0, cols);
  if (!style.tabs) return " ".repeat(c);
  return "\t".repeat(Math.floor(c / style.unit)) + " ".repeat(c % style.unit);
}

/** Re-indents one line: its current columns plus `delta`, written in `style`. */
export function reindent(line: string, delta: number, style: IndentStyle): string {
  if (line.trim() === "") return "";
  const lead = leading(line);
  const body = line.slice(lead.length);
  if (!style.known && delta === 0) return line;
  return render(columns(lead, style.unit) + delta, style) + body;
}
