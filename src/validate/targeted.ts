import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import { addRestored, baselineLimit, compareRuns, type TestsRan, type ValidationResult } from "./compare.ts";
import { MAX_FAILURE_MESSAGES } from "./failure-messages.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { runRelated, SLOWDOWN_GRACE_MS } from "./related-runs.ts";
import { type RankedTest, rankTests } from "./targets/rank.ts";
import { accountRelated, NOTHING_LEFT_OUT, namesOf, type RelatedAccount } from "./related-account.ts";
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

/** What a candidate's validation has settled before its tests run: the selection, ranked, and the budget. */
interface Plan {
  input: CandidateInput;
  /** `performance.now()` when the candidate's validation began. */
  started: number;
  store: PristineTests;
  suite: TestSuiteMap | undefined;
  selection: TestSelection;
  /** The selected tests in the order they run (cheap first, each group in rank order). */
  ranked: RankedTest[];
  targets: string[];
  budgetMs: number | null;
  estimateOf: (target: string) => number;
  definitions: (target: string) => number;
  /** Runs on the unpatched tree before this candidate. */
  runsBefore: number;
}

/** What the related tests showed. */
interface RelatedOutcome {
  first: ValidationResult | null;
  run: TestRun | null;
  command: string | null;
  account: RelatedAccount;
}

async function validateSelected(input: CandidateInput): Promise<CandidateValidation> {
  const plan = planCandidate(input);
  if (plan.selection.kind === "full") return wholeSuite(plan, NOTHING_LEFT_OUT, null);
  const related = await relatedTests(plan);
  if (related === null) return wholeSuite(plan, NOTHING_LEFT_OUT, null);
  return restOfSuite(plan, related);
}

/** The tree's suite map (listed once per job and runner). */
function suiteOf(input: CandidateInput): TestSuiteMap | undefined {
  const { config, pristine } = input;
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
  return suite;
}

/** The selection step: which tests relate to the change, their estimated times, and the order they run in. */
function planCandidate(input: CandidateInput): Plan {
  const started = performance.now();
  const { config, pristine } = input;
  const store = pristine.tests;
  const runner = config.validation.runner;
  const suite = suiteOf(input);
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
  return {
    input,
    started,
    store,
    suite,
    selection,
    ranked,
    targets: ranked.map((r) => r.test.target),
    budgetMs,
    estimateOf,
    definitions,
    runsBefore: store.runCount,
  };
}

/** What the candidate's validation ran, for the report. */
function testsRan(
  plan: Plan,
  account: RelatedAccount,
  kind: TestsRan["kind"],
  command: string | null,
  notRun: string | null,
): TestsRan {
  const { selection } = plan;
  return {
    kind,
    runner: selection.runner,
    why: selection.why,
    selected: plan.ranked.map(({ test: t }) => ({
      target: t.target,
      reasons: t.reasons.map((r) => REASON_TEXT[r]),
      ...(t.detail ? { detail: t.detail } : {}),
      run: account.runOf(t.target),
      ...account.detailOf(t.target),
    })),
    total: selection.total,
    command,
    notRun,
    pristineRuns: plan.store.runCount - plan.runsBefore,
    relatedBudgetMs: kind === "full" ? null : plan.budgetMs,
    durationMs: Math.round(performance.now() - plan.started),
  };
}

/**
 * The whole suite on both trees, after the related tests (`related`: what they showed, null when none
 * ran first): it cannot undo a regression they showed, and a whole suite that cannot name single tests
 * leaves their per-test comparison the result.
 */
async function wholeSuite(
  plan: Plan,
  account: RelatedAccount,
  related: Pick<RelatedOutcome, "first" | "run"> | null,
): Promise<CandidateValidation> {
  const { sandbox, config, pristine, workdir, signal } = plan.input;
  const { selection, suite } = plan;
  const first = related?.first ?? null;
  const before = await plan.store.full(signal);
  const after = await runTestSuite(sandbox, workdir, config, signal, {
    pristine: pristine.dir,
    changed: plan.input.changed,
  });
  const result = compareRuns(before, after);
  addRestored(result, after);
  baselineLimit(result, before);
  if (first?.perTest && (result.status === "error" || !result.perTest)) {
    // The whole suite cannot name single tests (or could not judge at all): the selected tests'
    // per-test comparison stays the result, and the whole suite's outcome is said.
    first.tests = testsRan(
      plan,
      account,
      "targeted",
      first.command,
      `the whole suite ran but cannot judge single tests: ${result.summary}`,
    );
    return { result: first, run: related?.run ?? null, selection, suite };
  }
  if (first && first.status === "regressions" && result.status !== "regressions") {
    // The whole suite cannot undo what the selected tests showed.
    result.status = "regressions";
    result.regressions = [...new Set([...first.regressions, ...result.regressions])];
    const failures = [...(first.failures ?? []), ...(result.failures ?? [])];
    if (failures.length > 0) result.failures = failures.slice(0, MAX_FAILURE_MESSAGES);
    result.summary = `${first.summary}; whole suite: ${result.summary}`;
  }
  result.tests = testsRan(plan, account, first ? "targeted+rest" : "full", config.test.command, null);
  return { result, run: after, selection, suite };
}

