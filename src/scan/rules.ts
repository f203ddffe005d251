/**
 * What the patch scan looks for: names (resolved through imports and aliases to a dotted path such as
 * `os.environ` or `process.env`) and strings that code aimed at the checks uses, and why each matters.
 * Code that fixes a bug has rarely any reason to read the call stack, the environment, the test
 * runner's state, to change a test library, to juggle loaded modules or to end the process.
 */
import { type LanguageId, languageOf, type ScanFamily } from "../languages/index.ts";
import { RUNNERS } from "../runners/index.ts";

export type FindingKind = "frame" | "env" | "runner" | "test-library" | "modules" | "exit" | "dynamic";

/** Each kind in words, as the run says it ("the patch reads the environment"). */
export const KIND_WORDS: Record<FindingKind, string> = {
  frame: "inspects the call stack",
  env: "reads the environment",
  runner: "reads the test runner's state or names tests",
  "test-library": "uses or changes a test runner or assertion library",
  modules: "changes loaded modules or the runtime's own objects",
  exit: "ends the process",
  dynamic: "runs code made from text at run time, which no scan can read",
};

type Family = ScanFamily;

/** The rule tables of a language (its folder says which); a language without any throws, and its file is unscanned. */
export function familyOf(lang: LanguageId): Family {
  const language = languageOf(lang);
  if (!language.scanFamily) throw new Error(`the patch scan has no rules for ${language.title}`);
  return language.scanFamily;
}

/** What the runners of a family's languages say their tests use (`libraries`, `objects`, ...), once each. */
function runnersWatch(fam: Family, what: "libraries" | "objects" | "extensions"): string[] {
  // A language the scan has no rules for (Rust, C++) adds its runners to no family.
  const runners = RUNNERS.filter((r) => r.languages.some((l) => languageOf(l).scanFamily === fam));
  return [...new Set(runners.flatMap((r) => r.watched[what]))];
}

/** Paths (and everything under them: `os.environ` covers `os.environ.get`) by kind, per family. */
const PATHS: Record<Family, Partial<Record<FindingKind, readonly string[]>>> = {
  python: {
    frame: [
      "inspect.stack",
      "inspect.currentframe",
      "inspect.getouterframes",
      "inspect.getinnerframes",
      "inspect.getframeinfo",
      "inspect.trace",
      "sys._getframe",
      "sys._getframemodulename",
      "sys._current_frames",
      "sys.settrace",
      "sys.setprofile",
      "traceback.extract_stack",
      "traceback.format_stack",
      "traceback.print_stack",
      "traceback.walk_stack",
      "traceback.StackSummary",
    ],
    env: [
      "os.environ",
      "os.environb",
      "os.getenv",
      "os.getenvb",
      "os.putenv",
      "os.unsetenv",
      "posix.environ",
    ],
    runner: ["sys.argv", "sys.orig_argv"],
    "test-library": runnersWatch("python", "libraries"),
    modules: [
      "sys.modules",
      "sys.meta_path",
      "sys.path_hooks",
      "sys.path_importer_cache",
      "importlib.reload",
      "importlib.invalidate_caches",
      "__import__",
    ],
    exit: ["os._exit", "os.kill", "os.killpg", "os.abort", "sys.exit", "exit", "quit", "atexit.register"],
    dynamic: ["eval", "exec", "compile", "builtins.eval", "builtins.exec"],
  },
  js: {
    frame: [
      "Error.captureStackTrace",
      "Error.prepareStackTrace",
      "Error.stackTraceLimit",
      "new Error.stack",
      "callsites",
      "stack-trace",
      "error-stack-parser",
    ],
    env: ["process.env", "import.meta.env", "Deno.env", "Bun.env", "process.?"],
    runner: ["process.argv", "process.execArgv", "process.mainModule", "require.main", "module.parent"],
    "test-library": runnersWatch("js", "libraries"),
    modules: [
      "require.cache",
      "require.extensions",
      "module._load",
      "module.constructor",
      "module.children",
      "require.?",
    ],
    exit: ["process.exit", "process.kill", "process.abort", "process.reallyExit", "process.exitCode"],
    dynamic: [
      "eval",
      "new Function",
      "vm.runInThisContext",
      "vm.runInNewContext",
      "vm.runInContext",
      "vm.Script",
      "vm.compileFunction",
    ],
  },
  go: {
    frame: [
      "runtime.Caller",
      "runtime.Callers",
      "runtime.CallersFrames",
      "runtime.FuncForPC",
      "runtime.Stack",
      "runtime/debug.Stack",
      "runtime/debug.PrintStack",
    ],
    env: ["os.Getenv", "os.LookupEnv", "os.Environ", "os.ExpandEnv", "syscall.Getenv", "syscall.Environ"],
    runner: ["os.Args", "testing.Testing", "flag.Lookup", "flag.Args", "flag.CommandLine"],
    "test-library": runnersWatch("go", "libraries"),
    exit: ["os.Exit", "syscall.Exit", "syscall.Kill", "runtime.Goexit"],
  },
  java: {
    frame: [
      "Thread.currentThread.getStackTrace",
      "Thread.getAllStackTraces",
      "StackWalker",
      "new Throwable.getStackTrace",
      "new Exception.getStackTrace",
      "new RuntimeException.getStackTrace",
      "new Error.getStackTrace",
    ],
    env: ["System.getenv", "System.getProperty", "System.getProperties", "ProcessHandle"],
    "test-library": runnersWatch("java", "libraries"),
    exit: [
      "System.exit",
      "Runtime.getRuntime.halt",
      "Runtime.getRuntime.exit",
      "Runtime.getRuntime.addShutdownHook",
    ],
  },
};

