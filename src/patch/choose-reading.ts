/**
 * Chooses how <patched> is indented in the file. An answer copied exactly (or at one offset from the
 * file) is applied as written when it parses. Otherwise every reading (readings.ts) is tried; one is
 * acceptable when the parser finds no new problem and, where indentation carries meaning, the lines the
 * edit did not change keep their enclosing blocks. One meaning among the acceptable readings (or, when
 * none keeps them, among those that parse): it is applied (the reading that keeps the file's own
 * indentation best). Two programs: the edit is refused showing both and asking which. None parses:
 * refused with the syntax problem.
 */
import { languageForPath, textSyntaxFor } from "../languages/index.ts";
import type { BuildResult } from "./build-edit.ts";
import { detectStyle } from "./indent.ts";
import type { Located } from "./locate.ts";
import { isCommentLine, type Reading, readPatched } from "./readings.ts";
import { type BlockMove, firstBlockMove } from "./structure.ts";
import { describeProblem, type SyntaxAnalysis, type SyntaxChecker } from "./syntax.ts";
import { type FileText, joinText, replaceLines } from "./text.ts";
import type { PatchStatus } from "./types.ts";

export interface ReadingState {
  path: string;
  current: FileText;
  analysis: SyntaxAnalysis | null;
}

export type Choice =
  | { ok: true; reading: Reading; next: FileText; analysis: SyntaxAnalysis }
  | { ok: false; status: PatchStatus; message: string };

const quote = (s: string) => `\`${s.trim().slice(0, 60)}\``;

/** The replacement block as a reading writes it into the file, for a message (at most 30 lines). */
function shown(r: Reading): string {
  const lines = r.lines.slice(0, 30);
  if (r.lines.length > lines.length) lines.push(`... (${r.lines.length - lines.length} more lines)`);
  return `\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n`;
}

