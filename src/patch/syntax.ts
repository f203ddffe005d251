/**
 * The syntax check that chooses among indentation candidates: a candidate passes when the language's
 * tree-sitter parser finds no more ERROR/MISSING nodes in it than in the file before the edit.
 */
import { languageForPath, parseSource, syntaxProblems, type SyntaxProblem } from "../treesitter/languages.ts";

export interface SyntaxVerdict {
  ok: boolean;
  problems: SyntaxProblem[];
}

export interface SyntaxChecker {
  /** Problems of `text` (empty when the file's language is not parsed). */
  problems(path: string, text: string): Promise<SyntaxProblem[]>;
}

export const treeSitterChecker: SyntaxChecker = {
  async problems(path, text) {
    const lang = languageForPath(path);
    if (!lang) return [];
    const tree = await parseSource(lang, text);
    try {
      return syntaxProblems(tree, 200);
    } finally {
      tree.delete();
    }
  },
};

/** Describes a problem for the model: where, and what the parser expected or could not read. */
export function describeProblem(p: SyntaxProblem, lines: readonly string[]): string {
  const src = (lines[p.line - 1] ?? "").trim();
  const what =
    p.kind === "missing"
      ? `the parser expected "${p.detail}" here`
      : `the parser could not read ${JSON.stringify(p.detail.split("\n")[0]!.slice(0, 40))}`;
  return `line ${p.line}, column ${p.column}: ${what}${src ? ` (line reads: ${src.slice(0, 80)})` : ""}`;
}
