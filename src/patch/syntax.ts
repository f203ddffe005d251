/**
 * The syntax check that judges indentation readings: the language's tree-sitter parser's ERROR/MISSING
 * nodes, and for Python also the indentation rules tree-sitter does not enforce (siblings at one depth, a
 * body deeper than its header, no empty body), which blocks enclose each line, and a key that two texts
 * with the same meaning share.
 */
import type { Node, Tree } from "web-tree-sitter";
import {
  type LanguageId,
  languageForPath,
  languageOf,
  ParseTimeLimitError,
  parseSource,
  syntaxProblems,
  type SyntaxProblem,
} from "../languages/index.ts";

export interface SyntaxAnalysis {
  problems: SyntaxProblem[];
  /**
   * For languages that read indentation (Python): for each line, the lines (0-based) of the headers of
   * the blocks that enclose it, outermost first. Null elsewhere.
   */
  blocks: (readonly number[])[] | null;
  /** The tree without positions and layout, plus the text of string literals: equal keys, equal meaning. */
  meaning: string;
  /** The tree alone (string literals' text left out). */
  shape: string;
  /**
   * Why the text's syntax could not be checked at all (the parse reached its time limit), when it could
   * not: `problems` then holds that one problem, and nothing else is known.
   */
  unchecked?: string;
}

export interface SyntaxChecker {
  /** Problems of `text` (empty when the file's language is not parsed). */
  problems(path: string, text: string): Promise<SyntaxProblem[]>;
  /** Problems, enclosing blocks and meaning key of `text`. */
  analyse(path: string, text: string): Promise<SyntaxAnalysis>;
}

/** Whether a language's grammar reads indentation (a line's depth changes what it means). */
export function readsIndentation(path: string): boolean {
  const lang = languageForPath(path);
  return lang !== null && languageOf(lang).text.indentation;
}

export const treeSitterChecker: SyntaxChecker = {
  async problems(path, text) {
    return (await this.analyse(path, text)).problems;
  },
  async analyse(path, text) {
    const lang = languageForPath(path);
    if (!lang) return { problems: [], blocks: null, meaning: text, shape: text };
    let tree: Tree;
    try {
      tree = await parseSource(lang, text);
    } catch (err) {
      // A text that takes the parser past its time limit cannot be checked: it counts as one syntax
      // problem, so a patch that makes a file so does not pass, and a file that already was is judged
      // like one that did not parse before the patch.
      if (!(err instanceof ParseTimeLimitError)) throw err;
      const problem: SyntaxProblem = { line: 1, column: 1, kind: "error", detail: err.message };
      return { problems: [problem], blocks: null, meaning: text, shape: text, unchecked: err.message };
    }
    try {
      return analyseTree(lang, tree, text);
    } finally {
      tree.delete();
    }
  },
};

function analyseTree(lang: LanguageId, tree: Tree, text: string): SyntaxAnalysis {
  const language = languageOf(lang);
  const problems = syntaxProblems(tree, 200);
  const strings: string[] = [];
  collectStrings(tree.rootNode, new Set(language.stringTypes), strings);
  const shape = tree.rootNode.toString();
  const meaning = `${shape}\n${strings.join("\u0000")}`;
  if (!language.text.indentation) return { problems, blocks: null, meaning, shape };
  const lines = splitLines(text);
  const blocks: (readonly number[])[] = lines.map(() => EMPTY);
  const indentProblems: SyntaxProblem[] = [];
  pythonBlocks(tree.rootNode, EMPTY, lines, blocks, indentProblems);
  return { problems: [...problems, ...indentProblems], blocks, meaning, shape };
}

const EMPTY: readonly number[] = Object.freeze([]);

function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      out.push(text.slice(start));
      return out;
    }
    out.push(text.slice(start, nl));
    start = nl + 1;
  }
}

/** The text of the string literals under `node` (`types`: the language's string node types). */
function collectStrings(node: Node, types: ReadonlySet<string>, out: string[]): void {
  if (types.has(node.type)) {
    out.push(node.text);
    return;
  }
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c && (c.childCount > 0 || types.has(c.type))) collectStrings(c, types, out);
  }
}

/** Indentation of a line measured with tabs of 8 and of 1 columns (Python rejects lines where they disagree). */
function indentOf(line: string): [number, number] {
  let c8 = 0;
  let c1 = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (ch === 32) {
      c8++;
      c1++;
    } else if (ch === 9) {
      c8 = c8 + 8 - (c8 % 8);
      c1++;
    } else if (ch === 12) {
      // form feed resets the column, as in CPython's tokenizer
      c8 = 0;
      c1 = 0;
    } else break;
  }
  return [c8, c1];
}