export async function chooseReading(
  st: ReadingState,
  found: Extract<Located, { kind: "found" }>,
  orig: readonly string[],
  built: Extract<BuildResult, { ok: true }>,
  checker: SyntaxChecker,
): Promise<Choice> {
  const path = st.path;
  const syntax = textSyntaxFor(path);
  const style = detectStyle(st.current.lines, [orig, built.patched]);
  const { readings, unchanged, own } = readPatched({
    fileLines: st.current.lines,
    fileEols: st.current.eols,
    start: found.start,
    end: found.end,
    plan: built.plan,
    patched: built.patched,
    origBlock: orig,
    origMap: found.map,
    style,
    syntax,
  });
  const sorted = [...readings].sort(
    (a, b) =>
      a.displaced - b.displaced ||
      a.offLevel - b.offLevel ||
      a.moved - b.moved ||
      a.base - b.base ||
      a.fit - b.fit ||
      a.rank - b.rank,
  );
  const where = `matched lines ${found.start + 1}-${found.end}`;
  if (sorted.length === 0) {
    return {
      ok: false,
      status: "MATCHED_BUT_SYNTAX_ERROR",
      message: `${where}, but no indentation of <patched> fits there (it would need lines left of column 0). Indent <patched> as the code sits in the file.`,
    };
  }
  st.analysis ??= await checker.analyse(path, joinText(st.current));
  const base = st.analysis;
  const tryOne = async (r: Reading) => {
    const next = replaceLines(st.current, found.start, found.end, r.lines, r.eols);
    const analysis = await checker.analyse(path, joinText(next));
    return { next, analysis };
  };
  const syntaxMessage = (r: Reading, next: FileText, a: SyntaxAnalysis): string => {
    const inBlock = a.problems.find(
      (p) => p.line - 1 >= found.start && p.line - 1 < found.start + r.lines.length,
    );
    const p = inBlock ?? a.problems[0]!;
    let text = describeProblem(p, next.lines);
    const k = p.line - 1 - found.start;
    if (k >= 0 && k < r.lines.length) text += ` — line ${k + 1} of the replaced block`;
    return `${where}, but with <patched> in place the file does not parse with any indentation tried: ${text}. Fix the syntax of <patched> (brackets, colons, indentation).`;
  };

  const isCode = (line: number) => {
    const t = st.current.lines[line] ?? "";
    return t.trim() !== "" && !isCommentLine(t, syntax);
  };
  // The answer written in the file's own indentation (or with every line of <original> at one offset
  // from the file, and <patched> in the same frame) means what it says: taken as written whenever the
  // parser accepts it. Which block a line belongs to is what the answer's text says, not a guess from
  // the lines around it; the other readings are only for answers this one does not fit.
  if (own) {
    const { next, analysis } = await tryOne(own);
    if (analysis.problems.length <= base.problems.length) return { ok: true, reading: own, next, analysis };
  }

  if (!syntax.indentation || !languageForPath(path)) {
    // Indentation does not change what the code means: the reading that keeps the file's indentation.
    const r = sorted[0]!;
    const { next, analysis } = await tryOne(r);
    if (analysis.problems.length > base.problems.length) {
      return { ok: false, status: "MATCHED_BUT_SYNTAX_ERROR", message: syntaxMessage(r, next, analysis) };
    }
    return { ok: true, reading: r, next, analysis };
  }

  type Tried = { reading: Reading; next: FileText; analysis: SyntaxAnalysis };
  const accepted: Tried[] = [];
  // Readings that parse but move a line of the answer the edit leaves alone into or out of a block.
  const moving: Tried[] = [];
  // The first reading that parses but moves a line the answer does not show (after the edit, or one
  // <original> left out) into or out of a block: the answer cannot have stated that.
  let outside: { tried: Tried; move: BlockMove } | null = null;
  let firstSyntax: string | null = null;
  for (const r of sorted) {
    const { next, analysis } = await tryOne(r);
    if (analysis.problems.length > base.problems.length) {
      firstSyntax ??= syntaxMessage(r, next, analysis);
      continue;
    }
    const moves = (check: ReadonlySet<number>) =>
      firstBlockMove({
        oldBlocks: base.blocks ?? [],
        newBlocks: analysis.blocks ?? [],
        start: found.start,
        end: found.end,
        plan: built.plan,
        check,
        isCode,
      });
    if (!moves(unchanged)) {
      accepted.push({ reading: r, next, analysis });
      continue;
    }
    const unseen = moves(new Set());
    if (unseen) outside ??= { tried: { reading: r, next, analysis }, move: unseen };
    else moving.push({ reading: r, next, analysis });
  }
  if (accepted.length === 0) {
    // Every reading that parses changes which block some line belongs to: a change of block structure
    // is what the answer states. When all of them state the same program, that program is the answer;
    // when they differ, the model is asked which one it means.
    const programs = new Map<string, Tried>();
    for (const m of moving) if (!programs.has(m.analysis.meaning)) programs.set(m.analysis.meaning, m);
    if (programs.size === 1) return { ok: true, ...moving[0]! };
    if (programs.size > 1) {
      const [x, y] = [...programs.values()];
      return { ok: false, status: "MATCHED_BUT_UNCLEAR_INDENT", message: ambiguity(x!, y!) };
    }
    if (outside) return { ok: false, status: "MATCHED_BUT_UNCLEAR_INDENT", message: unseenMove(outside) };
    return {
      ok: false,
      status: "MATCHED_BUT_SYNTAX_ERROR",
      message: firstSyntax ?? `${where}, but it does not parse.`,
    };
  }
  const meanings = new Map<string, (typeof accepted)[number]>();
  for (const a of accepted) if (!meanings.has(a.analysis.meaning)) meanings.set(a.analysis.meaning, a);
  if (meanings.size === 1) return { ok: true, ...accepted[0]! };
  // Readings that differ only inside string literals (a docstring's lines): the one that leaves every
  // unchanged line exactly where the file has it is the only one the rest of <patched> agrees with.
  const top = accepted[0]!;
  if (
    top.reading.displaced === 0 &&
    accepted.every((a) => a.analysis.shape === top.analysis.shape) &&
    accepted.every((a) => a.analysis.meaning === top.analysis.meaning || a.reading.displaced > 0)
  ) {
    return { ok: true, ...top };
  }
  const [x, y] = [...meanings.values()];
  return { ok: false, status: "MATCHED_BUT_UNCLEAR_INDENT", message: ambiguity(x!, y!) };

  function unseenMove({ tried, move }: { tried: Tried; move: BlockMove }): string {
    const line = st.current.lines[move.oldLine]!;
    const what =
      move.left.length > 0
        ? `out of ${quote(tried.next.lines[move.left.at(-1)!]!)}`
        : `into ${quote(tried.next.lines[move.joined.at(-1)!]!)}`;
    return `${where}, but every reading of <patched>'s indentation that parses moves line ${move.oldLine + 1} of the file (${quote(line)}), which the answer does not show, ${what}. Read ${tried.reading.name}, the lines would be:${shown(tried.reading)}A change to the blocks of lines the answer does not show cannot be read from it: extend <original> and <patched> to the last line whose block changes, every line indented as it is (or should be) in the file.`;
  }

  function ambiguity(a: Tried, b: Tried): string {
    const lines: number[] = [];
    let detail = "";
    for (let k = 0; k < built.plan.length; k++) {
      const p = built.plan[k]!.p;
      if (p < 0 || a.reading.lines[k] === b.reading.lines[k]) continue;
      lines.push(p + 1);
      if (detail === "") {
        const owner = (x: Tried) => {
          const hs = x.analysis.blocks?.[found.start + k] ?? [];
          const line = x.reading.lines[k]!;
          const col = line.length - line.trimStart().length + 1;
          return `at column ${col} ${hs.length > 0 ? `inside ${quote(x.next.lines[hs.at(-1)!]!)}` : "at the top level"}`;
        };
        detail = `line ${p + 1} of <patched> (${quote(built.patched[p]!)}) goes ${owner(a)} when <patched> is read ${a.reading.name}, but ${owner(b)} when it is read ${b.reading.name}`;
      }
    }
    const placed = lines.slice(0, 8).join(", ") + (lines.length > 8 ? ", ..." : "");
    return `${where}, but the indentation of <patched> can be read as two different programs: ${detail} (lines of <patched> placed differently: ${placed}). Program 1, read ${a.reading.name}:${shown(a.reading)}Program 2, read ${b.reading.name}:${shown(b.reading)}Which of the two do you mean? Write <patched> with every line indented exactly as it should be in the file: the block you mean as shown, with <original> copied exactly from the file. An answer whose <original> matches the file exactly is applied as written.`;
  }
}
