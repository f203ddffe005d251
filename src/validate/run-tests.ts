import type { RepoConfig } from "../config/index.ts";
import { mayHoldTestConfig, testConfigChange } from "../runners/shared/conventions-test-config.ts";
import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import { anyRunnerResults } from "../runners/index.ts";
import type { TestOutcome } from "../runners/parts/results.ts";
import type { ExecResult, SandboxPort } from "../sandbox/index.ts";
import {
  type CanaryPlan,
  checkCanaries,
  discardCanaries,
  focusOf,
  planCanaries,
  type RunIntegrity,
} from "./canaries/index.ts";
import { findReports, findTreeFiles, onlyFilesTests, readResults, relativeFiles } from "./run-results.ts";
import { suiteCommand, type TargetedCommand, toolTreeOf } from "./targets/runner-command.ts";

export { findTreeFiles, relativeFiles } from "./run-results.ts";

/** One run of the repository's test suite. */
export interface TestRun {
  command: string;
  exec: ExecResult;
  /** Per-test outcomes when the output (or a JUnit report) could be read; null = exit code only. */
  tests: Map<string, TestOutcome> | null;
  /**
   * The files the output names for test ids whose ids do not name them (see `ParsedTests.files`), relative
   * to the work tree where the runner printed a path inside it. Untrusted: see `fileTarget`.
   */
  files?: Map<string, string[]>;
  parser: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Test configuration put back from the unpatched tree before the run (see restoreTestConfig). */
  restored?: string[];
  /** Reports that could not be read, and why. */
  notes?: string[];
  /**
   * Set when single tests cannot be judged from this run, and why: the runner's report options could
   * not be added to its command (shell syntax, a script, an unknown runner, a `validation.command`
   * template, JUnitCore) and its output named no test that passed or was skipped (a quiet runner lists
   * at most its failures). `tests` then holds what the output named, if anything; neither can show that
   * a test passes. Unset when per-test results were read (or the options were added and the run wrote
   * none: it stopped before its tests ran).
   */
  perTestUnavailable?: string;
  /**
   * What the runner checks showed (two planted tests in the run's private copy, made to look like the
   * repository's): intact (the runner was not ended, stubbed wholesale or made to report what did not
   * run; never that the patch is honest), tampered (a planted test lost, misreported or without its
   * proof), or unverified (none could be placed, or the run was cut). Absent: none was asked for.
   */
  integrity?: RunIntegrity;
}

/** A setup step's outcome (dependency install), kept for the report. */
export interface SetupRun {
  command: string;
  exec: ExecResult;
  ok: boolean;
}

/** Largest test configuration file compared and restored. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/**
 * Puts the unpatched tree's test configuration back into `workdir` before its tests run, so that the
 * tests run as the unpatched tree configures them, whatever a patch or a sandboxed command changed:
 * every file that configures tests (`mayHoldTestConfig`: the runners' own
 * configuration files, settings files, build files; and the files `extra` names) that differs from the
 * pristine tree's is rewritten from it, one the pristine tree lacks is removed. Returns the paths restored.
 */
export function restoreTestConfig(
  pristine: string,
  workdir: string,
  extra: readonly string[] = [],
): string[] {
  const src = openTree(pristine);
  const dst = openTree(workdir);
  const want = (rel: string) => mayHoldTestConfig(rel) || extra.includes(rel);
  // Deep enough for any conftest.py a run could plant; a tree too large to walk fails the run.
  const walk = (t: TreeFs) => findTreeFiles(t, want, { maxDepth: 64, kinds: ["file", "link", "special"] });
  const paths = new Set([...walk(src), ...walk(dst), ...extra]);
  const restored: string[] = [];
  for (const rel of [...paths].sort()) {
    let before: Buffer | null;
    try {
      before = src.readIfExists(rel, { maxBytes: MAX_CONFIG_BYTES });
    } catch (err) {
      // The unpatched tree holds no regular file here (a link, a folder, too large): nothing to restore.
      if (err instanceof TreeFsError) continue;
      throw err;
    }
    let after: Buffer | null = null;
    let foreign = false;
    try {
      after = dst.readIfExists(rel, { maxBytes: MAX_CONFIG_BYTES });
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      // A link, a special file or an oversized file where test configuration belongs: replaced.
      foreign = err.code !== "directory";
      if (!foreign) continue;
    }
    if (!foreign) {
      if (before === null ? after === null : after !== null && before.equals(after)) continue;
      // A settings file whose test part is unchanged keeps the patch's other changes.
      const b = before === null ? null : before.toString("utf8");
      const a = after === null ? null : after.toString("utf8");
      if (!extra.includes(rel) && testConfigChange(rel, b, a) === null) continue;
    }
    try {
      if (before === null) dst.remove(rel);
      else dst.write(rel, before, { onLink: "replace" });
      restored.push(rel);
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      throw new Error(`cannot restore the unpatched test configuration ${rel}: ${err.message}`);
    }
  }
  return restored;
}

/** Runs the setup commands with network on (still no secrets); stops at the first failure. */
export async function runSetup(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
): Promise<SetupRun[]> {
  const runs: SetupRun[] = [];
  for (const command of config.setup) {
    const exec = await sandbox.run({
      workdir,
      command,
      network: true,
      timeoutMs: config.timeouts.setupMs,
      memoryMb: config.sandbox.memoryMb,
      maxProcesses: config.sandbox.maxProcesses,
    });
    const ok = exec.exitCode === 0 && exec.limit === null;
    runs.push({ command, exec, ok });
    if (!ok) break;
  }
  return runs;
}

