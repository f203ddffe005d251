import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import { addRestored, baselineLimit, compareRuns, type TestsRan, type ValidationResult } from "./compare.ts";
import { MAX_FAILURE_MESSAGES } from "./failure-messages.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { runRelated, SLOWDOWN_GRACE_MS } from "./related-runs.ts";
import { rankTests } from "./targets/rank.ts";
import { allowanceFor, cheapFirst, FAILED_ONLY_TIER, isHeavy } from "./schedule.ts";
import { type TestSelection, selectTests, suiteFor } from "./targets/select-tests.ts";
import { targetedCommand } from "./targets/runner-command.ts";
import { listTree } from "./targets/tree-listing.ts";
import { REASON_TEXT, type TestSuiteMap } from "./targets/types.ts";
import type { RepoConfig } from "../config/index.ts";
import { TreeFsError } from "../core/tree-fs.ts";

export interface CandidateInput {
  sandbox: SandboxPort;
  config: RepoConfig;
  /** The job's unpatched results (`TreeStates.tests`) and the unpatched tree they come from. */
  pristine: { dir: string; tests: PristineTests };
  /** The candidate's tree (a private copy with the patch applied). */
  workdir: string;
  /** Files the patch changes, repository-relative. */
  changed: readonly string[];
  reproducerText?: string;
  modelText?: string;
  signal?: AbortSignal;
  /** Time the patched run of the selected tests gets beyond SLOWDOWN_FACTOR × their unpatched time. */
  slowdownGraceMs?: number;
  /** Run a batch's unpatched and patched runs at the same time (default: when the machine has 2+ cores). */
  parallel?: boolean;
}