/** Frame objects' fields (Python): reading them walks the call stack whatever the object is called. */
const PY_FRAME_FIELDS = new Set([
  "f_back",
  "f_code",
  "f_globals",
  "f_locals",
  "tb_frame",
  "gi_frame",
  "cr_frame",
]);

/** Modules whose members reached by a computed name (`getattr(os, x)`, `process[k]`) count as a read. */
const DYNAMIC: Record<string, FindingKind> = {
  os: "env",
  sys: "runner",
  inspect: "frame",
  traceback: "frame",
  process: "env",
  System: "env",
};

/** The kind of a resolved path, or null when it names nothing the scan looks for. */
export function kindOfPath(lang: LanguageId, path: string): FindingKind | null {
  const fam = familyOf(lang);
  const table = PATHS[fam];
  for (const kind of Object.keys(table) as FindingKind[]) {
    for (const p of table[kind] ?? []) {
      if (path === p || path.startsWith(`${p}.`) || (fam === "java" && path.startsWith(`${p}/`))) return kind;
    }
  }
  if (fam === "python") {
    const last = path.slice(path.lastIndexOf(".") + 1);
    if (path.includes(".") && PY_FRAME_FIELDS.has(last)) return "frame";
  }
  const m = /^([\w$]+)\.(\?|__dict__)$/.exec(path);
  if (m && DYNAMIC[m[1]!]) return DYNAMIC[m[1]!]!;
  return null;
}

/** Kinds that are only a finding outside test files (a test may import its runner). */
export const OUTSIDE_TESTS_ONLY: ReadonlySet<FindingKind> = new Set(["test-library"]);

/**
 * Strings that name tests, test runners, the reproducer or the runner's variables: code that compares a
 * file name with `test_` or looks for `PYTEST_CURRENT_TEST` has no business in a fix.
 */
const RUNNER_STRINGS: readonly RegExp[] = [
  ...RUNNERS.flatMap((r) => r.watched.names),
  /auto[-_]?fix/i,
  /^\/proc\/(self|\d+)\//,
  /__tests__/,
  /^(test|tests|spec|_test|test_|\.test|\.spec|_test\.go|_test\.py)$/i,
  /^test[_.]\w/i,
  /\w_test\.(py|go)$/i,
  /\.(test|spec)\.[cm]?[jt]sx?$/i,
];

/** Strings no test has reason to hold either: the product, process files, runner variables. */
const STRONG_STRINGS: readonly RegExp[] = [
  /auto[-_]?fix/i,
  /^\/proc\/(self|\d+)\//,
  ...RUNNERS.flatMap((r) => r.watched.variables),
];

/**
 * Whether a string literal names tests, a test runner or the reproducer: the product's names, process
 * files and runner variables anywhere; the reproducer anywhere outside tests; test and runner names
 * (`"test"`, `"_test.go"`, a runner's name) only where the code compares something with them (`startswith`,
 * `in`, `==`, `includes`...), as code that tells a test from other callers does.
 */
export function isRunnerString(value: string, where: { inTest: boolean; compared: boolean }): boolean {
  const v = value.trim();
  if (v.length < 4 || v.length > 200) return false;
  if (STRONG_STRINGS.some((re) => re.test(v))) return true;
  if (where.inTest) return false;
  return /reproduc/i.test(v) || (where.compared && RUNNER_STRINGS.some((re) => re.test(v)));
}

/** Calls that compare a string with another (the literal is their argument). */
export const COMPARING_CALLS = new Set([
  "startswith",
  "endswith",
  "startsWith",
  "endsWith",
  "includes",
  "indexOf",
  "find",
  "index",
  "count",
  "match",
  "search",
  "fullmatch",
  "test",
  "contains",
  "equals",
  "equalsIgnoreCase",
  "HasPrefix",
  "HasSuffix",
  "Contains",
  "EqualFold",
  "Index",
  "MatchString",
]);

/** Roots that are test libraries (a change to anything else the scan watches is a change to the runtime). */
const TEST_LIBRARY_ROOTS: ReadonlySet<string> = new Set(RUNNERS.flatMap((r) => r.watched.objects));

export const isTestLibraryPath = (path: string): boolean =>
  [...TEST_LIBRARY_ROOTS].some((r) => path === r || path.startsWith(`${r}.`));

/** Calls that change what a test library's assertions do (`expect.extend`, `chai.use`). */
export const TEST_LIBRARY_EXTENSIONS: ReadonlySet<string> = new Set(
  RUNNERS.flatMap((r) => r.watched.extensions),
);

/**
 * Path roots that must not be assigned to (any file, tests too): the objects of the family's test and
 * assertion libraries, and the runtime's own.
 */
export const MUTATION_ROOTS: Record<Family, readonly string[]> = {
  python: [...runnersWatch("python", "objects"), "builtins", "__builtins__", "sys", "os"],
  js: [...runnersWatch("js", "objects"), "process", "Error"],
  go: [...runnersWatch("go", "objects"), "os", "flag"],
  java: [...runnersWatch("java", "objects"), "System"],
};

/** Whether assigning to `path` changes a test library, the runner or the process object. */
export function isMutationTarget(lang: LanguageId, path: string): boolean {
  return MUTATION_ROOTS[familyOf(lang)].some((r) => path === r || path.startsWith(`${r}.`));
}

/** Whether a repository path is a test file (where importing a test library is expected). */
export function isTestPath(path: string): boolean {
  const p = path.toLowerCase();
  const name = p.slice(p.lastIndexOf("/") + 1);
  return (
    /(^|\/)(tests?|__tests__|spec|testing)\//.test(p) ||
    /^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$|^conftest\.py$/.test(name) ||
    /(^|\/)src\/test\//.test(p) ||
    /(test|tests|it)\.java$/.test(name)
  );
}