/**
 * Runs the test command in the sandbox (network off) and reads per-test results: JUnit reports when
 * the configuration names them or the runner writes them anyway (its command's `reports`; stale ones are
 * removed first), else the report auto-fix had the runner write, else the runner's ordinary output
 * (`parseTestOutput`).
 * The whole suite runs with its runner's report options added (`suiteCommand`), as targeted runs do
 * (`targetedCommand`): a quiet command still names every test.
 */
export async function runTestSuite(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
  signal?: AbortSignal,
  opts: {
    pristine?: string;
    /** Runs this instead of the test command (a targeted run: argv, and how the report shows it). */
    targeted?: Pick<
      TargetedCommand,
      "argv" | "display" | "onlyFiles" | "report" | "reports" | "noReportOptions" | "notes"
    >;
    /** A shorter time limit than the configuration's (a run that must fit a budget). */
    timeoutMs?: number;
    /** Canary tests run with the repository's (default true): the run's `integrity`. */
    canaries?: boolean;
    /** Files the patch changed: the canaries call the changed code where a test beside them does. */
    changed?: readonly string[];
  } = {},
): Promise<TestRun | null> {
  if (!config.test.command) return null;
  const tree = openTree(workdir);
  const whole = opts.targeted ? null : suiteCommand(config, toolTreeOf(workdir));
  const how = opts.targeted ?? whole!;
  const command = how.display;
  const globs = config.test.reports.length > 0 ? config.test.reports : (how.reports ?? []);
  const restored = opts.pristine
    ? restoreTestConfig(opts.pristine, workdir, config.protectedPaths.filter(isPlainPath))
    : [];
  for (const stale of findReports(tree, globs, true)) tree.remove(stale);
  const placed = opts.canaries === false ? null : placeCanaries(tree, config, whole, opts);
  const canaries: CanaryPlan | null = placed && "command" in placed ? placed : null;
  let exec: ExecResult;
  try {
    exec = await sandbox.run({
      workdir,
      command: canaries?.command ?? opts.targeted?.argv ?? whole!.command,
      timeoutMs: opts.timeoutMs ?? config.timeouts.testMs,
      memoryMb: config.sandbox.memoryMb,
      maxProcesses: config.sandbox.maxProcesses,
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (canaries) discardCanaries(tree, canaries);
    throw err;
  }
  const read = readResults(tree, globs, how, workdir, config.test.framework, exec);
  const reportNotes = read.notes;
  let parsed = read.parsed;
  const files = read.files;
  let integrity: RunIntegrity | undefined;
  if (canaries) {
    const checked = checkCanaries(tree, canaries, exec, parsed, files);
    integrity = checked.integrity;
    if (checked.exitCode !== exec.exitCode) exec = { ...exec, exitCode: checked.exitCode };
    if (checked.emptied) parsed = null;
  } else if (placed && "unverified" in placed) integrity = { state: "unverified", detail: placed.unverified };
  if (parsed && opts.targeted?.onlyFiles) {
    const dropped = onlyFilesTests(parsed.tests, opts.targeted.onlyFiles, workdir, files);
    if (dropped > 0)
      reportNotes.push(
        `${dropped} test${dropped === 1 ? "" : "s"} of files not selected also ran (the runner's file filters or its configuration added them); not counted`,
      );
  }
  const count = (o: TestOutcome): number =>
    parsed ? [...parsed.tests.values()].filter((v) => v === o).length : 0;
  const missing = parsed ? null : anyRunnerResults.missingRunner?.(`${exec.stdout}\n${exec.stderr}`);
  if (missing) reportNotes.push(missing);
  // A command auto-fix could not add report options to shows that single tests pass only when its
  // output lists passing (or skipped) tests: a quiet runner lists at most its failures.
  const unavailable =
    how.noReportOptions !== undefined && count("passed") + count("skipped") === 0
      ? how.noReportOptions
      : undefined;
  if (unavailable) reportNotes.push(`single tests cannot be judged from this run: ${unavailable}`);
  // How the runner's options were worded (a version of its tool that could not be read).
  reportNotes.push(...(how.notes ?? []));
  return {
    command,
    exec,
    tests: parsed?.tests ?? null,
    ...(files && files.size > 0 ? { files: relativeFiles(files, workdir) } : {}),
    parser: parsed?.parser ?? "exit-code",
    passed: count("passed"),
    failed: count("failed"),
    skipped: count("skipped"),
    restored,
    notes: reportNotes,
    ...(unavailable ? { perTestUnavailable: unavailable } : {}),
    ...(integrity ? { integrity } : {}),
  };
}

/**
 * The canaries of a run, added to the command that runs: the targeted one, or the whole suite with its
 * runner's report options; beside the tests that call the code the patch changed, when it names some.
 */
function placeCanaries(
  tree: TreeFs,
  config: RepoConfig,
  whole: { command: string } | null,
  opts: { targeted?: Parameters<typeof planCanaries>[2]; changed?: readonly string[]; pristine?: string },
): ReturnType<typeof planCanaries> {
  return planCanaries(
    tree,
    whole ? { ...config, test: { ...config.test, command: whole.command } } : config,
    opts.targeted,
    opts.changed && opts.changed.length > 0
      ? focusOf(tree, opts.changed, opts.pristine ? openTree(opts.pristine) : undefined)
      : undefined,
  );
}

/** A protected path that names one file (not a glob): the files the test command names. */
const isPlainPath = (p: string): boolean => !/[*?{}[\]]/.test(p) && !p.endsWith("/");
