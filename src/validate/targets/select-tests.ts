import type { RepoConfig, TestRunnerKind } from "../../config/index.ts";
import { TreeFsError } from "../../core/tree-fs.ts";
import { plural } from "../../core/words.ts";
import { type Runner, runnerFor } from "../../runners/index.ts";
import { goSuite } from "./go.ts";
import { javaSuite } from "./java.ts";
import { javascriptSuite } from "./javascript.ts";
import { pythonSuite } from "./python.ts";
import { rustSuite } from "./rust.ts";
import {
  commandScope,
  inScope,
  type NotTargetable,
  type TargetedCommand,
  targetedCommand,
  validTarget,
} from "./runner-command.ts";
import { listTree } from "./tree-listing.ts";
import {
  REASON_TEXT,
  type SelectedTest,
  type SelectReason,
  type TestSuiteMap,
  type TreeListing,
} from "./types.ts";

/** More selected tests than this: the selection is the suite (its whole command runs). */
export const MAX_TARGETS = 2000;
/** Text read from a reproducer or a model answer for test names. */
const MAX_TEXT_CHARS = 256 * 1024;

/** Which tests a candidate's validation runs first, and why. */
export interface TestSelection {
  /** targeted: only `tests`; full: the whole test command (with why in `why`). */
  kind: "targeted" | "full";
  runner: TestRunnerKind | null;
  tests: SelectedTest[];
  /** How many test targets the tree holds (files, modules, packages or classes), when known. */
  total: number | null;
  /** One sentence for the report. */
  why: string;
}

/** The suite map of each kind of runner's targets (the runner says which kind it takes). */
const SUITES: Record<Runner["suiteKind"], (listing: TreeListing, runner: TestRunnerKind) => TestSuiteMap> = {
  python: pythonSuite,
  javascript: javascriptSuite,
  go: goSuite,
  java: javaSuite,
  rust: rustSuite,
};

export function suiteFor(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  return SUITES[runnerFor(runner).suiteKind](listing, runner);
}

/**
 * Whether `id` names one test the runner can run by itself (see the runner's `singleTestId`), whose file
 * or module is one of the tree's tests.
 */
export function singleTest(runner: TestRunnerKind, suite: TestSuiteMap, id: string): boolean {
  if (suite.targets.has(id)) return false;
  return runnerFor(runner).singleTestId(id) && suite.targetOfId(id) !== null;
}

