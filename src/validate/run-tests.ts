import type { RepoConfig } from "../config/index.ts";
import {
  compileGlob,
  mayHoldTestConfig,
  notVirtualEnv,
  SKIPPED_DIRS,
  testConfigChange,
} from "../core/path-rules.ts";
import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type ExecResult, SANDBOX_WORKDIR, type SandboxPort } from "../sandbox/index.ts";
import {
  type CanaryPlan,
  checkCanaries,
  discardCanaries,
  focusOf,
  planCanaries,
  type RunIntegrity,
} from "./canaries/index.ts";
import { anyRunnerResults } from "../runners/index.ts";
import type { ParsedTests, TestOutcome } from "../runners/parts/results.ts";
import { MAX_JUNIT_CHARS, parseJUnitXml } from "../runners/shared/results-junit-xml.ts";
import { parseOwnReport } from "../runners/shared/results-own-report.ts";
import { parseTestOutput } from "./output.ts";
import { suiteCommand, type TargetedCommand } from "./targets/runner-command.ts";

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

/** Largest JUnit report read, and the most read in all: a report past them is left out (and said so). */
const MAX_REPORT_BYTES = MAX_JUNIT_CHARS;
const MAX_REPORTS_BYTES = 64 * 1024 * 1024;
/** Largest test configuration file compared and restored. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** Entries a walk of a work tree visits at most. */
const MAX_WALK_ENTRIES = 1_000_000;

/**
 * Regular files (or the `kinds` asked for) under the root whose path satisfies `want`, found through
 * tree-fs (no link followed; dependency, VCS and cache folders left out), at most `maxDepth` folders
 * deep. A tree too large to walk (more than 1,000,000 entries) throws: an answer from part of it could
 * miss what matters.
 */
export function findTreeFiles(
  tree: TreeFs,
  want: (rel: string) => boolean,
  opts: { maxDepth?: number; kinds?: readonly string[] } = {},
): string[] {
  const maxDepth = opts.maxDepth ?? 8;
  const kinds = opts.kinds ?? ["file"];
  const { entries, truncated } = tree.walk({
    maxDepth,
    maxEntries: MAX_WALK_ENTRIES,
    descend: (_rel, name) => !SKIPPED_DIRS.has(name),
    keep: notVirtualEnv,
  });
  if (truncated) {
    throw new TreeFsError(
      "too-large",
      "",
      `the work tree holds more than ${MAX_WALK_ENTRIES} entries; it was not searched.`,
    );
  }
  return entries
    .filter((e) => e.kind !== "directory" && kinds.includes(e.kind) && want(e.rel))
    .map((e) => e.rel);
}

/** Reports the globs name; `stale` also finds links and special files there (removed, never read). */
function findReports(tree: TreeFs, globs: readonly string[], stale = false): string[] {
  if (globs.length === 0) return [];
  const matchers = globs.map(compileGlob);
  const kinds = stale ? ["file", "link", "special"] : ["file"];
  return findTreeFiles(tree, (rel) => matchers.some((m) => m(rel)), { kinds });
}

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
      "argv" | "display" | "onlyFiles" | "report" | "reports" | "noReportOptions"
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
  const whole = opts.targeted ? null : suiteCommand(config);
  const how = opts.targeted ?? whole!;
  const command = how.display;
  const globs = config.test.reports.length > 0 ? config.test.reports : (how.reports ?? []);
  const tree = openTree(workdir);
  const restored = opts.pristine
    ? restoreTestConfig(opts.pristine, workdir, config.protectedPaths.filter(isPlainPath))
    : [];
  for (const stale of findReports(tree, globs, true)) tree.remove(stale);
  // Canaries are added to the command that runs: the targeted one, or the whole suite with its runner's
  // report options.
  const placed =
    opts.canaries === false
      ? null
      : planCanaries(
          tree,
          whole ? { ...config, test: { ...config.test, command: whole.command } } : config,
          opts.targeted,
          opts.changed && opts.changed.length > 0
            ? focusOf(tree, opts.changed, opts.pristine ? openTree(opts.pristine) : undefined)
            : undefined,
        );
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
  let parsed: ParsedTests | null = null;
  const reports = findReports(tree, globs);
  const reportNotes: string[] = [];
  const reportFiles = new Map<string, string[]>();
  if (reports.length > 0) {
    const tests = new Map<string, TestOutcome>();
    let read = 0;
    let budget = MAX_REPORTS_BYTES;
    for (const file of reports) {
      let text: string;
      try {
        const bytes = tree.read(file, { maxBytes: Math.min(MAX_REPORT_BYTES, budget) });
        budget -= bytes.length;
        text = bytes.toString("utf8");
      } catch (err) {
        if (!(err instanceof TreeFsError)) throw err;
        reportNotes.push(`test report ${file} not read: ${err.message}`);
        continue;
      }
      const r = parseJUnitXml(text, tests, reportFiles);
      if (r.note) reportNotes.push(`test report ${file}: ${r.note}`);
      read++;
    }
    // Reports the run wrote (stale ones were removed before it) that name no test: it collected none.
    if (read > 0) parsed = { parser: "junit-xml", tests };
  }
  let files = parsed ? reportFiles : undefined;
  if (!parsed && how.report) {
    const own = readOwnReport(tree, how.report, workdir);
    if (own.note) reportNotes.push(own.note);
    if (own.parsed) {
      parsed = own.parsed;
      files = own.parsed.files;
    }
  }
  if (!parsed) {
    parsed = parseTestOutput(config.test.framework, exec.stdout, exec.stderr);
    files = parsed?.files;
    if (parsed?.note) reportNotes.push(parsed.note);
  }
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
 * The JUnit report a targeted command had its runner write (`report`), its ids `file > suite > name` with
 * the file relative to the work tree, as the other JavaScript runners' ids; removed once read. None when
 * the run wrote none (the runner stopped before its end): the output is read instead. A report that
 * names no test is a run that collected none.
 */
