/**
 * The languages room: one folder per language (python/, javascript/, typescript/, java/, go/, rust/,
 * cpp/), each making one `Language`, and the registry that lists them. Parsing by language id goes
 * through here to the treesitter room, which knows grammars, not languages.
 */
import type { Parser, Tree } from "web-tree-sitter";
import {
  createGrammarParser,
  grammarWasmPath as wasmPathOf,
  loadGrammar,
  parseWith,
} from "../treesitter/grammar.ts";
import { languageOf } from "./registry.ts";
import type { LanguageId } from "./types.ts";

export {
  ParseTimeLimitError,
  type ParseOnce,
  type SyntaxProblem,
  syntaxProblems,
} from "../treesitter/grammar.ts";
export {
  allLanguages,
  LANGUAGES,
  languageForPath,
  languageOf,
  projectLanguages,
  REPRODUCER_RUNTIMES,
  reproducerForRuntime,
  reproducerPrompt,
  textSyntaxFor,
  unknownLanguageNote,
} from "./registry.ts";
export type { Language, LanguageId, ReproducerSpec, ScanFamily, TextSyntax, UnitRules } from "./types.ts";

/** Absolute path of the WASM grammar of `lang`. */
export const grammarWasmPath = (lang: LanguageId): string => wasmPathOf(languageOf(lang).grammar);

/** Loads (once per thread) the tree-sitter Language of `lang`. */
export const loadLanguage = (lang: LanguageId) => loadGrammar(languageOf(lang).grammar);

/** A new parser set to `lang`. */
export const createParser = (lang: LanguageId): Promise<Parser> =>
  createGrammarParser(languageOf(lang).grammar);

/** Parses `source` as `lang` under the parse time limit (treesitter/grammar.ts `parseWith`). */
export function parseSource(
  lang: LanguageId,
  source: string,
  options: { timeLimitMs?: number } = {},
): Promise<Tree> {
  return parseWith(languageOf(lang).grammar, source, options);
}
