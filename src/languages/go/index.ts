import { BRACE_SYNTAX, STRING_TYPES } from "../shared/text-syntax.ts";
import type { Language } from "../types.ts";

export const go: Language = {
  id: "go",
  title: "Go",
  extensions: [".go"],
  grammar: { name: "go", wasm: "tree-sitter-go/tree-sitter-go.wasm" },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: {
    classKinds: { type_alias: "type" },
    wrappers: [],
    leading: [],
    exportWrapper: null,
    visibility: null,
    // A type's methods may be in any file of its package (its folder).
    members: "folder",
    prototypeClasses: false,
    reader: "tree",
    assignments: false,
    anchors: null,
    // `(s *Server)` → Server
    receiverClass: (receiver) => /^\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)/.exec(receiver)?.[1] ?? null,
  },
  text: { ...BRACE_SYNTAX, quotes: ['"', "'", "`"] },
  stringTypes: STRING_TYPES,
  markers: { files: ["go.mod"], project: "go" },
  scanFamily: "go",
  reproducer: {
    runtime: "go",
    file: "reproducer/main.go",
    command: "go run ./reproducer",
    pattern: "AssertionError",
    prompt: {
      name: "Go (package main)",
      tags: ["go", "golang"],
      notes:
        '- On failure call `panic("AssertionError: <expected> vs <actual>")` so the message reaches stderr. Import the module\'s own packages.',
    },
  },
};