function readOwnReport(
  tree: TreeFs,
  report: NonNullable<TargetedCommand["report"]>,
  workdir: string,
): { parsed?: ParsedTests; note?: string } {
  const rel = report.path;
  let text: string;
  try {
    const bytes = tree.readIfExists(rel, { maxBytes: MAX_REPORT_BYTES });
    if (bytes === null)
      return { note: `the runner wrote no report (${rel}): it stopped before its tests ran` };
    text = bytes.toString("utf8");
    tree.remove(rel);
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
    // A link, a folder or an oversized file in its place: never read, and not left in the tree.
    try {
      tree.remove(rel);
    } catch (e) {
      if (!(e instanceof TreeFsError)) throw e;
    }
    return { note: `test report ${rel} not read: ${err.message}` };
  }
  const relFile = (f: string): string => relativeFiles(new Map([["", [f]]]), workdir).get("")?.[0] ?? f;
  return { parsed: parseOwnReport(text, report, relFile) };
}

/**
 * Keeps only the tests of `only` (ids `file > suite > name`, the file relative to the work tree or inside
 * it): returns how many were dropped.
 */
function onlyFilesTests(
  tests: Map<string, TestOutcome>,
  only: readonly string[],
  workdir: string,
  named?: Map<string, string[]>,
): number {
  const keep = new Set(only.map((f) => f.replace(/^\.\//, "")));
  const files = relativeFiles(
    new Map([...tests.keys()].map((id) => [id, [id.split(" > ")[0] ?? ""]])),
    workdir,
  );
  let dropped = 0;
  for (const [id, [file]] of files) {
    if (keep.has((file ?? "").replace(/^\.\//, ""))) continue;
    tests.delete(id);
    named?.delete(id);
    dropped++;
  }
  return dropped;
}

/** A protected path that names one file (not a glob): the files the test command names. */
const isPlainPath = (p: string): boolean => !/[*?{}[\]]/.test(p) && !p.endsWith("/");

/**
 * The files a run's output names, made relative to the work tree when they are absolute paths inside
 * it (the sandbox's `/workspace/…`, or the host's path of the tree for a sandbox that runs in place);
 * any other path is kept as printed, to be refused when it is looked up among the tree's tests.
 */
export function relativeFiles(files: Map<string, string[]>, workdir: string): Map<string, string[]> {
  const roots = new Set([`${SANDBOX_WORKDIR}/`, `${resolve(workdir)}/`]);
  try {
    roots.add(`${realpathSync(workdir)}/`);
  } catch {
    // A tree that is gone has no other name.
  }
  const rel = (f: string): string => {
    for (const r of roots) if (f.startsWith(r) && f.length > r.length) return f.slice(r.length);
    return f;
  };
  return new Map([...files].map(([id, fs]) => [id, fs.map(rel)]));
}
