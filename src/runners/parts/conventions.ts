import type { TestConfigRules } from "../../core/test-config.ts";
import type { TreeFs } from "../../core/tree-fs.ts";
import type { RunnerName } from "../names.ts";

/** The languages a repository's source is told to be in (the names the configuration's detection uses). */
export type SourceLanguage = "python" | "javascript" | "typescript" | "java" | "go" | "rust" | "cpp";

/** A repository's files as recognition reads them: through tree-fs, bounded, no link followed. */
export interface RepositoryFiles {
  readonly tree: TreeFs;
  /** A file's text; "" when it is absent, too large, a link or a special file (the reasons say which). */
  read(rel: string): string;
  /** Whether a file or folder is there. */
  has(rel: string): boolean;
  /** package.json's `scripts.test`, or null. */
  readonly testScript: string | null;
  /** A costly look at the tree that several runners share (walks), computed once per repository. */
  once<T>(key: string, compute: () => T): T;
}

/** What a runner's recognition found: the command that runs the suite and why it was chosen. */
export interface Recognition {
  testCommand: string;
  /** Commands that install what the tests need before they run. */
  setup?: string[];
  /** JUnit XML report globs the command writes. */
  testReports?: string[];
  /** How the choice was made, for the report. */
  reasons: string[];
}

/**
 * Where and how a regression test goes in a repository: its runner, the new file's path (by the
 * repository's own conventions: `tests/test_*.py`, `test/*.test.js`, `*_test.go` beside the package),
 * the command that runs that file alone, and an existing test file to copy the style of.
 */
export interface TestPlan {
  /** The runner that runs the new file. */
  runner: RunnerName;
  /** The runner as people name it (`node --test`, `go test`, ...), for the prompt and the report. */
  framework: string;
  /** The language the model writes the file in. */
  language: string;
  /** Fence tags the model's answer may use for the file. */
  tags: string[];
  /** The new file, relative to the repository root (never an existing file). */
  path: string;
  /** Runs the new file alone from the repository root. */
  command: string;
  /** Style notes for the prompt. */
  notes: string;
  /** An existing test file (path and first lines) to follow, if any. */
  example: { path: string; text: string } | null;
}

export type PlanResult = { ok: true; plan: TestPlan } | { ok: false; reason: string };

/** How each test of the new file ended in one run, by the runner's own per-test lines. */
export type TestVerdicts = Map<string, "pass" | "fail" | "skip">;

/** What a runner knows of the regression test auto-fix writes for a fix. */
export interface RegressionConventions {
  /** The plan for a patch changing `changed` (paths from the diff) in the tree at `root`, or why none. */
  plan(root: string, changed: readonly string[]): PlanResult;
  /** The command that runs the written file's tests (its text given); `plan.command` when absent. */
  command?(plan: TestPlan, text: string): string;
  /**
   * The per-test verdicts a run of the file printed (only the file's own tests), when the runner prints
   * lines this reads; absent: the runner's output is judged for the file as a whole.
   */
  verdicts?(output: string, plan: TestPlan): TestVerdicts;
  /** Whether the output shows that at least one test ran (a runner finding none may still exit 0). */
  testsRan?(output: string): boolean;
  /** Why the file could not be loaded (a collection error that names the file, not a test), or null. */
  notLoaded?(output: string): string | null;
}

/**
 * The objects of a runner and of the assertion libraries its tests use, as the patch scan watches them
 * (dotted paths as imports resolve them: `pytest`, `node:test`, `org.junit`).
 */
export interface WatchedObjects {
  /** Modules whose use outside a test file is a finding (a fix has no reason to import them). */
  readonly libraries: readonly string[];
  /** Roots that no file, tests included, may assign to: what the tests check with. */
  readonly objects: readonly string[];
  /** Calls that change what the runner's assertions do (`expect.extend`). */
  readonly extensions: readonly string[];
  /** Words that name the runner: a string compared with one, outside tests, is a finding. */
  readonly names: readonly RegExp[];
  /** Variables the runner sets while tests run: a string naming one is a finding anywhere. */
  readonly variables: readonly RegExp[];
}

/**
 * What a runner knows of a repository: how its files show the runner is used, the test conventions a
 * regression test follows (folder, file name, style, how to run one file), and the assertion and runner
 * objects the patch scan watches.
 */
export interface RunnerConventions {
  /** The runner as people name it (`pytest`, `node --test`, `go test`, `Maven`). */
  readonly label: string;
  /** The source languages whose tests it runs. */
  readonly languages: readonly SourceLanguage[];
  /**
   * Files at the root without which the runner is not recognised (`pom.xml`); absent when it is told by
   * other signs. When every runner of a language needs one and none is there, detection names them.
   */
  readonly markFiles?: readonly string[];
  /**
   * Whether the repository's files show this runner runs its tests (tried in the registry's order, among
   * the runners of the repository's language; the first that answers is used), or null.
   * `installed` says whether the runner starts in the sandbox.
   */
  recognise(files: RepositoryFiles, installed: () => boolean): Recognition | null;
  /** Whether the runner starts in the sandbox as the recognised command starts it; absent: assumed. */
  installed?(): boolean;
  /**
   * The runner builds a package's test files together with the package's code (Go): a test in a changed
   * package loads the change, whatever it imports.
   */
  readonly packageTestsCompiledWithCode?: true;
  /** The runner of its languages that a regression test is written for when the settings name none. */
  readonly regressionDefault?: true;
  readonly regression: RegressionConventions;
  readonly watched: WatchedObjects;
  /**
   * The files, sections and settings that configure this runner (its config files, its package.json
   * key, its pyproject tables): a patch may not change them, and validation runs the unpatched tree's.
   * Joined with every other runner's whatever runner a repository uses (see core/test-config.ts).
   */
  readonly testConfig?: Partial<TestConfigRules>;
}
