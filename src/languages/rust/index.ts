import { dottedQualifier } from "../shared/receivers.ts";
import { BRACE_SYNTAX } from "../shared/text-syntax.ts";
import type { Language } from "../types.ts";

export const rust: Language = {
  id: "rust",
  title: "Rust",
  extensions: [".rs"],
  grammar: { name: "rust", wasm: "tree-sitter-rust/tree-sitter-rust.wasm" },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: {
    classKinds: { struct_item: "struct", enum_item: "enum", union_item: "union", trait_item: "trait" },
    wrappers: [],
    // #[derive(Debug)], #[test], #[cfg(test)] before an item
    leading: ["attribute_item"],
    exportWrapper: null,
    visibility: "visibility_modifier",
    // impl blocks may be in any module of the crate
    members: "project",
    prototypeClasses: false,
    reader: "tree",
    assignments: false,
    anchors: null,
    receiverClass: (receiver) => dottedQualifier(receiver, false),
  },
  text: { ...BRACE_SYNTAX, quoteNames: true, rawStrings: "rust" },
  stringTypes: ["string_literal", "raw_string_literal", "char_literal", "string_content"],
  markers: { files: ["Cargo.toml"], project: "rust" },
  scanFamily: null,
  reproducer: {
    runtime: "rust",
    file: "examples/reproducer.rs",
    // Built first with the build's messages on stdout, then run: stderr holds the program's own output
    // alone, so a compile error quoting `panic!("panicked at")` reproduces nothing.
    command:
      "cargo build --offline --quiet --example reproducer 2>&1 && cargo run --offline --quiet --example reproducer",
    pattern: "panicked at",
    prompt: {
      name: "Rust (a cargo example: examples/reproducer.rs with fn main)",
      tags: ["rust", "rs"],
      notes:
        "- Use the crate by its name from Cargo.toml (`use my_crate::...`) and check with `assert!`/`assert_eq!`: a failed assertion panics, Rust prints `thread 'main' panicked at ...` to stderr and the process exits with status 101. Use only the crate and its dependencies: the build is offline.",
    },
  },
};
