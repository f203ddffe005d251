/**
 * What a runner knows of the check tests ("canaries") added to a run: where they go, how they are named
 * so that it takes them, what they look like (in the repository's own style), the proof that they ran,
 * and how its results name them. What is the same for every runner (deciding to place them, judging a
 * run from its parsed results, removing their files, the verdict words) is not here: see
 * `src/validate/canaries/`.
 */
import type { TreeFs } from "../../core/tree-fs.ts";

/** What a patch changed, as the check tests use it (they call changed code where a test beside them does). */
export interface Focus {
  /** Changed files, repository-relative. */
  files: readonly string[];
  /** Names of changed top-level definitions. */
  names: ReadonlySet<string>;
}

/** Why no check tests go into a run (the run's integrity is then "could not check", never a pass). */
export interface NoCanaries {
  unverified: string;
}

/** What a runner is given to find where the check tests go. */
export interface SpotInput {
  tree: TreeFs;
  /** The command's words (the targeted command's words before its targets). */
  words: readonly string[];
  /** A targeted run's targets; null for a whole-suite run. */
  targets: readonly string[] | null;
  /** The runner's options that take their value as the next word (from its command part). */
  valueOptions: ReadonlySet<string>;
  /**
   * When the command runs a package manager's script (`npm test -- <more>`): the words the script runs
   * and the words after `--`, or why they cannot be known.
   */
  scriptWords?: readonly string[] | { reason: string };
  focus?: Focus;
}

/** Where a run's check tests go and what is added to its command. */
export interface Spot {
  /** Where the check tests' file goes ("" = root), one file per folder. */
  dirs: string[];
  /** Arguments added to the command (relative paths or module names), given the file's path. */
  args: (file: string) => string[];
  /** Words that make a whole-suite command's positional scope explicit (added before the file). */
  scope?: string[];
  /** A test file of the run the check tests imitate first (relative to the root). */
  sample?: string;
  /** Why the runner would not take a file of this name (null: it would). */
  refuses?: (fileName: string) => string | null;
}

/** What every check-test source needs. */
export interface SourceInput {
  tree: TreeFs;
  /** Where the file goes ("" = root). */
  dir: string;
  /** The random word every check test's id and file name holds. */
  token: string;
  /** A second random word: the must-fail test's name. */
  other: string;
  /** A third random word, for a value the tests hold when they borrow no call. */
  spare: string;
  proofName: string;
  proofValue: string;
  /** A random string no real call returns. */
  impossible: string;
  /** A test file of the run to imitate first (a targeted run's first target). */
  preferred?: string;
  /** What the patch changed: the check tests call it when a test beside them does. */
  focus?: Focus;
}

/** A check-test file: its name, text, and the names of its two tests. */
export interface CanarySource {
  name: string;
  text: string;
  passName: string;
  failName: string;
  /** The test file it imitates (relative to the root), when it imitates one. */
  sample?: string;
}

/** What a run printed and reported, as a runner reads it to say its tests did not get to run. */
export interface RunSeen {
  stdout: string;
  /** The ids of the run's results, the check tests' taken out. */
  ids: readonly string[];
  /** The runner reported at least one of the check tests. */
  reported: boolean;
  /** The proof file holds a value the check test does not write. */
  forged: boolean;
  /** The runner reported a check test with the wrong outcome. */
  misreported: boolean;
}

/** How check tests are added to a runner's runs. */
export interface CanaryRules {
  readonly placed: true;
  /** The option of `words` that could leave the check tests out or stop before them, if any. */
  deselecting(words: readonly string[]): string | undefined;
  /** Where the check tests go and what to add to the command; or why none can. */
  spot(input: SpotInput): Spot | NoCanaries;
  /** The check tests' file for one folder (throws TreeFsError when the folder cannot hold one). */
  source(input: SourceInput): CanarySource;
  /** The token as the runner's test ids hold it (go capitalises: `TestKavelo`). */
  idToken(token: string): string;
  /** A run of one process per target can take check tests (each process runs them and leaves its proof). */
  readonly perTargetProcesses: boolean;
  /** Each test file runs in a process of its own: the check tests share none with the repository's. */
  readonly ownProcessPerFile: boolean;
  /** The exit status for `failing` failed tests and no other failure (mocha: their count; others: 1). */
  failExitCode(failing: number): number;
  /** The exit status of a run that named no test but the check tests (pytest: 5, nothing collected). */
  readonly emptyExitCode: number;
  /**
   * Whether the runner's own summary counts the failing check test as its only failure (a failure no test
   * id carries keeps a run failed); `canary` names that test and its file.
   */
  onlyOneFailed(output: string, canary?: { file: string; failName: string }): boolean;
  /** Why the check tests could not run although nothing was tampered with (a build or collection stop), or null. */
  stoppedBeforeTests(run: RunSeen): string | null;
  /** Files the runner leaves beside the check tests' file (compiled copies), to remove with it. */
  leftovers(tree: TreeFs, dir: string, file: string): string[];
  /**
   * The group holding a check test whose own result fails when any test of it fails (a Go package): that
   * result's id and the prefix of its tests' ids; null when the runner has no such results.
   */
  groupOf(id: string): { id: string; prefix: string } | null;
}

/** A runner that gets no check tests: its runs read "could not check", with why. */
export interface NoCanaryRules {
  readonly placed: false;
  readonly why: string;
}

/** What a runner knows of the check tests added to a run: where they go and what proves they ran. */
export interface RunnerCanaries {
  readonly canaries: CanaryRules | NoCanaryRules;
}
