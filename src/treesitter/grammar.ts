import { createRequire } from "node:module";
import { Language, type Node, Parser, type Range, type Tree } from "web-tree-sitter";
import { initRuntime, withParseInput } from "./wasm-runtime.ts";

/**
 * A tree-sitter grammar, as a language folder (src/languages/) names it: the grammar package's WASM
 * file, and, for a grammar whose plain parse costs too much on some texts, its own way of parsing.
 * This room knows no language: what one is lives in its folder.
 */
export interface Grammar {
  /** The language's id, for messages. */
  readonly name: string;
  /** Module path of the WASM file the grammar package ships (`tree-sitter-rust/tree-sitter-rust.wasm`). */
  readonly wasm: string;
  /** Parses a text with `parse` (one parse under the text's time limit) in the grammar's own way. */
  readonly parse?: (parse: ParseOnce, source: string) => Tree | null;
}

const require = createRequire(import.meta.url);

/** Absolute path of the WASM grammar that the grammar package ships. */
export function grammarWasmPath(grammar: Grammar): string {
  return require.resolve(grammar.wasm);
}

let initPromise: Promise<void> | null = null;
const languageCache = new Map<string, Promise<Language>>();

/** Loads (once per thread) the tree-sitter Language of `grammar`. */
export function loadGrammar(grammar: Grammar): Promise<Language> {
  initPromise ??= initRuntime();
  let p = languageCache.get(grammar.wasm);
  if (!p) {
    p = initPromise.then(() => Language.load(grammarWasmPath(grammar)));
    languageCache.set(grammar.wasm, p);
  }
  return p;
}

/** A new parser set to `grammar`. Parsers are cheap; languages are cached. */
export async function createGrammarParser(grammar: Grammar): Promise<Parser> {
  const language = await loadGrammar(grammar);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

const parserCache = new Map<string, Promise<Parser>>();

/** A parse stopped at its time limit (`parseSource`): the text is not read. */
export class ParseTimeLimitError extends Error {
  readonly limitMs: number;
  constructor(limitMs: number) {
    super(`parsing took over ${formatLimit(limitMs)} of CPU time, the limit for one file`);
    this.name = "ParseTimeLimitError";
    this.limitMs = limitMs;
  }
}

const formatLimit = (ms: number): string => (ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`);

/** CPU time one parse may take, unless `AUTO_FIX_PARSE_TIME_LIMIT_MS` says otherwise. */
const DEFAULT_PARSE_TIME_LIMIT_MS = 10_000;

function parseTimeLimitMs(): number {
  const raw = process.env.AUTO_FIX_PARSE_TIME_LIMIT_MS;
  const n = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_PARSE_TIME_LIMIT_MS;
}

/** This thread's CPU time in microseconds. */
function threadCpuMicros(): number {
  const u = process.threadCpuUsage();
  return u.user + u.system;
}

/** One parse of the text at hand, under the text's time limit, optionally with included ranges only. */
export type ParseOnce = (options?: { includedRanges?: Range[] }) => Tree | null;

/**
 * A progress callback that stops a parse once this thread has spent `limitMs` of CPU time on it. The
 * parser calls it every hundred or so steps (a step can be long: a scanner may read far ahead). Reading
 * the thread's CPU clock costs a few microseconds, the wall clock next to nothing: since a thread cannot
 * spend more CPU time than the wall time that passes, the CPU clock is read only once as much wall time
 * has passed as the budget had left at the last reading.
 */
function cpuLimit(limitMs: number): { stop: () => boolean; hit: () => boolean } {
  const cpuStart = threadCpuMicros();
  let nextCheck = performance.now() + limitMs;
  let hit = false;
  return {
    stop: () => {
      const now = performance.now();
      if (now < nextCheck) return false;
      const leftMs = limitMs - (threadCpuMicros() - cpuStart) / 1000;
      hit = leftMs <= 0;
      nextCheck = now + Math.max(1, leftMs);
      return hit;
    },
    hit: () => hit,
  };
}

/**
 * Parses `source` with `grammar`, with a parser shared within this thread. A parse that takes more than
 * the time limit (default 10 s of this thread's CPU time, `AUTO_FIX_PARSE_TIME_LIMIT_MS`) is stopped
 * with a `ParseTimeLimitError`: a crafted text must not hold a job for minutes. A grammar with a parse
 * of its own (Python's, which reads long runs of comment lines in one step) goes through it.
 */
export async function parseWith(
  grammar: Grammar,
  source: string,
  options: { timeLimitMs?: number } = {},
): Promise<Tree> {
  let p = parserCache.get(grammar.wasm);
  if (!p) {
    p = createGrammarParser(grammar);
    parserCache.set(grammar.wasm, p);
  }
  const parser = await p;
  const limitMs = options.timeLimitMs ?? parseTimeLimitMs();
  // One limit for the text, however many times the grammar's own parse has it parsed.
  const limit = cpuLimit(limitMs);
  const parse: ParseOnce = (opts = {}) => {
    const tree = parser.parse(source, null, {
      ...(opts.includedRanges ? { includedRanges: opts.includedRanges } : {}),
      progressCallback: limit.stop,
    });
    // A stopped parse leaves the parser mid-text: the next one must start from the beginning.
    if (!tree) parser.reset();
    return tree;
  };
  const own = grammar.parse;
  const tree = withParseInput(source, () => (own ? own(parse, source) : parse()));
  if (!tree) {
    if (limit.hit()) throw new ParseTimeLimitError(limitMs);
    throw new Error(`tree-sitter returned no tree for a ${grammar.name} source`);
  }
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
