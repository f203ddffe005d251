/**
 * The largest answers the apply benchmark times: hostile or oversized model output of about 1 MB each.
 * The parser and the matcher must stay linear in the size of the answer and the file.
 */
import { computePatch, createMemoryRepo } from "../src/patch/index.ts";
import { parseAnswer } from "../src/patch/parse.ts";
import type { Source } from "./apply-sources.ts";

export interface LargeResult {
  name: string;
  bytes: number;
  edits: number;
  parseMs: number;
  computeMs: number;
  status: string;
}

const MB = 1 << 20;

function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

/** Builds the large answers against one real file and times parsing and the whole engine on each. */
export async function largeAnswers(src: Source, path: string): Promise<LargeResult[]> {
  const lines = src.text.split("\n");
  const window = (i: number) => {
    const s = (i * 7) % Math.max(1, lines.length - 4);
    return lines.slice(s, s + 3);
  };
  const cases: { name: string; answer: string }[] = [];
  // Partial tags with nothing closing them, and runs of whitespace a backtracking pattern would choke on.
  cases.push({
    name: "1 MB of repeated partial tags",
    answer: repeatTo(`<file ${" ".repeat(40)}<original <patched\t</patched <<file>${path}   \n`, MB),
  });
  cases.push({
    name: "1 MB of unclosed tags and blank runs",
    answer: `<file>${path}</file>\n<original>\n${repeatTo(`${" ".repeat(200)}x\n<patched${" ".repeat(50)}`, MB)}`,
  });
  // 2,000 well-formed edit blocks (more than one answer may apply: refused as a whole, quickly).
  const blocks: string[] = [];
  let size = 0;
  for (let i = 0; size < MB; i++) {
    const w = window(i);
    const b = `# modification ${i + 1}\n<file>${path}</file>\n<original>\n${w.join("\n")}\n</original>\n<patched>\n${w.join("\n")}\n# changed\n</patched>\n`;
    blocks.push(b);
    size += b.length;
    if (blocks.length >= 2000 && size >= MB) break;
  }
  cases.push({ name: `${blocks.length} edit blocks`, answer: blocks.join("\n") });
  // One edit whose <patched> is 1 MB of code after a real <original>.
  const w = window(3);
  const filler = repeatTo(`${w[0]!.replace(/\S.*$/, "")}${src.lang === "python" ? "x = 1" : "x = 1;"}\n`, MB);
  cases.push({
    name: "one edit with a 1 MB <patched>",
    answer: `<file>${path}</file>\n<original>\n${w.join("\n")}\n</original>\n<patched>\n${w.join("\n")}\n${filler}</patched>\n`,
  });
  const out: LargeResult[] = [];
  for (const c of cases) {
    const t0 = performance.now();
    const parsed = parseAnswer(c.answer);
    const t1 = performance.now();
    const result = await computePatch(createMemoryRepo({ [path]: src.text }, "/repo"), c.answer);
    const t2 = performance.now();
    out.push({
      name: c.name,
      bytes: c.answer.length,
      edits: parsed.edits.length,
      parseMs: t1 - t0,
      computeMs: t2 - t1,
      status: result.status,
    });
  }
  return out;
}
