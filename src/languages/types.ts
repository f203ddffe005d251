import type { Grammar } from "../treesitter/grammar.ts";

/**
 * What one language is to auto-fix. Each language has a folder here (python/, rust/, cpp/, ...) that
 * makes one `Language`, and registry.ts lists them: the index, the patch engine, the scan, the
 * reproducer and detection read a language through this interface, never by its name.
 */

/** The languages auto-fix reads (TSX is a language of the TypeScript folder: its own grammar). */
export type LanguageId = "python" | "javascript" | "typescript" | "tsx" | "java" | "go" | "rust" | "cpp";

/**
 * How a language's lines are read where no parser looks: the patch engine's readings of a model's
 * answer (which lines are comments, which brackets open a continuation).
 */
export interface TextSyntax {
  /** Line comment starts (`#`, `//`). */
  lineComments: readonly string[];
  /** Block comment delimiters (`/*`, `*\/`), or null. */
  blockComment: readonly [string, string] | null;
  /** Quote characters that open a string on one line (`"`, `'`, a backtick). */
  quotes: readonly string[];
  /** Delimiters of strings that may span lines (`"""`), none where the language has none. */
  longStrings: readonly string[];
  /** A `'` that starts a name rather than a character (Rust lifetimes `'a`, labels `'outer`). */
  quoteNames: boolean;
  /** Raw strings (`r#"…"#` in Rust, `R"(…)"` in C++): none, "rust" or "cpp". */
  rawStrings: "none" | "rust" | "cpp";
  /** Regular expression literals (`/a[)]/`): JavaScript and TypeScript. */
  regexLiterals: boolean;
  /** A line starting with `#` is a preprocessor line (C, C++), not a comment. */
  preprocessor: boolean;
  /** Whether a line's indentation is its meaning (Python): blocks are read from it. */
  indentation: boolean;
  /** Does `{` open a continuation the way `(` and `[` do (Python dicts), rather than a block? */
  braceContinues: boolean;
  /** A line ending in one of these opens a block (`{`; Python's `:`). */
  blockOpeners: readonly string[];
}

/** How a language's definitions become the index's units (classes, functions and methods). */
export interface UnitRules {
  /** Class kind by definition node type (`struct_item` → struct, `trait_item` → trait). */
  classKinds: Readonly<Record<string, string>>;
  /** Parent node types whose range a definition takes (`decorated_definition`, `template_declaration`). */
  wrappers: readonly string[];
  /** Node types before a definition that belong to it (JavaScript decorators, Rust attributes). */
  leading: readonly string[];
  /** A parent node type that exports the definition it holds (`export_statement`). */
  exportWrapper: string | null;
  /** A child node type that makes the definition public (Rust's `visibility_modifier`). */
  visibility: string | null;
  /** Where the methods of a class may live: its own file, its folder (Go's package), or any file. */
  members: "file" | "folder" | "project";
  /** Functions made on prototypes can stand for classes (JavaScript's constructor functions). */
  prototypeClasses: boolean;
  /**
   * Keyword → the node type that holds it, when every pattern of the definitions query starts at a node
   * that holds its own keyword (def-anchors.ts in the index); null when some definition has none.
   */
  anchors: Readonly<Record<string, string>> | null;
  /**
   * How the index reads a definition's fields: "captures" from the query's captures alone, with few
   * calls into the tree (Python: its patterns are one per node type, its header ends at a captured
   * `:`); "tree" from the tree around the definition.
   */
  reader: "captures" | "tree";
  /** Definitions made by assignment that the index reads from the tree (Python's `P = namedtuple(...)`). */
  assignments: boolean;
  /** The class a method's receiver or qualifier names (`(s *Server)` → Server, `ns::C` → ns.C). */
  receiverClass: (receiver: string) => string | null;
}

/** How a reproducer is written and run for this language, unless the configuration says otherwise. */
export interface ReproducerSpec {
  /** The runtime name the configuration uses (`python`, `node`, `rust`, `cpp`). */
  runtime: string;
  /** Where the script is written, relative to the repository root. */
  file: string;
  /** The command that runs it; `{file}` is replaced by the script's path. */
  command: string;
  /** What "reproduced" looks for (see reproduce/reproducer.ts). */
  pattern: string;
  /** For the model: the language's name, the fence tags its answer may use, and how to fail. */
  prompt: { name: string; tags: readonly string[]; notes: string };
}

/** How detection tells a repository is in this language. */
export interface ProjectMarkers {
  /** Files at the repository's root that say so (`Cargo.toml`, `CMakeLists.txt`). */
  files: readonly string[];
  /** The language detection reports for files of this language (TSX counts as TypeScript). */
  project: string;
}

/** The patch scan's rule tables a language is read with (scan/rules.ts), or none. */
export type ScanFamily = "python" | "js" | "java" | "go";

export interface Language {
  id: LanguageId;
  /** As a person writes it: Python, C++. */
  title: string;
  /** File extensions, lower case, with the dot. */
  extensions: readonly string[];
  grammar: Grammar;
  /** The definitions query (tags): captures @class @function @method @scope @name @bases ... */
  definitions: URL;
  units: UnitRules;
  text: TextSyntax;
  /** Node types of string literals: their text is part of what a line means. */
  stringTypes: readonly string[];
  markers: ProjectMarkers;
  reproducer: ReproducerSpec;
  /**
   * The patch scan's rules this language is read with; null when the scan has none for it (its files are
   * then named as unscanned, never passed as clean).
   */
  scanFamily: ScanFamily | null;
}