/**
 * The related tests within their budget (`runRelated`); null when they cannot be run as selected (the
 * whole suite runs instead).
 */
async function relatedTests(plan: Plan): Promise<RelatedOutcome | null> {
  const { input, targets, suite } = plan;
  if (targets.length === 0) return { first: null, run: null, command: null, account: NOTHING_LEFT_OUT };
  const cmd = targetedCommand(input.config, targets);
  if ("reason" in cmd) return null;
  const ownerOf: OwnerOf = Object.assign(
    (id: string, files?: readonly string[]) => suite?.targetOfId(id, files) ?? null,
    { idsMayLackFiles: suite?.idsMayLackFiles === true },
  );
  const related = await runRelated({
    sandbox: input.sandbox,
    config: input.config,
    pristine: input.pristine,
    workdir: input.workdir,
    changed: input.changed,
    signal: input.signal,
    ranked: plan.ranked,
    budgetMs: plan.budgetMs,
    started: plan.started,
    ownerOf,
    estimate: plan.estimateOf,
    definitions: plan.definitions,
    slowdownGraceMs: input.slowdownGraceMs ?? SLOWDOWN_GRACE_MS,
    ...(input.parallel !== undefined ? { parallel: input.parallel } : {}),
  });
  return {
    first: related.result,
    run: related.run,
    command: related.commands.join(" + ") || null,
    account: accountRelated(related, plan.budgetMs),
  };
}

/**
 * The verdict step after the related tests: the rest of the suite runs when the configuration asks for
 * it or it fits the budget, else the result says why it did not run.
 */
async function restOfSuite(plan: Plan, related: RelatedOutcome): Promise<CandidateValidation> {
  const { config } = plan.input;
  const { selection, suite, targets } = plan;
  const { first, run, command, account } = related;
  const withLeftOut = (rest: string | null): string | null =>
    [...account.leftOut, ...(rest ? [rest] : [])].join("; ") || null;
  // Single tests (a failed-before test id) do not count against the suite's files or modules.
  const wholeTargets = suite ? targets.filter((t) => suite.targets.has(t)).length : targets.length;
  const rest = selection.total !== null ? selection.total - wholeTargets : null;
  const restText =
    rest !== null ? `the other ${rest} test${rest === 1 ? "" : "s"} of the suite` : "the rest of the suite";
  if (first?.status === "regressions") {
    const left = rest === 0 ? null : `${restText}: not run, the selected tests already show a regression`;
    first.tests = testsRan(plan, account, "targeted", command, withLeftOut(left));
    return { result: first, run, selection, suite };
  }
  if (config.validation.mode === "full") return wholeSuite(plan, account, related);
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
    return wholeSuite(plan, NOTHING_LEFT_OUT, null);
  }
  const notRun = (why: string | null): CandidateValidation => {
    const result = first ?? unjudged();
    result.tests = testsRan(
      plan,
      account,
      "targeted",
      command,
      withLeftOut(why && `${restText}: not run, ${why}`),
    );
    return { result, run, selection, suite };
  };
  if (rest === 0) return notRun(null);
  const why = await whyNotWhole(plan, related);
  return why === null ? wholeSuite(plan, account, related) : notRun(why);
}

/**
 * The budget step for the rest of the suite: why it does not run (the related tests took the budget,
 * it holds a file that did not finish unpatched, its estimate is over the budget, its unpatched run did
 * not finish within it), or null when it runs. Its time is estimated from what ran (the unpatched whole
 * suite when the job has it, else the selected tests' time per test), doubled when the unpatched whole
 * suite must run too.
 */
async function whyNotWhole(plan: Plan, related: RelatedOutcome): Promise<string | null> {
  const { config, signal } = plan.input;
  const { store, targets, selection } = plan;
  const { run, account } = related;
  const budget = config.validation.budgetMs;
  const known = store.fullResult;
  const perTarget = run && targets.length > 0 ? run.exec.durationMs / targets.length : null;
  const estimate =
    known !== undefined && known !== null
      ? known.exec.durationMs
      : perTarget !== null && selection.total !== null
        ? perTarget * selection.total * 2
        : null;
  if (account.overBudget) return "the related tests already took the budget for related tests";
  const unfinished = account.unfinished;
  if (unfinished.length > 0) {
    // The rest of the suite holds these files too: its unpatched run would wait on them until the budget.
    return `it holds ${namesOf(unfinished)}, which did not finish on the unpatched tree within ${unfinished.length === 1 ? "its" : "their"} own limit`;
  }
  if (store.fullTooSlowMs !== null && (known === undefined || known === null)) {
    return `the whole suite did not finish within ${seconds(store.fullTooSlowMs)} on the unpatched tree`;
  }
  if (estimate !== null && estimate > budget) {
    return `its estimated time (${seconds(estimate)}${known ? "" : ", with the unpatched run, from the selected tests' time per test"}) is over the ${seconds(budget)} budget (validation.budget)`;
  }
  if (budget <= 0) return "the budget is 0 s (validation.budget)";
  if (known === undefined) {
    // No estimate, or one that fits: the unpatched whole suite runs within the budget, or is given up.
    const before = await store.fullWithin(budget, signal);
    if (!before)
      return `the whole suite did not finish within the ${seconds(budget)} budget on the unpatched tree`;
  }
  return null;
}
