import { BRACE_SYNTAX, STRING_TYPES } from "../shared/text-syntax.ts";
import type { Language, ReproducerSpec, TextSyntax, UnitRules } from "../types.ts";

/** JavaScript's text syntax, TypeScript's too: template strings, regular expression literals, a shebang. */
export const JS_TEXT: TextSyntax = {
  ...BRACE_SYNTAX,
  lineComments: ["//", "#!"],
  quotes: ['"', "'", "`"],
  regexLiterals: true,
};

/** JavaScript's units, TypeScript's too. */
export const JS_UNITS: UnitRules = {
  classKinds: {
    class_declaration: "class",
    abstract_class_declaration: "class",
    variable_declarator: "class",
    interface_declaration: "interface",
    enum_declaration: "enum",
  },
  wrappers: [],
  leading: ["decorator"],
  exportWrapper: "export_statement",
  visibility: null,
  members: "file",
  prototypeClasses: true,
  reader: "tree",
  assignments: false,
  anchors: null,
  receiverClass: () => null,
};

/** Scripts run by Node as ES modules (TypeScript's reproducer too). */
export const NODE_REPRODUCER: ReproducerSpec = {
  runtime: "node",
  file: "reproducer.mjs",
  command: "node {file}",
  pattern: "AssertionError",
  prompt: {
    name: "JavaScript (Node.js, ES module)",
    tags: ["javascript", "js", "mjs", "typescript", "ts"],
    notes:
      '- Use `import assert from "node:assert/strict"` and let the AssertionError propagate uncaught: Node prints it with its stack to stderr and exits with status 1.',
  },
};

export const javascript: Language = {
  id: "javascript",
  title: "JavaScript",
  extensions: [".js", ".mjs", ".cjs", ".jsx"],
  grammar: { name: "javascript", wasm: "tree-sitter-javascript/tree-sitter-javascript.wasm" },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: JS_UNITS,
  text: JS_TEXT,
  stringTypes: STRING_TYPES,
  markers: { files: ["package.json"], project: "javascript" },
  scanFamily: "js",
  reproducer: NODE_REPRODUCER,
};