export interface CandidateValidation {
  result: ValidationResult;
  /** The last run on the candidate's tree (targeted or whole). */
  run: TestRun | null;
  selection: TestSelection;
  /** The tree's tests as the runner's suite map knows them (how an id names its target), when listed. */
  suite?: TestSuiteMap | undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const countOf = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
/** Names listed in a "not run" line before the rest are counted. */
const NAMED_LEFT_OUT = 10;
const namesOf = (names: readonly string[]): string =>
  names.length <= NAMED_LEFT_OUT
    ? names.join(", ")
    : `${names.slice(0, NAMED_LEFT_OUT).join(", ")} and ${names.length - NAMED_LEFT_OUT} more`;

/**
 * Validates one candidate: first the tests related to its change (see `selectTests`), in rank order
 * within the budget for related tests (`runRelated`; none with `validation: full`), against the job's
 * unpatched results for the same tests; then the whole suite when the configuration asks for it
 * (`validation: full`, unless the selected tests already show a regression) or when its estimated time,
 * with the unpatched run if the job lacks it, fits the budget. The result names what ran, why, and what
 * did not run.
 */
export async function validateCandidate(input: CandidateInput): Promise<CandidateValidation> {
  const out = await validateSelected(input);
  relateResult(out);
  return out;
}

/**
 * Says how many of the tests that ran relate to the change (selected for more than having failed
 * before), and which of the tests that failed before and still fail are among them.
 */
function relateResult(out: CandidateValidation): void {
  const { result, selection } = out;
  const selected = result.tests?.selected;
  if (!selected || selection.kind !== "targeted") return;
  const relates = (reasons: readonly string[]) => reasons.some((r) => r !== REASON_TEXT["failed-before"]);
  const ranRelated = selected.filter((t) => (t.run ?? "ran") === "ran" && relates(t.reasons));
  result.related = ranRelated.length;
  const relatedTargets = new Set(ranRelated.map((t) => t.target));
  const still = result.stillFailing ?? [];
  const owner = (id: string): string | null =>
    relatedTargets.has(id) ? id : (out.suite?.targetOfId(id) ?? null);
  const stillRelated = still.filter((id) => {
    const o = owner(id);
    return o !== null && relatedTargets.has(o);
  });
  if (stillRelated.length > 0) result.stillFailingRelated = stillRelated;
}

async function validateSelected(input: CandidateInput): Promise<CandidateValidation> {
  const started = performance.now();
  const { sandbox, config, pristine, workdir, signal } = input;
  const store = pristine.tests;
  const runner = config.validation.runner;
  let suite = runner ? store.suites.get(runner) : undefined;
  if (runner && !suite && config.test.command) {
    try {
      store.listing ??= listTree(pristine.dir);
      suite = suiteFor(store.listing, runner);
      store.suites.set(runner, suite);
    } catch (err) {
      // A tree that cannot be listed: selectTests says so and the whole suite runs.
      if (!(err instanceof TreeFsError)) throw err;
    }
  }
  const selection = selectTests({
    ...(suite ? { suite } : {}),
    root: pristine.dir,
    config,
    changed: input.changed,
    failedBefore: store.knownFailures(),
    ...(input.reproducerText ? { reproducerText: input.reproducerText } : {}),
    ...(input.modelText ? { modelText: input.modelText } : {}),
  });
  const definitions = (target: string): number =>
    store.times.definitions(target, suite?.targets.get(target) ?? [], store.listing);
  const estimateOf = (target: string): number => store.times.estimate(target, definitions(target));
  const budgetMs = config.validation.mode === "full" ? null : config.validation.relatedBudgetMs;
  // Cheap tests first, each group in rank order: a costly one never holds a cheap one back.
  const allowance = allowanceFor(runner, budgetMs, input.slowdownGraceMs ?? SLOWDOWN_GRACE_MS);
  const ranked = cheapFirst(
    rankTests(selection.tests, (t) => estimateOf(t.target)),
    (r) => isHeavy(store, r.test.target, r.estimateMs, allowance),
    FAILED_ONLY_TIER,
  );
  const runsBefore = store.runCount;
  let runOf: (target: string) => NonNullable<TestsRan["selected"][number]["run"]> = () => "ran";
  /** What more than `run` says of a test that did not run (a batch stopped at the budget). */
  let detailOf: (
    target: string,
  ) => Pick<TestsRan["selected"][number], "reason" | "stoppedAfterMs" | "unpatchedMs"> = () => ({});
  const ran = (kind: TestsRan["kind"], command: string | null, notRun: string | null): TestsRan => ({
    kind,
    runner: selection.runner,
    why: selection.why,
    selected: ranked.map(({ test: t }) => ({
      target: t.target,
      reasons: t.reasons.map((r) => REASON_TEXT[r]),
      ...(t.detail ? { detail: t.detail } : {}),
      run: runOf(t.target),
      ...detailOf(t.target),
    })),
    total: selection.total,
    command,
    notRun,
    pristineRuns: store.runCount - runsBefore,
    relatedBudgetMs: kind === "full" ? null : budgetMs,
    durationMs: Math.round(performance.now() - started),
  });
  const wholeSuite = async (
    first: ValidationResult | null,
    firstRun: TestRun | null = null,
  ): Promise<CandidateValidation> => {
    const before = await store.full(signal);
    const after = await runTestSuite(sandbox, workdir, config, signal, {
      pristine: pristine.dir,
      changed: input.changed,
    });
    const result = compareRuns(before, after);
    addRestored(result, after);
    baselineLimit(result, before);
    if (first?.perTest && (result.status === "error" || !result.perTest)) {
      // The whole suite cannot name single tests (or could not judge at all): the selected tests'
      // per-test comparison stays the result, and the whole suite's outcome is said.
      first.tests = ran(
        "targeted",
        first.command,
        `the whole suite ran but cannot judge single tests: ${result.summary}`,
      );
      return { result: first, run: firstRun, selection, suite };
    }
    if (first && first.status === "regressions" && result.status !== "regressions") {
      // The whole suite cannot undo what the selected tests showed.
      result.status = "regressions";
      result.regressions = [...new Set([...first.regressions, ...result.regressions])];
      const failures = [...(first.failures ?? []), ...(result.failures ?? [])];
      if (failures.length > 0) result.failures = failures.slice(0, MAX_FAILURE_MESSAGES);
      result.summary = `${first.summary}; whole suite: ${result.summary}`;
    }
    result.tests = ran(first ? "targeted+rest" : "full", config.test.command, null);
    return { result, run: after, selection, suite };
  };
  if (selection.kind === "full") return wholeSuite(null);

  const targets = ranked.map((r) => r.test.target);
  let first: ValidationResult | null = null;
  let run: TestRun | null = null;
  let command: string | null = null;
  /** What of the related tests did not run, for the report. */
  const leftOut: string[] = [];
  let overBudget = false;
  /** Related test files whose unpatched run did not finish in time: the whole suite holds them too. */
  let unfinished: string[] = [];
  if (targets.length > 0) {
    const cmd = targetedCommand(config, targets);
    if ("reason" in cmd) return wholeSuite(null);
    const ownerOf: OwnerOf = Object.assign(
      (id: string, files?: readonly string[]) => suite?.targetOfId(id, files) ?? null,
      { idsMayLackFiles: suite?.idsMayLackFiles === true },
    );
    const related = await runRelated({
      sandbox,
      config,
      pristine,
      workdir,
      changed: input.changed,
      signal,
      ranked,
      budgetMs,
      started,
      ownerOf,
      estimate: estimateOf,
      definitions,
      slowdownGraceMs: input.slowdownGraceMs ?? SLOWDOWN_GRACE_MS,
      ...(input.parallel !== undefined ? { parallel: input.parallel } : {}),
    });
    first = related.result;
    run = related.run;
    command = related.commands.join(" + ") || null;
    const status = new Map<
      string,
      "over-budget" | "after-regression" | "unpatched-too-slow" | "needs-network"
    >();
    for (const t of related.overBudget) status.set(t, "over-budget");
    for (const t of related.afterRegression) status.set(t, "after-regression");
    for (const { target } of related.givenUp) status.set(target, "unpatched-too-slow");
    for (const { target } of related.timedOut) status.set(target, "unpatched-too-slow");
    for (const { target } of related.network) status.set(target, "needs-network");
    unfinished = [...related.givenUp.map((g) => g.target), ...related.timedOut.map((x) => x.target)];
    const details = new Map<string, ReturnType<typeof detailOf>>();
    for (const st of related.stopped) {
      for (const t of st.targets) {
        status.set(t, "over-budget");
        details.set(t, {
          reason: st.reason,
          stoppedAfterMs: st.afterMs,
          ...(st.unpatchedMs !== null ? { unpatchedMs: Math.round(st.unpatchedMs) } : {}),
        });
      }
    }
    for (const [t, ms] of related.longerThanBudget) {
      details.set(t, {
        reason: `its run on the unpatched tree took ${seconds(ms)}, longer than the budget`,
        unpatchedMs: Math.round(ms),
      });
    }
    if (related.givenUp.length > 0) {
      const limit = Math.max(...related.givenUp.map((g) => g.limitMs));
      for (const g of related.givenUp) {
        details.set(g.target, {
          reason: `its run on the unpatched tree was stopped after ${seconds(g.limitMs)}, not finished`,
        });
      }
      leftOut.push(
        `${namesOf(related.givenUp.map((g) => g.target))} (${countOf(related.givenUp.length, "related test")}, could not be judged here (timed out before the patch): their run on the unpatched tree did not finish within ${seconds(limit)}, at least the budget, so they are given up for this job)`,
      );
    }
    for (const { target, ms } of related.timedOut) {
      details.set(target, {
        reason: `its run on the unpatched tree was stopped at its own limit after ${seconds(ms)}, not finished`,
      });
    }
    if (related.timedOut.length > 0) {
      const names = related.timedOut.map((x) => x.target);
      leftOut.push(
        `${namesOf(names)} (${countOf(names.length, "related test")}, could not be judged here (timed out before the patch): their run on the unpatched tree did not finish within its own limit, so they were not run after it)`,
      );
    }
    for (const { target, line } of related.network) details.set(target, { reason: line });
    if (related.network.length > 0) {
      const names = related.network.map((x) => x.target);
      leftOut.push(
        `${namesOf(names)} (${countOf(names.length, "related test")}, needs the network (not judged here): their tests failed on the unpatched tree only with network errors, networking being off, so they were not run after the patch)`,
      );
    }
    runOf = (t) => status.get(t) ?? "ran";
    detailOf = (t) => details.get(t) ?? {};
    for (const st of related.stopped) {
      overBudget = true;
      leftOut.push(
        `${namesOf(st.targets)} (${countOf(st.targets.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests: ${st.reason})`,
      );
    }
    if (related.overBudget.length > 0) {
      overBudget = true;
      const longer = related.overBudget.filter((t) => related.longerThanBudget.has(t));
      const rest = related.overBudget.filter((t) => !related.longerThanBudget.has(t));
      if (rest.length > 0) {
        leftOut.push(
          `${namesOf(rest)} (${countOf(rest.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests, validation.related-budget)`,
        );
      }
      if (longer.length > 0) {
        leftOut.push(
          `${namesOf(longer)} (${countOf(longer.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests: their run on the unpatched tree alone took longer)`,
        );
      }
    }
    if (related.afterRegression.length > 0) {
      leftOut.push(
        `${namesOf(related.afterRegression)} (${countOf(related.afterRegression.length, "related test")}, not run: the tests that ran already show a regression, so the patch is rejected)`,
      );
    }
  }
  const withLeftOut = (rest: string | null): string | null =>
    [...leftOut, ...(rest ? [rest] : [])].join("; ") || null;
  // Single tests (a failed-before test id) do not count against the suite's files or modules.
  const wholeTargets = suite ? targets.filter((t) => suite.targets.has(t)).length : targets.length;
  const rest = selection.total !== null ? selection.total - wholeTargets : null;
  const restText =
    rest !== null ? `the other ${rest} test${rest === 1 ? "" : "s"} of the suite` : "the rest of the suite";
  if (first?.status === "regressions") {
    const left = rest === 0 ? null : `${restText}: not run, the selected tests already show a regression`;
    first.tests = ran("targeted", command, withLeftOut(left));
    return { result: first, run, selection, suite };
  }
  if (config.validation.mode === "full") return wholeSuite(first, run);
  const unjudged = (): ValidationResult => ({
    ...compareRuns(null, null),
    status: "no-tests",
    command: config.test.command,
    summary:
      targets.length > 0
        ? "none of the related tests could be run (see what was not run): the patch was not validated by the repository's tests"
        : `no test relates to the change, and ${restText} was not run: the patch was not validated by the repository's tests`,
  });
  if (targets.length === 0 && selection.total === 0) {
    // The runner finds no test in the tree: the command runs as it is, so that what it does (zero tests,
    // nothing collected) is what the result says, never "no test relates".
    return wholeSuite(null);
  }
  if (rest === 0) {
    const result = first ?? unjudged();
    result.tests = ran("targeted", command, withLeftOut(null));
    return { result, run, selection, suite };
  }
  // The rest of the suite when it fits the budget: its time estimated from what ran (the unpatched whole
  // suite when the job has it, else the selected tests' time per test), doubled when the unpatched
  // whole suite must run too.
  const budget = config.validation.budgetMs;
  const known = store.fullResult;
  const perTarget = run && targets.length > 0 ? run.exec.durationMs / targets.length : null;
  const estimate =
    known !== undefined && known !== null
      ? known.exec.durationMs
      : perTarget !== null && selection.total !== null
        ? perTarget * selection.total * 2
        : null;
  const notRun = (why: string): CandidateValidation => {
    const result = first ?? unjudged();
    result.tests = ran("targeted", command, withLeftOut(`${restText}: not run, ${why}`));
    return { result, run, selection, suite };
  };
  if (overBudget) return notRun("the related tests already took the budget for related tests");
  if (unfinished.length > 0) {
    // The rest of the suite holds these files too: its unpatched run would wait on them until the budget.
    return notRun(
      `it holds ${namesOf(unfinished)}, which did not finish on the unpatched tree within ${unfinished.length === 1 ? "its" : "their"} own limit`,
    );
  }
  if (store.fullTooSlowMs !== null && (known === undefined || known === null)) {
    return notRun(
      `the whole suite did not finish within ${seconds(store.fullTooSlowMs)} on the unpatched tree`,
    );
  }
  if (estimate !== null && estimate > budget) {
    return notRun(
      `its estimated time (${seconds(estimate)}${known ? "" : ", with the unpatched run, from the selected tests' time per test"}) is over the ${seconds(budget)} budget (validation.budget)`,
    );
  }
  if (budget <= 0) return notRun("the budget is 0 s (validation.budget)");
  if (known === undefined) {
    // No estimate, or one that fits: the unpatched whole suite runs within the budget, or is given up.
    const before = await store.fullWithin(budget, signal);
    if (!before) {
      return notRun(
        `the whole suite did not finish within the ${seconds(budget)} budget on the unpatched tree`,
      );
    }
  }
  return wholeSuite(first, run);
}
