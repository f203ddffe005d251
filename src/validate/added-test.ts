import type { RepoConfig } from "../config/index.ts";
import { openTree } from "../core/tree-fs.ts";
import { plural } from "../core/words.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import { isLoadFailure } from "./evidence.ts";
import type { TestOutcome } from "../runners/parts/results.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { candidateRun, type ValidateStageInput } from "./stage.ts";

/**
 * A new test file can change how every other test runs once it is in the suite: one that ends the
 * runner, skips everything or swaps the runner's hooks whenever its own file is not named on the
 * command line passes a run of its own file, and once merged every later run reports green. So before
 * a regression test joins the patch, the whole suite runs on the fixed tree with the test in place
 * (canaries included, as the candidate's validation ran it), and every other test must come out as
 * it did in the candidate's own run of the fixed tree: same outcome for every test id, none lost,
 * none newly skipped, the tamper checks holding as before. The test's own tests must run and pass.
 */

/** How the suite came out with the regression test in place. */
export interface AddedTestCheck {
  /** Whether the test may join the patch. */
  ok: boolean;
  /** For people: what the suite showed with it (ok), or why it is left out. */
  summary: string;
  /** Wall time the check's runs took (ms), the candidate's reused run not included. */
  extraMs: number;
  /** Whether the fixed tree's whole-suite results were the candidate's (reused) or run for the check. */
  baseline: "reused" | "ran" | null;
}

const NAMED = 5;
const names = (ids: readonly string[]): string =>
  `${ids.slice(0, NAMED).join(", ")}${ids.length > NAMED ? ` and ${ids.length - NAMED} more` : ""}`;

const ranOutcome = (o: TestOutcome | undefined): o is "passed" | "failed" => o === "passed" || o === "failed";

/**
 * What differs between the fixed tree's whole-suite run without the test (`without`) and with it
 * (`withTest`), in words; empty when every other test came out the same and the test's own ran and
 * passed. Test ids absent from `without` are the new test's own. Pure.
 */
export function addedTestChanges(
  without: TestRun,
  withTest: TestRun,
): { others: string[]; own: string | null } {
  const out: string[] = [];
  if (!without.tests) {
    // Single tests cannot be told apart on this runner's output: the run as a whole must agree.
    if (without.exec.exitCode !== withTest.exec.exitCode)
      out.push(
        `the suite's exit code was ${withTest.exec.exitCode ?? "none (killed)"} with it and ${without.exec.exitCode ?? "none"} without it`,
      );
    return { others: [...out, ...runLevel(without, withTest)], own: null };
  }
  // A run with it that names no test at all lost every test the run without it named.
  const withTests = withTest.tests ?? new Map<string, TestOutcome>();
  const lost = new Map<TestOutcome, string[]>();
  const skipped = new Map<TestOutcome, string[]>();
  const changed: string[] = [];
  for (const [id, was] of without.tests) {
    const now = withTests.get(id);
    if (now === was) continue;
    if (now === undefined) lost.set(was, [...(lost.get(was) ?? []), id]);
    else if (now === "skipped") skipped.set(was, [...(skipped.get(was) ?? []), id]);
    else changed.push(`${id} (${was} without it, ${now} with it)`);
  }
  for (const [was, ids] of lost)
    out.push(
      `${plural(ids.length, "test")} that ${was === "skipped" ? "were skipped" : was} without it ${ids.length === 1 ? "was" : "were"} ${was === "skipped" ? "not reported" : "not run"} with it: ${names(ids)}`,
    );
  for (const [was, ids] of skipped)
    out.push(
      `${plural(ids.length, "test")} that ${was} without it ${ids.length === 1 ? "was" : "were"} skipped with it: ${names(ids)}`,
    );
  if (changed.length > 0)
    out.push(`${plural(changed.length, "test")} came out differently with it: ${names(changed)}`);
  out.push(...runLevel(without, withTest));
  if (out.length === 0 && without.exec.exitCode !== withTest.exec.exitCode)
    out.push(
      `the suite's exit code was ${withTest.exec.exitCode ?? "none (killed)"} with it and ${without.exec.exitCode ?? "none"} without it, every test's result being the same`,
    );
  const own = [...withTests].filter(([id]) => !without.tests!.has(id));
  const ownTests = own.filter(([id]) => !isLoadFailure(id));
  const ownFailed = own.filter(([, o]) => o === "failed").map(([id]) => id);
  const ownWhy =
    ownFailed.length > 0
      ? `it failed when the whole suite ran: ${names(ownFailed)}`
      : ownTests.some(([, o]) => ranOutcome(o))
        ? null
        : ownTests.length > 0
          ? "its tests were skipped when the whole suite ran"
          : "its tests did not run when the whole suite ran";
  return { others: out, own: ownWhy };
}

