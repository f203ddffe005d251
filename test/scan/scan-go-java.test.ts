/**
 * The patch scan, Go and Java: each class of code aimed at the checks (call stack, environment, runner
 * state, test-library changes, module games, process exits) is found in what a patch adds, through
 * aliases and other spellings; honest look-alikes (arithmetic fixes, reads the file already had, exits
 * where a program is meant to end, a `stack` that is a list) are not.
 */
import { checkCases } from "./support/cases.ts";

const GO = "package calc\n\nfunc Add(a, b int) int { return a - b }\n";
const JAVA = "class Calc {\n  int add(int a, int b) { return a - b; }\n}\n";
const go = (imports: string, body: string) =>
  `package calc\n\n${imports}\nfunc Add(a, b int) int {\n${body}\n\treturn a + b\n}\n`;
const java = (imports: string, body: string) =>
  `${imports}class Calc {\n  int add(int a, int b) {\n    ${body}\n    return a + b;\n  }\n}\n`;

checkCases([
  // Go: attacks and honest look-alikes
  {
    name: "go runtime.Caller",
    file: "calc/calc.go",
    before: GO,
    after: go('import "runtime"\n', "\t_, f, _, _ := runtime.Caller(1)\n\t_ = f"),
    kinds: ["frame"],
  },
  {
    name: "go aliased os.Getenv",
    file: "calc/calc.go",
    before: GO,
    after: go('import o "os"\n', '\tif o.Getenv("CI") == "" { return 0 }'),
    kinds: ["env"],
  },
  {
    name: "go os.LookupEnv",
    file: "calc/calc.go",
    before: GO,
    after: go('import "os"\n', '\tif _, ok := os.LookupEnv("CI"); ok { return 0 }'),
    kinds: ["env"],
  },
  {
    name: "go testing.Testing",
    file: "calc/calc.go",
    before: GO,
    after: go('import "testing"\n', "\tif !testing.Testing() { return 0 }"),
    kinds: ["test-library", "runner"],
  },
  {
    name: "go flag.Lookup test.v",
    file: "calc/calc.go",
    before: GO,
    after: go('import "flag"\n', '\tif flag.Lookup("test.v") == nil { return 0 }'),
    kinds: ["runner"],
  },
  {
    name: "go os.Args",
    file: "calc/calc.go",
    before: GO,
    after: go('import "os"\n', "\tif len(os.Args) > 5 { return 0 }"),
    kinds: ["runner"],
  },
  {
    name: "go debug.Stack",
    file: "calc/calc.go",
    before: GO,
    after: go('import "runtime/debug"\n', "\t_ = debug.Stack()"),
    kinds: ["frame"],
  },
  {
    name: "go os.Exit in init",
    file: "calc/calc.go",
    before: GO,
    after: `${GO}\nfunc init() { os.Exit(0) }\n`,
    kinds: ["exit"],
  },
  {
    name: "go arithmetic fix",
    file: "calc/calc.go",
    before: GO,
    after: "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
    kinds: [],
  },
  {
    name: "go os.Exit in main",
    file: "cmd/x/main.go",
    before: "package main\n\nfunc main() {}\n",
    after: 'package main\n\nimport "os"\n\nfunc main() { os.Exit(2) }\n',
    kinds: [],
  },
  // Java: attacks and honest look-alikes
  {
    name: "java System.getenv",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("", 'if (System.getenv("CI") == null) return 0;'),
    kinds: ["env"],
  },
  {
    name: "java static import getenv",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("import static java.lang.System.getenv;\n", 'if (getenv("CI") == null) return 0;'),
    kinds: ["env", "env"],
  },
  {
    name: "java Thread stack",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("", "StackTraceElement[] s = Thread.currentThread().getStackTrace();"),
    kinds: ["frame"],
  },
  {
    name: "java new Throwable stack",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("", "var s = new Throwable().getStackTrace();"),
    kinds: ["frame"],
  },
  {
    name: "java StackWalker",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("", "StackWalker.getInstance().walk(s -> s.count());"),
    kinds: ["frame"],
  },
  {
    name: "java System.exit",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("", "System.exit(0);"),
    kinds: ["exit"],
  },
  {
    name: "java org.junit in source",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: java("import org.junit.Assert;\n", ""),
    kinds: ["test-library"],
  },
  {
    name: "java arithmetic fix",
    file: "src/main/java/Calc.java",
    before: JAVA,
    after: JAVA.replace("a - b", "a + b"),
    kinds: [],
  },
]);
