import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { globToRegExp, type RepoConfig } from "../config/index.ts";
import type { ExecResult, SandboxPort } from "../sandbox/index.ts";
import { MAX_JUNIT_CHARS } from "./junit.ts";
import { type ParsedTests, parseJUnitXml, parseTestOutput, type TestOutcome } from "./parsers.ts";

/** One run of the repository's test suite. */
export interface TestRun {
  command: string;
  exec: ExecResult;
  /** Per-test outcomes when the output (or a JUnit report) could be read; null = exit code only. */
  tests: Map<string, TestOutcome> | null;
  parser: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Set when output or reports were past their caps: what was not read. */
  note?: string;
}

/** Most JUnit report files read after one run, and most bytes read over all of them. */
export const MAX_JUNIT_FILES = 200;
export const MAX_JUNIT_TOTAL_BYTES = 64 * 1024 * 1024;

/**
 * Reads at most `max` bytes of a report written by sandboxed code: never through a symlink, never from
 * a FIFO or device (opened non-blocking, regular files only). Null when it cannot be read that way.
 */
function readReport(file: string, max: number): { text: string; size: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const want = Math.min(st.size, max);
    const buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString("utf8"), size: st.size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A setup step's outcome (dependency install), kept for the report. */
export interface SetupRun {
  command: string;
  exec: ExecResult;
  ok: boolean;
}

const SKIP_DIRS = new Set([".git", "node_modules", "venv", ".venv"]);

function findReports(root: string, globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const res = globs.map(globToRegExp);
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && depth < 8) walk(full, depth + 1);
      } else if (e.isFile() && res.some((r) => r.test(relative(root, full)))) found.push(full);
    }
  };
  walk(root, 0);
  return found;
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
 * the configuration names them (stale ones are removed first), else the runner's output.
 */
export async function runTestSuite(
  sandbox: SandboxPort,
  workdir: string,
  config: RepoConfig,
  signal?: AbortSignal,
): Promise<TestRun | null> {
  const command = config.test.command;
  if (!command) return null;
  for (const stale of findReports(workdir, config.test.reports)) rmSync(stale, { force: true });
  const exec = await sandbox.run({
    workdir,
    command,
    timeoutMs: config.timeouts.testMs,
    memoryMb: config.sandbox.memoryMb,
    maxProcesses: config.sandbox.maxProcesses,
    ...(signal ? { signal } : {}),
  });
  let parsed: ParsedTests | null = null;
  const reports = findReports(workdir, config.test.reports);
  if (reports.length > 0) {
    const tests = new Map<string, TestOutcome>();
    const notes: string[] = [];
    if (reports.length > MAX_JUNIT_FILES)
      notes.push(`${reports.length} JUnit reports were found; only ${MAX_JUNIT_FILES} were read`);
    let budget = MAX_JUNIT_TOTAL_BYTES;
    for (const file of reports.slice(0, MAX_JUNIT_FILES)) {
      if (budget <= 0) {
        notes.push(
          `the JUnit reports passed ${MAX_JUNIT_TOTAL_BYTES / (1024 * 1024)} MB; the rest were not read`,
        );
        break;
      }
      const cap = Math.min(budget, MAX_JUNIT_CHARS);
      const report = readReport(file, cap);
      if (!report) {
        notes.push(`${relative(workdir, file)} is not a regular file and was not read`);
        continue;
      }
      budget -= report.text.length;
      const r = parseJUnitXml(report.text, tests);
      if (report.size > cap)
        notes.push(`${relative(workdir, file)} was ${report.size} bytes; only the first ${cap} were read`);
      else if (r.note) notes.push(r.note);
    }
    if (tests.size > 0)
      parsed = { parser: "junit-xml", tests, ...(notes.length ? { note: notes.join("; ") } : {}) };
  }
  parsed ??= parseTestOutput(config.test.framework, exec.stdout, exec.stderr);
  const count = (o: TestOutcome): number =>
    parsed ? [...parsed.tests.values()].filter((v) => v === o).length : 0;
  return {
    command,
    exec,
    tests: parsed?.tests ?? null,
    parser: parsed?.parser ?? "exit-code",
    passed: count("passed"),
    failed: count("failed"),
    skipped: count("skipped"),
    ...(parsed?.note ? { note: parsed.note } : {}),
  };
}