/** What differs in the runs as wholes: a limit hit, the tamper checks. */
function runLevel(without: TestRun, withTest: TestRun): string[] {
  const out: string[] = [];
  if (withTest.exec.limit !== null && without.exec.limit === null)
    out.push(`the suite hit the sandbox's ${withTest.exec.limit} limit with it and not without it`);
  const before = without.integrity?.state;
  const after = withTest.integrity?.state;
  if (before === "intact" && after !== "intact")
    out.push(
      `the runner checks passed without it and not with it (${withTest.integrity?.detail ?? "no check-test result was read"})`,
    );
  return out;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs the whole suite on the fixed tree (`diff` applied) with the regression test written at `path`,
 * and compares it with the candidate's own whole-suite run of the fixed tree (reused: the run its
 * validation made; when that validation ran only the related tests, the fixed tree's whole suite runs
 * here too, each of the two runs within half the validation budget).
 */
export async function checkAddedTest(
  input: ValidateStageInput,
  diff: string,
  test: { path: string; text: string },
  signal?: AbortSignal,
): Promise<AddedTestCheck> {
  const { states, sandbox, config } = input;
  const leftOut = (why: string, extraMs = 0, baseline: AddedTestCheck["baseline"] = null) => ({
    ok: false,
    summary: why,
    extraMs,
    baseline,
  });
  if (!states || !sandbox || !config.test.command)
    return leftOut("the repository's test suite could not be run here to check it with the other tests");
  const started = performance.now();
  const candidate = await candidateRun(input, diff);
  const wholeRan = candidate?.run && (candidate.result.tests?.kind ?? "full") !== "targeted";
  let without: TestRun | null = wholeRan ? candidate.run : null;
  let baseline: AddedTestCheck["baseline"] = without ? "reused" : null;
  // Without the candidate's whole-suite run, the fixed tree's whole suite runs here too: each of the
  // two runs gets at most half the validation budget.
  let timeoutMs: number | undefined;
  if (!without) {
    const budget = config.validation.budgetMs;
    if (budget <= 0)
      return leftOut(
        `the whole suite could not be run with it within the ${seconds(budget)} budget (validation.budget), so it could not be shown to leave the other tests alone`,
      );
    timeoutMs = Math.min(config.timeouts.testMs, Math.floor(budget / 2));
    without = await inTree(states, diff, null, config, sandbox, signal, timeoutMs);
    baseline = "ran";
    if (!without) return leftOut("the fixed tree's whole suite could not be run", ms(started), baseline);
    if (without.exec.limit !== null)
      return leftOut(
        `the fixed tree's whole suite hit the sandbox's ${without.exec.limit} limit${without.exec.limit === "time" ? ` (${seconds(timeoutMs)}, half the validation budget)` : ""} without it, so it could not be shown to leave the other tests alone`,
        ms(started),
        baseline,
      );
  }
  const withTest = await inTree(states, diff, test, config, sandbox, signal, timeoutMs);
  const extraMs = ms(started);
  if (!withTest) return leftOut("the whole suite could not be run with it", extraMs, baseline);
  const { others, own } = addedTestChanges(without, withTest);
  if (others.length > 0)
    return leftOut(
      `the regression test changed how other tests ran: ${[...others, ...(own ? [own] : [])].join("; ")}`,
      extraMs,
      baseline,
    );
  if (own)
    return leftOut(
      `the regression test did not pass as part of the whole suite (${own}), so the suite would not catch the bug again`,
      extraMs,
      baseline,
    );
  const counted = without.tests ? without.tests.size : 0;
  return {
    ok: true,
    summary: `With it in place the whole suite ran as it did without it (${plural(counted, "other test result")} the same${withTest.integrity?.state === "intact" ? ", the runner checks passing" : ""}), in ${seconds(extraMs)}.`,
    extraMs,
    baseline,
  };
}

const ms = (since: number): number => Math.round(performance.now() - since);

/** The whole suite on a fresh copy of the fixed tree, with the test file written first when given. */
async function inTree(
  states: NonNullable<ValidateStageInput["states"]>,
  diff: string,
  test: { path: string; text: string } | null,
  config: RepoConfig,
  sandbox: SandboxPort,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<TestRun | null> {
  const copy = await states.patched(diff);
  try {
    if (test) {
      const fs = openTree(copy.dir);
      if (fs.kind(test.path) !== "missing") throw new Error(`${test.path} already exists in the tree`);
      fs.write(test.path, test.text.endsWith("\n") ? test.text : `${test.text}\n`, { onLink: "replace" });
    }
    return await runTestSuite(sandbox, copy.dir, config, signal, {
      pristine: states.pristineDir,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
  } finally {
    await copy.dispose();
  }
}
