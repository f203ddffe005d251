import type { TextSyntax } from "../types.ts";

/**
 * The text syntax of the brace languages (C, C++, Java, Go, JavaScript, Rust): `//` and `/* *\/`
 * comments, blocks opened by `{`. A language folder spreads this and says what differs.
 */
export const BRACE_SYNTAX: TextSyntax = {
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"', "'"],
  longStrings: [],
  quoteNames: false,
  rawStrings: "none",
  regexLiterals: false,
  preprocessor: false,
  indentation: false,
  braceContinues: false,
  blockOpeners: ["{"],
};

/** How a file in no language's folder is read by the patch engine: as brace-delimited text. */
export const PLAIN_SYNTAX: TextSyntax = { ...BRACE_SYNTAX, quotes: ['"', "'", "`"] };

/**
 * String literal node types of the grammars read before Rust and C++ (Python, JavaScript, TypeScript,
 * Java, Go): their text is part of what a line means.
 */
export const STRING_TYPES: readonly string[] = [
  "string",
  "string_content",
  "template_string",
  "raw_string_literal",
  "text_block",
];
