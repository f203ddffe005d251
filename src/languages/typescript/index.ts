import { STRING_TYPES } from "../shared/text-syntax.ts";
import { JS_TEXT, JS_UNITS, NODE_REPRODUCER } from "../javascript/index.ts";
import type { Language } from "../types.ts";

const definitions = new URL("./definitions.scm", import.meta.url);

export const typescript: Language = {
  id: "typescript",
  title: "TypeScript",
  extensions: [".ts", ".mts", ".cts"],
  grammar: { name: "typescript", wasm: "tree-sitter-typescript/tree-sitter-typescript.wasm" },
  definitions,
  units: JS_UNITS,
  text: JS_TEXT,
  stringTypes: STRING_TYPES,
  markers: { files: ["tsconfig.json"], project: "typescript" },
  scanFamily: "js",
  reproducer: {
    ...NODE_REPRODUCER,
    prompt: {
      ...NODE_REPRODUCER.prompt,
      notes: `${NODE_REPRODUCER.prompt.notes}\n- TypeScript sources can be imported directly with their \`.ts\` extension (Node strips the types); do not compile anything.`,
    },
  },
};

/** TSX: its own grammar, TypeScript's query (the same node names). */
export const tsx: Language = {
  ...typescript,
  id: "tsx",
  title: "TypeScript (TSX)",
  extensions: [".tsx"],
  grammar: { name: "tsx", wasm: "tree-sitter-typescript/tree-sitter-tsx.wasm" },
};