/** Targets a text mentions by path, dotted name or class name (tokens looked up, never searched for). */
export function targetsNamedIn(suite: TestSuiteMap, text: string): string[] {
  const byAlias = new Map<string, string[]>();
  for (const t of suite.targets.keys()) {
    for (const a of suite.aliases(t)) byAlias.set(a, [...(byAlias.get(a) ?? []), t]);
  }
  const found = new Set<string>();
  for (const m of text.slice(0, MAX_TEXT_CHARS).matchAll(/[\w$][\w$./:-]*/g)) {
    const token = m[0].replace(/[.:]+$/, "").replace(/^\.\//, "");
    for (const key of [token, token.split("::")[0]!]) {
      const hits = byAlias.get(key);
      // A bare file name shared by many tests names none of them in particular.
      if (hits && hits.length <= 3) for (const h of hits) found.add(h);
    }
  }
  return [...found];
}

export interface SelectInput {
  /** The unpatched tree (set up): tests are found there, never in a candidate's tree. */
  root: string;
  config: Pick<RepoConfig, "test" | "validation">;
  /** Files the candidate changes (repository-relative). */
  changed: readonly string[];
  /**
   * Tests that failed on the unpatched tree, as far as the job has run them: ids, with the files the
   * runner's output named for them where its ids do not name their file.
   */
  failedBefore?: readonly (string | { id: string; files?: readonly string[] })[];
  /** The reproducer script and the model's answer (patch, locations): tests they name are selected. */
  reproducerText?: string;
  modelText?: string;
  /** The tests of `root` found earlier (the unpatched tree does not change during a job). */
  suite?: TestSuiteMap;
}

/**
 * The tests a candidate's validation runs first: those that failed before the patch, that import or are
 * named after a changed module, and that the reproducer or the model names. Every target is a test the
 * tree holds as a regular file (no link), in its runner's form; a configuration whose tests cannot be
 * named gives a full selection that says why.
 */
export function selectTests(input: SelectInput): TestSelection {
  const { config } = input;
  const runner = config.validation.runner;
  const full = (why: string, total: number | null = null): TestSelection => ({
    kind: "full",
    runner,
    tests: [],
    total,
    why,
  });
  if (!config.test.command) return full("there is no test command");
  const probe = targetedCommand(config, []);
  // A command that cannot be narrowed runs the whole suite; with a known runner the tests that relate to
  // the change are still named (they run with the suite), so the evidence can say which load the code.
  const unnarrowed = "reason" in probe ? `${probe.reason}: the whole suite runs` : null;
  if (unnarrowed !== null && !runner) return full(unnarrowed);
  let suite = input.suite;
  if (!suite) {
    let listing: TreeListing;
    try {
      listing = listTree(input.root);
    } catch (err) {
      if (err instanceof TreeFsError)
        return full(unnarrowed ?? `the tree cannot be listed (${err.message}): the whole suite runs`);
      throw err;
    }
    suite = suiteFor(listing, runner!);
  }
  const picked = pickTests(input, runner!, suite);
  const { tests, within } = withinCommand(config, runner!, picked);
  const total = suite.targets.size;
  if (unnarrowed !== null) return { kind: "full", runner, tests, total, why: unnarrowed };
  if (tests.length > MAX_TARGETS) {
    return full(
      `${tests.length} of ${total} tests relate to the change (over ${MAX_TARGETS}): the whole suite runs`,
      total,
    );
  }
  return {
    kind: "targeted",
    runner,
    tests,
    total,
    why:
      tests.length === 0
        ? `no test of the ${total} found relates to the change${within}`
        : `${tests.length} of ${plural(total, `${runner} ${runnerFor(runner!).targetWord}`, `${runner} ${pluralWord(runnerFor(runner!).targetWord)}`)} ${tests.length === 1 ? "relates" : "relate"} to the change${within}`,
  };
}

/**
 * The related tests of the suite: those that failed before (alone where the runner can name single
 * tests), that import or are named after a changed module, and that the reproducer or the model names;
 * a single test whose whole file or module is selected anyway runs with it. Sorted by target.
 */
function pickTests(input: SelectInput, runner: TestRunnerKind, suite: TestSuiteMap): SelectedTest[] {
  const picked = new Map<string, SelectedTest>();
  const add = (
    target: string,
    reason: SelectReason,
    detail?: string,
    how: { depth?: number | undefined; named?: "module" | "package" | undefined } = {},
  ) => {
    if (!validTarget(runner, target)) return;
    if (!suite.targets.has(target) && !singleTest(runner, suite, target)) return;
    const { depth, named } = how;
    const cur = picked.get(target);
    if (!cur) {
      picked.set(target, {
        target,
        reasons: [reason],
        ...(detail ? { detail } : {}),
        ...(depth !== undefined ? { depth } : {}),
        ...(named ? { named } : {}),
      });
      return;
    }
    if (!cur.reasons.includes(reason)) {
      cur.reasons.push(reason);
      // A test that failed before and also relates to the change names both (the failure, the module).
      if (detail && cur.reasons.length === 2 && cur.reasons[0] === "failed-before")
        cur.detail = cur.detail ? `${cur.detail}; ${detail}` : detail;
    }
    if (depth !== undefined && (cur.depth === undefined || depth < cur.depth)) cur.depth = depth;
    if (named && cur.named !== "module") cur.named = named;
  };
  // A test that failed before runs by itself where the runner can name single tests (a node id, a
  // dotted test id), else with its file, module, package or class.
  for (const failed of input.failedBefore ?? []) {
    const { id, files } = typeof failed === "string" ? { id: failed, files: undefined } : failed;
    const t = singleTest(runner, suite, id) ? id : suite.targetOfId(id, files);
    // The report names the failed test when it selects its whole file, module, package or class.
    if (t) add(t, "failed-before", t === id ? undefined : `failed: ${id}`);
  }
  for (const [t, r] of suite.related(input.changed))
    for (const reason of r.reasons) add(t, reason, r.detail, { depth: r.depth, named: r.named });
  if (input.reproducerText)
    for (const t of targetsNamedIn(suite, input.reproducerText)) add(t, "named-by-reproducer");
  if (input.modelText) for (const t of targetsNamedIn(suite, input.modelText)) add(t, "named-by-model");
  // A single test whose whole file or module is selected anyway runs with it.
  for (const [t, sel] of picked) {
    const owner = suite.targets.has(t) ? null : suite.targetOfId(t);
    const whole = owner ? picked.get(owner) : undefined;
    if (!whole) continue;
    for (const r of sel.reasons) if (!whole.reasons.includes(r)) whole.reasons.push(r);
    picked.delete(t);
  }
  const order = Object.keys(REASON_TEXT);
  for (const t of picked.values()) t.reasons.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return [...picked.values()].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}

/** The related tests within what the test command runs (`<runner> tests/test_api.py`), and the words for it. */
function withinCommand(
  config: SelectInput["config"],
  runner: TestRunnerKind,
  picked: SelectedTest[],
): { tests: SelectedTest[]; within: string } {
  // The test command names what it runs (`<runner> tests/test_api.py`): related tests are chosen within it.
  const scope = config.validation.withinCommand === false ? null : commandScope(config);
  let within = "";
  let tests = picked;
  if (scope) {
    const inside = tests.filter((t) => inScope(runner, t.target, scope));
    const outside = tests.length - inside.length;
    const named = scope.slice(0, 5).join(" ") + (scope.length > 5 ? " …" : "");
    within = ` within what the test command runs (\`${named}\`${outside > 0 ? `; ${outside} related ${outside === 1 ? "test" : "tests"} outside it left out, validation.within-command` : ""})`;
    tests = inside;
  }
  return { tests, within };
}

/** A target word's plural ("test class" → "test classes"). */
const pluralWord = (w: string): string => (w.endsWith("s") ? `${w}es` : `${w}s`);

/** The command that runs the selected tests (the selection must be targeted). */
export function commandFor(
  config: Pick<RepoConfig, "test" | "validation">,
  targets: readonly string[],
): TargetedCommand | NotTargetable {
  return targetedCommand(config, targets);
}

/** Report lines: each selected test with its reasons. */
export function describeSelected(tests: readonly SelectedTest[]): string[] {
  return tests.map(
    (t) =>
      `${t.target}: ${t.reasons.map((r) => REASON_TEXT[r]).join(", ")}${t.detail ? ` (${t.detail})` : ""}`,
  );
}
