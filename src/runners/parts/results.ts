export type TestOutcome = "passed" | "failed" | "skipped";

/**
 * Per-test outcomes read from a runner's output, keyed by a stable test id. Every parser of test output
 * is linear in its input: test output is written by the repository's code and may be crafted.
 */
export interface ParsedTests {
  parser: string;
  tests: Map<string, TestOutcome>;
  /**
   * The files a test id was reported from, as the runner printed them (a path, maybe absolute, with its
   * line and column removed), for runners whose ids do not name their file (node --test, mocha): one
   * or a few candidates per id, the first that is one of the tree's tests wins. Output is hostile: a
   * path here means nothing until it is looked up among the unpatched tree's tests.
   */
  files?: Map<string, string[]>;
  /** Set when the input was cut to its cap before parsing: what was left out. */
  note?: string;
}

/** A block of output that reports one failing test, and the test ids it may belong to. */
export interface FailureBlock {
  /** Whether a failed test id is the one this block reports. */
  owns: (id: string) => boolean;
  /** The reason the block's header line itself gives (pytest's `FAILED x - reason`), or null. */
  reason: string | null;
}

/**
 * What a runner knows of its output: per-test results from its ordinary human output, which file a
 * stopped run was in, load failures, the blocks that report each failure, and what its output says when
 * the runner itself is missing. Each member reads hostile text in time linear in its length.
 */
export interface RunnerResults {
  /**
   * Per-test results read from the runner's ordinary output (stdout and stderr together, already cut to
   * its cap): every reporter of it auto-fix reads (verbose lines, spec trees, TAP, a JUnit report
   * written to stdout). Null when the output names no test, except where a report that names none
   * shows the runner collected none (go test -json).
   */
  parseOutput(output: string): ParsedTests | null;
  /**
   * The file, module, package or class a result id stands for as a whole when it is this runner's entry
   * for one (pytest's `x.py::<collection>`, a Go package that failed to build): a failed one is a load
   * failure, not a test. Null for an id that names a test.
   */
  loadedName(id: string): string | null;
  /**
   * Whether the runner's output tells which test file a stopped run was in (files run one after the
   * other, progress printed as they go): only then does each file get an allowance of its own.
   */
  readonly tellsStoppedFile: boolean;
  /**
   * The index (in `order`) of the last target the runner's progress lines name, when no test id was
   * printed before the run was stopped (pytest names its tests only at its end); -1 when none.
   */
  progressAt?(stdout: string, order: ReadonlyMap<string, number>): number;
  /** The header of a block of output that reports one failing test (for its network errors), or null. */
  failureBlock?(line: string): FailureBlock | null;
  /**
   * Lines that start one failing test's report (`header`) and lines that start the next report or the
   * runner's summary (`boundary`), for the failure messages shown with a failing test. `before`: the
   * runner prints a test's messages before its verdict line, from the line `before` matches.
   */
  readonly failureReport?: { header: RegExp; boundary?: RegExp; before?: RegExp };
  /**
   * The one stream the runner writes its results to, when what the tests print goes to the other
   * (unittest reports on stderr): that stream is read first, so that a line a test printed is not read
   * as a result; both are read when it names no test (a command that joined them).
   */
  readonly reportStream?: "stdout" | "stderr";
  /** Why no test ran when the output shows the runner itself is not installed, or null. */
  missingRunner?(output: string): string | null;
  /**
   * The output without the closing recap that repeats failures it already printed in full (pytest's
   * "short test summary info"), for a report that shows the output to a person; unchanged when it has none.
   */
  withoutRecap?(output: string): string;
}
