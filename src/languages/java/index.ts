import { BRACE_SYNTAX, STRING_TYPES } from "../shared/text-syntax.ts";
import type { Language } from "../types.ts";

export const java: Language = {
  id: "java",
  title: "Java",
  extensions: [".java"],
  grammar: { name: "java", wasm: "tree-sitter-java/tree-sitter-java.wasm" },
  definitions: new URL("./definitions.scm", import.meta.url),
  units: {
    classKinds: {
      class_declaration: "class",
      interface_declaration: "interface",
      enum_declaration: "enum",
      record_declaration: "record",
      annotation_type_declaration: "annotation",
    },
    wrappers: [],
    leading: [],
    exportWrapper: null,
    visibility: null,
    members: "file",
    prototypeClasses: false,
    reader: "tree",
    assignments: false,
    anchors: null,
    receiverClass: () => null,
  },
  text: BRACE_SYNTAX,
  stringTypes: STRING_TYPES,
  markers: { files: ["pom.xml", "build.gradle", "build.gradle.kts"], project: "java" },
  scanFamily: "java",
  reproducer: {
    runtime: "java",
    file: "Reproducer.java",
    // The project's main sources are compiled into /tmp (the sandbox's own) and the single-file program
    // run against them, with the dependencies `mvn dependency:copy-dependencies` leaves in target/dependency.
    command:
      "mkdir -p /tmp/af-classes && find . -name '*.java' -not -path './{file}' -not -path '*/src/test/*' -not -path './target/*' -not -path './build/*' > /tmp/af-sources && javac -nowarn -encoding UTF-8 -cp 'target/dependency/*' -d /tmp/af-classes @/tmp/af-sources && java -ea -cp '/tmp/af-classes:target/dependency/*' {file}",
    pattern: "AssertionError",
    prompt: {
      name: "Java (a single-file program)",
      tags: ["java"],
      notes:
        '- Declare `public class Reproducer` with a `main` method and `throw new AssertionError("...")` on failure (do not rely on `assert`). The project\'s compiled classes are on the classpath.',
    },
  },
};
