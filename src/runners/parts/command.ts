import type { TreeFs } from "../../core/tree-fs.ts";

/** The installed version of a runner's tool, as read from the work tree (null parts: not read). */
export interface ToolVersion {
  /** The version string (`3.5.3`), or null when it could not be read. */
  version: string | null;
  /** Its major version, or null. */
  major: number | null;
  /** Where it was read (`node_modules/mocha/package.json`), or why it could not be. */
  source: string;
}

/** What wording a command needs besides its words: where the tool is installed, and a report name. */
export interface CommandContext {
  /** The work tree the command runs in (the installed tool's version is read there); absent: unknown. */
  tree?: TreeFs;
  /** A report file name in the run's tree, drawn per run. */
  reportName: string;
  /** The configuration names the JUnit reports the command writes (`test-reports`): no report option is added. */
  reportsNamed: boolean;
}

/**
 * A report file the runner was asked to write (`path` relative to the work tree), read for the tests
 * and their files; where a test's suites are named: its `classname` (mocha's xunit reporter) or the
 * `<testsuite>`s it is in (node's junit reporter). `file`: the one test file the run was given (a
 * report of mocha before 6 names no file).
 */
export interface OwnReport {
  path: string;
  suites: "classname" | "nesting";
  file?: string;
}

/** The whole-suite command's words with the runner's report options added. */
export interface SuiteWords {
  words: string[];
  report?: OwnReport;
  /** What the report should say about the words (a version that could not be read). */
  notes?: string[];
}

/**
 * A targeted run: `words` are the shell text (never a target in them), `args` the positional arguments
 * that name the targets (each checked by `validTarget` first).
 */
export interface TargetedWords {
  words: string[];
  args: string[];
  report?: OwnReport;
  /** Only the given files' tests count (the runner takes files as filters that may match more). */
  onlyFiles?: true;
  /** One process per target, one after the other (a target that cannot load fails alone). */
  sequential?: true;
  notes?: string[];
}

/** Why a command cannot be worded for the runner. */
export interface Refusal {
  reason: string;
}

/**
 * What a runner knows of commands: which spellings start it, how its tests or files are named to it,
 * and the words that make it write a per-test report (for the version of its tool that is installed).
 */
export interface RunnerCommand {
  /** How messages name it (`node --test`, `go test`, `Maven`). */
  title: string;
  /** Whether a test command's words can start it (plain JUnit is only ever named by the configuration). */
  spelled: boolean;
  /**
   * The index of the word of a command (no shell syntax, split on blanks) that names this runner
   * (`python -m pytest` → 2, `npx mocha` → 1, `./gradlew test` → 0), or -1. A command starts the runner
   * named earliest.
   */
  namedAt(words: readonly string[]): number;
  /** The index of the last word before the runner's own arguments (`pytest`, `-m unittest`'s `unittest`, `--test`), or -1. */
  argsAfter(words: readonly string[]): number;
  /**
   * A package manager's script (`npm test`) passes words after `--` on to this runner when the
   * repository's files show it is the runner (jest, vitest, mocha).
   */
  takesScriptArgs: boolean;
  /**
   * Which kind of test suite the runner's targets are read from: Python files or modules, JavaScript
   * files, Go packages, Java classes.
   */
  suiteKind: "python" | "javascript" | "go" | "java" | "rust";
  /** What names a test target to it: a path (`tests/test_a.py`), a dotted name (a module, a class), a package folder (`./pkg`). */
  targetForm: "path" | "dotted" | "package";
  /**
   * Whether `id` has the form of one test the runner can run by itself (a pytest node id `file::name`,
   * a unittest dotted test id); the caller checks its file is one of the tree's tests.
   */
  singleTestId(id: string): boolean;
  /** What one test target is, in words (`test file`, `test module`, `test package`, `test class`). */
  targetWord: string;
  /** Whether `target` has the form the runner takes (a relative path, a dotted name, a package folder). */
  validTarget(target: string): boolean;
  /** The targets as arguments (`-x.py` as `./-x.py`, so that it never reads as an option). */
  targetArgs(targets: readonly string[]): string[];
  /** Options that take their value as the next word. */
  valueOptions: ReadonlySet<string>;
  /** The words with the option that makes the runner list every test's outcome (it changes no test that runs). */
  listingWords(words: readonly string[]): string[];
  /** JUnit report globs the runner writes on its own (Maven's surefire, Gradle). */
  ownReports: readonly string[];
  /** Why the whole suite's report options cannot be added to `command` whatever else it is (JUnitCore), or null. */
  refusesSuite(command: string): string | null;
  /** Why a `validation.command` template gives no per-test report when it writes none (JUnitCore), or null. */
  quietTemplate: string | null;
  /** The whole suite's words (`words` start this runner) with its report options, or why they cannot be added. */
  suiteWords(words: readonly string[], ctx: CommandContext): SuiteWords | Refusal;
  /** The words that run only `targets` (`words` are the repository's command), or why it cannot be done. */
  targetedWords(
    words: readonly string[],
    targets: readonly string[],
    ctx: CommandContext,
  ): TargetedWords | Refusal;
  /**
   * The paths, packages, modules or filters the command itself names (`pytest tests/a.py` →
   * `tests/a.py`), [] when it names none, null when it cannot be told.
   */
  scope(words: readonly string[]): string[] | null;
  /** Whether a test target is among what a command's scope runs. */
  inScope(target: string, scope: readonly string[]): boolean;
  /** The installed version of the runner's tool in `tree` (see ToolVersion); `tree` absent: not read. */
  installedVersion(tree?: TreeFs): ToolVersion;
}
