import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { RepoConfig } from "../config/index.ts";
import { compileGlob, notVirtualEnv, SKIPPED_DIRS } from "../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import type { ParsedTests, TestOutcome } from "../runners/parts/results.ts";
import { MAX_JUNIT_CHARS, parseJUnitXml } from "../runners/shared/results-junit-xml.ts";
import { parseOwnReport } from "../runners/shared/results-own-report.ts";
import { type ExecResult, SANDBOX_WORKDIR } from "../sandbox/index.ts";
import { parseTestOutput } from "./output.ts";
import type { TargetedCommand } from "./targets/runner-command.ts";

/**
 * Reading what a finished run of the tests left: its JUnit reports, the report auto-fix had its runner
 * write, or its output (through the runner's results part); and the files its tests were named from.
 */

/** Largest JUnit report read, and the most read in all: a report past them is left out (and said so). */
const MAX_REPORT_BYTES = MAX_JUNIT_CHARS;
const MAX_REPORTS_BYTES = 64 * 1024 * 1024;
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
export function findReports(tree: TreeFs, globs: readonly string[], stale = false): string[] {
  if (globs.length === 0) return [];
  const matchers = globs.map(compileGlob);
  const kinds = stale ? ["file", "link", "special"] : ["file"];
  return findTreeFiles(tree, (rel) => matchers.some((m) => m(rel)), { kinds });
}

/**
 * Per-test results of a finished run, and notes on what could not be read: the JUnit reports `globs`
 * find (stale ones were removed before the run), else the report auto-fix had the runner write, else
 * the runner's ordinary output.
 */
export function readResults(
  tree: TreeFs,
  globs: readonly string[],
  how: Pick<TargetedCommand, "report">,
  workdir: string,
  framework: RepoConfig["test"]["framework"],
  exec: ExecResult,
): { parsed: ParsedTests | null; files: Map<string, string[]> | undefined; notes: string[] } {
  const notes: string[] = [];
  const reports = readReports(tree, findReports(tree, globs), notes);
  if (reports) return { parsed: reports.parsed, files: reports.files, notes };
  if (how.report) {
    const own = readOwnReport(tree, how.report, workdir);
    if (own.note) notes.push(own.note);
    if (own.parsed) return { parsed: own.parsed, files: own.parsed.files, notes };
  }
  const parsed = parseTestOutput(framework, exec.stdout, exec.stderr);
  if (parsed?.note) notes.push(parsed.note);
  return { parsed, files: parsed?.files, notes };
}

/**
 * The tests of the JUnit reports found (each read up to its cap, all up to MAX_REPORTS_BYTES), or null
 * when none could be read. Reports the run wrote that name no test: it collected none.
 */
function readReports(
  tree: TreeFs,
  reports: readonly string[],
  notes: string[],
): { parsed: ParsedTests; files: Map<string, string[]> } | null {
  const tests = new Map<string, TestOutcome>();
  const files = new Map<string, string[]>();
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
      notes.push(`test report ${file} not read: ${err.message}`);
      continue;
    }
    const r = parseJUnitXml(text, tests, files);
    if (r.note) notes.push(`test report ${file}: ${r.note}`);
    read++;
  }
  return read > 0 ? { parsed: { parser: "junit-xml", tests }, files } : null;
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
export function onlyFilesTests(
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
