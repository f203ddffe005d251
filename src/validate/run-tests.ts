import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { globToRegExp, type RepoConfig } from "../config/index.ts";
import type { ExecResult, SandboxPort } from "../sandbox/index.ts";
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
    for (const file of reports) parseJUnitXml(readFileSync(file, "utf8"), tests);
    if (tests.size > 0) parsed = { parser: "junit-xml", tests };
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
  };
}
