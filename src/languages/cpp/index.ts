import { dottedQualifier } from "../shared/receivers.ts";
import { BRACE_SYNTAX } from "../shared/text-syntax.ts";
import type { Language } from "../types.ts";

/**
 * The reproducer is compiled with the project's sources (those without a `main`, outside build, test
 * and example folders) and run. `CXX` and `CXXFLAGS` of the sandbox's environment are the project's
 * compiler and flags when set; the headers are looked for at the root, `include/` and `src/`. The
 * compiler's messages go to stdout: stderr holds the program's own output alone, so a compile error that
 * quotes "Assertion `x' failed" reproduces nothing.
 */
const CPP_RUN =
  "cxx=g++; [ -z \"$CXX\" ] || cxx=$CXX; srcs=$(find . -path ./build -prune -o \\( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \\) -not -path './{file}' -not -path '*/test*/*' -not -path '*/example*/*' -not -path '*/bench*/*' -print | xargs -r grep -L -E '^[[:space:]]*int[[:space:]]+main[[:space:]]*\\(' || true) && $cxx -std=c++17 $CXXFLAGS -I. -Iinclude -Isrc -o /tmp/af-reproducer {file} $srcs 2>&1 && /tmp/af-reproducer";

export const cpp: Language = {
  id: "cpp",
  title: "C++",
  extensions: [".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".h", ".ipp", ".tpp"],
  grammar: { name: "cpp", wasm: "tree-sitter-cpp/tree-sitter-cpp.wasm" },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: {
    classKinds: {
      class_specifier: "class",
      struct_specifier: "struct",
      union_specifier: "union",
      enum_specifier: "enum",
    },
    // template <typename T> before a class or function
    wrappers: ["template_declaration"],
    leading: [],
    exportWrapper: null,
    visibility: null,
    // A method declared in x.h is defined in x.cpp (or any source file)
    members: "project",
    prototypeClasses: false,
    reader: "tree",
    assignments: false,
    anchors: null,
    receiverClass: (receiver) => dottedQualifier(receiver, true),
  },
  text: { ...BRACE_SYNTAX, rawStrings: "cpp", preprocessor: true },
  stringTypes: [
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "string_content",
    "raw_string_content",
  ],
  markers: { files: ["CMakeLists.txt", "meson.build", "conanfile.txt", "conanfile.py"], project: "cpp" },
  scanFamily: null,
  reproducer: {
    runtime: "cpp",
    file: "reproducer.cpp",
    command: CPP_RUN,
    pattern: "Assertion `.*' failed|AssertionError",
    prompt: {
      name: "C++17 (one file with int main, compiled with the project's sources)",
      tags: ["cpp", "c++", "cxx", "cc"],
      notes:
        '- Include the project\'s headers by their path and check with `assert(...)` from <cassert> (a failed one prints "Assertion `...\' failed" and aborts), or throw `std::runtime_error("AssertionError: <expected> vs <actual>")` and let it propagate.',
    },
  },
};
