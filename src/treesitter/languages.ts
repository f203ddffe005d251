import { createRequire } from "node:module";
import { Language, Parser, type Node, type Tree } from "web-tree-sitter";

/** The languages auto-fix reads. */
export type LanguageId = "python" | "javascript" | "typescript" | "tsx" | "java" | "go";

export const LANGUAGES: readonly LanguageId[] = ["python", "javascript", "typescript", "tsx", "java", "go"];

const EXTENSIONS: Record<string, LanguageId> = {
  ".py": "python",
  ".pyi": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".java": "java",
  ".go": "go",
};

/** The language of a file by its extension, or null when auto-fix does not read it. */
export function languageForPath(path: string): LanguageId | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return EXTENSIONS[path.slice(dot).toLowerCase()] ?? null;
}

const WASM: Record<LanguageId, string> = {
  python: "tree-sitter-python/tree-sitter-python.wasm",
  javascript: "tree-sitter-javascript/tree-sitter-javascript.wasm",
  typescript: "tree-sitter-typescript/tree-sitter-typescript.wasm",
  tsx: "tree-sitter-typescript/tree-sitter-tsx.wasm",
  java: "tree-sitter-java/tree-sitter-java.wasm",
  go: "tree-sitter-go/tree-sitter-go.wasm",
};

const require = createRequire(import.meta.url);

/** Absolute path of the WASM grammar that the grammar package ships. */
export function grammarWasmPath(lang: LanguageId): string {
  return require.resolve(WASM[lang]);
}

let initPromise: Promise<void> | null = null;
const languageCache = new Map<LanguageId, Promise<Language>>();

/** Loads (once per thread) the tree-sitter Language for `lang`. */
export function loadLanguage(lang: LanguageId): Promise<Language> {
  initPromise ??= Parser.init();
  let p = languageCache.get(lang);
  if (!p) {
    p = initPromise.then(() => Language.load(grammarWasmPath(lang)));
    languageCache.set(lang, p);
  }
  return p;
}

/** A new parser set to `lang`. Parsers are cheap; languages are cached. */
export async function createParser(lang: LanguageId): Promise<Parser> {
  const language = await loadLanguage(lang);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

const parserCache = new Map<LanguageId, Promise<Parser>>();

/** Parses `source` as `lang` with a parser shared within this thread. */
export async function parseSource(lang: LanguageId, source: string): Promise<Tree> {
  let p = parserCache.get(lang);
  if (!p) {
    p = createParser(lang);
    parserCache.set(lang, p);
  }
  const parser = await p;
  const tree = parser.parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for a ${lang} source`);
  return tree;
}

/** One ERROR or MISSING node: where it is (1-based line/column) and what the parser expected. */
export interface SyntaxProblem {
  line: number;
  column: number;
  kind: "error" | "missing";
  /** For MISSING nodes, the node type the parser inserted (e.g. ")"); for ERROR nodes, the text it skipped. */
  detail: string;
}

/** Every ERROR and MISSING node of a tree, in document order (at most `limit`). */
export function syntaxProblems(tree: Tree, limit = 50): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  if (!tree.rootNode.hasError) return out;
  const visit = (node: Node): void => {
    if (out.length >= limit) return;
    if (node.isMissing) {
      out.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        kind: "missing",
        detail: node.type,
      });
      return;
    }
    if (node.isError) {
      out.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        kind: "error",
        detail: node.text.slice(0, 60),
      });
    }
    if (!node.hasError) return;
    for (const child of node.children) {
      if (child) visit(child);
    }
  };
  visit(tree.rootNode);
  return out;
}
