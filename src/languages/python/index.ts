import { STRING_TYPES } from "../shared/text-syntax.ts";
import type { Language } from "../types.ts";
import { parsePython } from "./parse.ts";

export const python: Language = {
  id: "python",
  title: "Python",
  extensions: [".py", ".pyi"],
  grammar: { name: "python", wasm: "tree-sitter-python/tree-sitter-python.wasm", parse: parsePython },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: {
    classKinds: { class_definition: "class" },
    wrappers: ["decorated_definition"],
    leading: [],
    exportWrapper: null,
    visibility: null,
    members: "file",
    prototypeClasses: false,
    reader: "captures",
    assignments: true,
    anchors: { def: "function_definition", class: "class_definition" },
    receiverClass: () => null,
  },
  text: {
    lineComments: ["#"],
    blockComment: null,
    quotes: ['"', "'"],
    longStrings: ['"""', "'''"],
    quoteNames: false,
    rawStrings: "none",
    regexLiterals: false,
    preprocessor: false,
    indentation: true,
    braceContinues: true,
    blockOpeners: ["{", ":"],
  },
  stringTypes: STRING_TYPES,
  markers: {
    files: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pytest.ini", "tox.ini"],
    project: "python",
  },
  scanFamily: "python",
  reproducer: {
    runtime: "python",
    file: "reproducer.py",
    command: "python3 {file}",
    pattern: "AssertionError",
    prompt: {
      name: "Python 3",
      tags: ["python", "py", "python3"],
      notes:
        "- Let the AssertionError propagate uncaught: Python prints the traceback to stderr and exits with status 1.",
    },
  },
};
