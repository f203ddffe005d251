import type { LanguageId } from "../languages/index.ts";

/** What a definition is. Java interfaces, enums and records, TS interfaces and Go types count as classes. */
export type SymbolKind = "class" | "function" | "method";

/**
 * One definition in a source file. Lines are 1-based and inclusive; `start` includes decorators or
 * annotations and an `export` keyword written before the definition.
 */
export interface SymbolInfo {
  kind: SymbolKind;
  /** The name as written (`save`, `Meta`). */
  name: string;
  /** Dotted path through enclosing definitions (`Outer.Meta`, `Model.save`, `outer.inner`). */
  qualName: string;
  /**
   * Methods: the qualified name of the class they belong to (Go: the receiver type).
   * Classes: the qualified name of the enclosing class when nested, else null. Functions: null.
   */
  className: string | null;
  /** Classes only: class, interface, enum, record, annotation, struct or type. */
  classKind?: string;
  start: number;
  end: number;
  /** Last line of the header (signature) before the body. */
  headerEnd: number;
  /** Decorators or annotations as written, without the leading `@`. */
  decorators: readonly string[];
  /** Superclasses, implemented interfaces and embedded types as written (`models.Model`, `Base<T>`). */
  bases: readonly string[];
  /** The same, by last name segment without type arguments (`Model`, `Base`). */
  baseNames: readonly string[];
  async: boolean;
  exported: boolean;
  /** Classes only: line ranges of class attributes (fields, constants, docstring) for the signature. */
  attrs: readonly (readonly [number, number])[];
}

/** What the extractor returns for one file. */
export interface ExtractResult {
  symbols: SymbolInfo[];
  /** Number of ERROR/MISSING regions: the file was indexed as far as it parses. */
  syntaxErrors: number;
}

/** One indexed file. */
export interface FileRecord {
  /** Repo-relative, `/`-separated. */
  path: string;
  language: LanguageId;
  isTest: boolean;
  bytes: number;
  /** sha256 of the file's bytes (hex). */
  hash: string;
  symbols: SymbolInfo[];
  syntaxErrors: number;
}

export type CacheState = "hit" | "miss" | "partial";

/** Figures printed by `auto-fix index`. */
export interface IndexStats {
  files: number;
  bytes: number;
  classes: number;
  functions: number;
  methods: number;
  seconds: number;
  cache: CacheState;
  /** Files whose symbols came from the cache / were parsed in this run. */
  cachedFiles: number;
  parsedFiles: number;
  /** Files read by parse worker threads (the others, if any, were read in the calling thread). */
  workerFiles: number;
}
