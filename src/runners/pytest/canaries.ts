/**
 * pytest's check tests: a module of plain test functions with a plain `assert`, beside the first target,
 * the command's first path or a test module of its `testpaths`, given to pytest as one more path.
 */
import { posix } from "node:path";
import type { TreeFs } from "../../core/tree-fs.ts";
import type { CanaryRules, Focus, NoCanaries, RunnerCanaries, Spot, SpotInput } from "../parts/canaries.ts";
import {
  appended,
  CANARY_DEFAULTS,
  deselectingAfter,
  folderOf,
  positionals,
  sampleAt,
  skipDir,
} from "../shared/canaries-args.ts";
import { pythonCanary, pythonLeftovers } from "../shared/canaries-python.ts";
import { findTestFile } from "../shared/canaries-sample.ts";
import { pytestTestpaths } from "./canaries-testpaths.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING =
  /^(-k|-m|-x|--exitfirst|--maxfail(=.*)?|--sw|--stepwise|--lf|--last-failed|--ff|--deselect(=.*)?|-k.+|-m.+|--co|--collect-only)$/;
const PY_TEST_FILE = /(^|\/)(test[^/]*\.py|[^/]*_test\.py)$/;

/** The word that starts pytest (`pytest`, `py.test`, `python -m pytest`), or -1. */
function start(words: readonly string[]): number {
  return words.findIndex(
    (w, i) => /(^|\/)(py\.test|pytest(-3)?)$/.test(w) || (w === "pytest" && words[i - 1] === "-m"),
  );
}

/** The folder under `dir` for the check tests: beside the first test module found there, else `dir` itself. */
function pyIn(tree: TreeFs, dir: string, focus?: Focus): { dirs: string[]; sample?: string } {
  const found = findTestFile(tree, (rel) => PY_TEST_FILE.test(rel), skipDir, dir, focus);
  if (!found) return { dirs: [dir] };
  const at = posix.dirname(found);
  return { dirs: [at === "." ? "" : at], sample: found };
}

/** Beside the first target, the command's first path or a test module of its `testpaths`. */
function spot({ tree, words, targets, valueOptions, focus }: SpotInput): Spot | NoCanaries {
  if (targets) {
    const d = targets.length > 0 ? folderOf(tree, targets[0]!.split("::")[0]!) : "";
    if (d === null) return { unverified: "the first target is not a file or folder of the tree" };
    const file = sampleAt(tree, targets[0]?.split("::")[0]);
    return { ...(file.sample ? { dirs: [d], ...file } : pyIn(tree, d, focus)), args: appended };
  }
  const at = start(words);
  if (at < 0) return { unverified: "the test command does not start pytest" };
  const pos = positionals(words, at + 1, valueOptions);
  if (pos.length > 0) {
    const d = folderOf(tree, pos[0]!);
    if (d === null) return { unverified: `\`${pos[0]}\` is not a file or folder of the tree` };
    const file = sampleAt(tree, pos[0]);
    return { ...(file.sample ? { dirs: [d], ...file } : pyIn(tree, d, focus)), args: appended };
  }
  // No positional argument: pytest runs its `testpaths` (or the current folder); named explicitly, they
  // run as before, the check tests' file with them.
  const tp = pytestTestpaths(tree);
  if (tp && tp.length > 0) {
    if (tp.some((p) => /[*?[\]]/.test(p) || p.startsWith("-")))
      return { unverified: "pytest's `testpaths` holds a pattern" };
    const d = folderOf(tree, tp[0]!);
    if (d === null) return { unverified: `pytest's testpaths \`${tp[0]}\` is not a folder of the tree` };
    return { ...pyIn(tree, d, focus), args: appended, scope: tp };
  }
  return { ...pyIn(tree, "", focus), args: appended, scope: ["."] };
}

/**
 * pytest's last summary line counts no error and one failure, or as many as the short summary (`-rA`)
 * reports the failing check test: pytest 7 and earlier collect a file named on the command line once
 * more when a folder also named holds it, and report its failing test once per collection.
 */
function onlyOneFailed(output: string, canary?: { file: string; failName: string }): boolean {
  const lines = [...output.matchAll(/^[= ]*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s/gm)].map((m) => m[1]!);
  const last = lines.at(-1) ?? "";
  const failed = /(?:^|, )(\d+) failed(?:,|$)/.exec(last)?.[1];
  if (failed === undefined || /\berrors?\b/.test(last)) return false;
  return failed === "1" || (canary !== undefined && Number(failed) === canaryFailures(output, canary));
}

/** How many times pytest's short summary reports the failing check test as failed. */
function canaryFailures(output: string, { file, failName }: { file: string; failName: string }): number {
  if (file === "") return 0;
  return [...output.matchAll(/^FAILED (\S+?)::(?:\w+::)?(\w+)(?: |$)/gm)].filter(
    (m) => (m[1] === file || m[1]!.endsWith(`/${file}`)) && m[2] === failName,
  ).length;
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, start),
  spot,
  source: (input) => pythonCanary("functions", input),
  // With nothing else collected, pytest says so: 5.
  emptyExitCode: 5,
  onlyOneFailed,
  stoppedBeforeTests: ({ reported, ids, stdout }) =>
    !reported &&
    ids.some((id) => id.endsWith("::<collection>")) &&
    /^!+ Interrupted: \d+ errors? during collection !+$/m.test(stdout)
      ? "pytest stopped at an error collecting the tests, before any test ran (the check tests with them)"
      : null,
  leftovers: pythonLeftovers,
};

export const canaries: RunnerCanaries = { canaries: rules };
