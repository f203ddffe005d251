import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import { compareRuns, type TestsRan, type ValidationResult } from "./compare.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { type TestSelection, selectTests, suiteFor } from "./targets/select-tests.ts";
import { targetedCommand } from "./targets/runner-command.ts";
import { listTree } from "./targets/tree-listing.ts";
import { REASON_TEXT } from "./targets/types.ts";
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
}

export interface CandidateValidation {
  result: ValidationResult;
  /** The last run on the candidate's tree (targeted or whole). */
  run: TestRun | null;
  selection: TestSelection;
}

/** The selected tests may take this many times as long after the patch as before it, plus the grace. */
export const SLOWDOWN_FACTOR = 4;
export const SLOWDOWN_GRACE_MS = 60_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

function addRestored(result: ValidationResult, run: TestRun | null): void {
  if (run?.restored && run.restored.length > 0) {
    result.summary += `; the patch changed test configuration, which was put back as the unpatched tree has it before the tests ran: ${run.restored.join(", ")}`;
  }
}

function baselineLimit(result: ValidationResult, before: TestRun | null): void {
  if (before && before.exec.limit !== null) {
    result.status = "error";
    result.summary = `the tests hit the ${before.exec.limit} limit before any patch; validation is not meaningful (${result.summary})`;
  }
}

/**
 * Validates one candidate: first the tests related to its change (see `selectTests`), against the job's
 * unpatched results for the same tests; then the whole suite when the configuration asks for it
 * (`validation: full`, unless the selected tests already show a regression) or when its estimated time,
 * with the unpatched run if the job lacks it, fits the budget. The result names what ran, why, and what
 * did not run.
 */
export async function validateCandidate(input: CandidateInput): Promise<CandidateValidation> {
  const { sandbox, config, pristine, workdir, signal } = input;
  const store = pristine.tests;
  const runner = config.validation.runner;
  let suite = runner ? store.suites.get(runner) : undefined;
  if (runner && !suite && config.test.command) {
    try {
      suite = suiteFor(listTree(pristine.dir), runner);
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
  const runsBefore = store.runCount;
  const ran = (kind: TestsRan["kind"], command: string | null, notRun: string | null): TestsRan => ({
    kind,
    runner: selection.runner,
    why: selection.why,
    selected: selection.tests.map((t) => ({
      target: t.target,
      reasons: t.reasons.map((r) => REASON_TEXT[r]),
      ...(t.detail ? { detail: t.detail } : {}),
    })),
    total: selection.total,
    command,
    notRun,
    pristineRuns: store.runCount - runsBefore,
  });
  const wholeSuite = async (
    first: ValidationResult | null,
    firstRun: TestRun | null = null,
  ): Promise<CandidateValidation> => {
    const before = await store.full(signal);
    const after = await runTestSuite(sandbox, workdir, config, signal, { pristine: pristine.dir });
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
      return { result: first, run: firstRun, selection };
    }
    if (first && first.status === "regressions" && result.status !== "regressions") {
      // The whole suite cannot undo what the selected tests showed.
      result.status = "regressions";
      result.regressions = [...new Set([...first.regressions, ...result.regressions])];
      result.summary = `${first.summary}; whole suite: ${result.summary}`;
    }
    result.tests = ran(first ? "targeted+rest" : "full", config.test.command, null);
    return { result, run: after, selection };
  };
  if (selection.kind === "full") return wholeSuite(null);

  const targets = selection.tests.map((t) => t.target);
  let first: ValidationResult | null = null;
  let run: TestRun | null = null;
  let command: string | null = null;
  if (targets.length > 0) {
    const cmd = targetedCommand(config, targets);
    if ("reason" in cmd) return wholeSuite(null);
    command = cmd.display;
    const ownerOf: OwnerOf = Object.assign(
      (id: string, files?: readonly string[]) => suite?.targetOfId(id, files) ?? null,
      { idsMayLackFiles: suite?.idsMayLackFiles === true },
    );
    const before = await store.forTargets(targets, ownerOf, signal);
    // A patch that makes the selected tests hang is a regression, found without waiting for the whole
    // test time limit: the patched run gets a few times what the same tests took unpatched.
    const grace = input.slowdownGraceMs ?? SLOWDOWN_GRACE_MS;
    const relative =
      before && before.exec.limit === null
        ? SLOWDOWN_FACTOR * before.exec.durationMs + grace
        : config.timeouts.testMs;
    const timeoutMs = Math.min(config.timeouts.testMs, relative);
    run = await runTestSuite(sandbox, workdir, config, signal, {
      pristine: pristine.dir,
      targeted: cmd,
      timeoutMs,
    });
    first = compareRuns(before, run);
    if (run?.exec.limit === "time" && timeoutMs < config.timeouts.testMs) {
      first.summary += ` (limit: ${SLOWDOWN_FACTOR}× the ${seconds(before?.exec.durationMs ?? 0)} the same tests took before the patch, plus ${seconds(grace)})`;
    }
    addRestored(first, run);
    baselineLimit(first, before);
  }
  // Single tests (a failed-before test id) do not count against the suite's files or modules.
  const wholeTargets = suite ? targets.filter((t) => suite.targets.has(t)).length : targets.length;
  const rest = selection.total !== null ? selection.total - wholeTargets : null;
  const restText =
    rest !== null ? `the other ${rest} test${rest === 1 ? "" : "s"} of the suite` : "the rest of the suite";
  if (first?.status === "regressions") {
    const left = rest === 0 ? null : `${restText}: not run, the selected tests already show a regression`;
    first.tests = ran("targeted", command, left);
    return { result: first, run, selection };
  }
  if (config.validation.mode === "full") return wholeSuite(first, run);
  if (rest === 0 && first) {
    first.tests = ran("targeted", command, null);
    return { result: first, run, selection };
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
    const result = first ?? {
      ...compareRuns(null, null),
      status: "no-tests" as const,
      command: config.test.command,
      summary: `no test relates to the change, and ${restText} was not run: the patch was not validated by the repository's tests`,
    };
    result.tests = ran("targeted", command, `${restText}: not run, ${why}`);
    return { result, run, selection };
  };
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