function leadLength(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t" || line[i] === "\f")) i++;
  return i;
}

/** Whether `node` is the first thing on its line (so its column is the line's indentation). */
function startsLine(node: Node, lines: readonly string[]): boolean {
  const row = node.startPosition.row;
  return leadLength(lines[row] ?? "") === node.startPosition.column;
}

const CLAUSE_PARENTS = new Set(["if_statement", "try_statement", "for_statement", "while_statement"]);

function pythonBlocks(
  node: Node,
  chain: readonly number[],
  lines: readonly string[],
  blocks: (readonly number[])[],
  problems: SyntaxProblem[],
): void {
  const type = node.type;
  if (type === "module" || type === "block") {
    let inner = chain;
    let headerIndent: [number, number] | null = null;
    if (type === "block") {
      const header = node.parent;
      const headerRow = header ? header.startPosition.row : node.startPosition.row;
      inner = [...chain, headerRow];
      headerIndent = indentOf(lines[headerRow] ?? "");
      for (let r = node.startPosition.row; r <= node.endPosition.row && r < blocks.length; r++) {
        if (r !== headerRow) blocks[r] = inner;
      }
    }
    let first: [number, number] | null = null;
    let statements = 0;
    for (let i = 0; i < node.namedChildCount; i++) {
      const c = node.namedChild(i);
      if (!c || c.type === "comment") continue;
      statements++;
      if (!startsLine(c, lines)) continue;
      const ind = indentOf(lines[c.startPosition.row] ?? "");
      const where = { line: c.startPosition.row + 1, column: c.startPosition.column + 1 };
      if (type === "module") {
        if (ind[0] !== 0 || ind[1] !== 0)
          problems.push({ ...where, kind: "error", detail: "unexpected indent" });
      } else if (first === null) {
        first = ind;
        if (headerIndent && (ind[0] <= headerIndent[0] || ind[1] <= headerIndent[1]))
          problems.push({ ...where, kind: "error", detail: "expected an indented block" });
      } else if (ind[0] !== first[0] || ind[1] !== first[1]) {
        problems.push({ ...where, kind: "error", detail: "indentation does not match the block's" });
      }
    }
    if (type === "block" && statements === 0) {
      const at = node.parent ?? node;
      problems.push({
        line: at.startPosition.row + 1,
        column: at.startPosition.column + 1,
        kind: "missing",
        detail: "an indented block",
      });
    }
    for (let i = 0; i < node.namedChildCount; i++) {
      const c = node.namedChild(i);
      if (c) pythonBlocks(c, inner, lines, blocks, problems);
    }
    return;
  }
  if (CLAUSE_PARENTS.has(type) && startsLine(node, lines)) {
    const own = indentOf(lines[node.startPosition.row] ?? "");
    for (let i = 0; i < node.namedChildCount; i++) {
      const c = node.namedChild(i);
      if (!c?.type.endsWith("_clause") || !startsLine(c, lines)) continue;
      const ind = indentOf(lines[c.startPosition.row] ?? "");
      if (ind[0] !== own[0] || ind[1] !== own[1]) {
        problems.push({
          line: c.startPosition.row + 1,
          column: c.startPosition.column + 1,
          kind: "error",
          detail: `${c.type.replace("_clause", "")} not aligned with its ${type.replace("_statement", "")}`,
        });
      }
    }
  }
  if (node.childCount === 0) return;
  for (let i = 0; i < node.namedChildCount; i++) {
    const c = node.namedChild(i);
    if (c && (c.namedChildCount > 0 || c.type === "block")) pythonBlocks(c, chain, lines, blocks, problems);
  }
}

/** Describes a problem for the model: where, and what the parser expected or could not read. */
export function describeProblem(p: SyntaxProblem, lines: readonly string[]): string {
  const src = (lines[p.line - 1] ?? "").trim();
  const what =
    p.kind === "missing"
      ? `the parser expected ${p.detail.includes(" ") ? p.detail : `"${p.detail}"`} here`
      : p.detail === "unexpected indent" ||
          p.detail.startsWith("expected an") ||
          p.detail.startsWith("indentation") ||
          p.detail.includes("not aligned") ||
          p.detail.startsWith("parsing took over")
        ? p.detail
        : `the parser could not read ${JSON.stringify(p.detail.split("\n")[0]!.slice(0, 40))}`;
  return `line ${p.line}, column ${p.column}: ${what}${src ? ` (line reads: ${src.slice(0, 80)})` : ""}`;
}
