import { availableParallelism } from "node:os";
import type { RepoConfig } from "../config/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import {
  addRestored,
  baselineLimit,
  compareRuns,
  mergeResults,
  mergeRuns,
  type ValidationResult,
} from "./compare.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import type { RankedTest } from "./targets/rank.ts";
import { targetedCommand } from "./targets/runner-command.ts";

/** The tests may take this many times as long after the patch as before it, plus the grace. */
export const SLOWDOWN_FACTOR = 4;
/** Time a batch of tests gets beyond SLOWDOWN_FACTOR × its unpatched time (start-up noise, load). */
export const SLOWDOWN_GRACE_MS = 10_000;
/** The rank tier of tests that only failed before the patch, and the share of the budget they may take. */
const FAILED_ONLY_TIER = 4;
export const FAILED_ONLY_SHARE = 0.25;
/** The unpatched run of a batch gets this many times the budget before its tests are given up. */
export const UNPATCHED_BUDGETS = 2;
/** An unpatched run is never given up before this (start-up on a loaded machine). */
export const MIN_UNPATCHED_LIMIT_MS = 10_000;
/** A batch's estimated wall time with the unpatched run beside it, as a multiple of one run's. */
const PAIR_PARALLEL = 1.3;
const PAIR_SEQUENTIAL = 2;

export interface RelatedRunsInput {
  sandbox: SandboxPort;
  config: RepoConfig;
  pristine: { dir: string; tests: PristineTests };
  workdir: string;
  signal?: AbortSignal | undefined;
  /** The selected tests in rank order. */
  ranked: readonly RankedTest[];
  /** Wall time the related tests may take, counted from `started`; null = no budget (all run). */
  budgetMs: number | null;
  /** `performance.now()` when the candidate's validation began. */
  started: number;
  ownerOf: OwnerOf;
  /** The estimated time of one target's run (the job's measurements, else a guess). */
  estimate: (target: string) => number;
  /** Test definitions of a target's files (a measured run's time is shared out by them). */
  definitions: (target: string) => number;
  slowdownGraceMs: number;
  /** Run the unpatched and the patched run of a batch at the same time (default: when 2+ cores). */
  parallel?: boolean;
}

export interface RelatedRuns {
  /** The comparison of every batch that ran (null when none did). */
  result: ValidationResult | null;
  /** The patched runs put together. */
  run: TestRun | null;
  /** Targets that ran, over the budget, and left out after a regression, each in rank order. */
  ran: string[];
  overBudget: string[];
  afterRegression: string[];
  /** Targets whose unpatched run did not finish within its limit, with that limit (ms). */
  givenUp: { target: string; limitMs: number }[];
  /** Commands of the patched runs, in order. */
  commands: string[];
}

interface Batch {
  /** Null when the unpatched run did not finish (the batch's tests are then not judged). */
  result: ValidationResult | null;
  after: TestRun | null;
  command: string;
  /** Targets whose unpatched run did not finish within its limit (given up for the job). */
  givenUp: string[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * One batch: the targets' unpatched results (run now for those the job lacks, beside the patched run
 * when cores allow) and the patched run, which is stopped as a hang once it takes SLOWDOWN_FACTOR× the
 * time the same tests took unpatched, plus the grace.
 */
async function runBatch(
  input: RelatedRunsInput,
  targets: string[],
  parallel: boolean,
  unpatchedLimitMs: number | undefined,
): Promise<Batch> {
  const { sandbox, config, pristine, workdir, signal } = input;
  const store = pristine.tests;
  const cmd = targetedCommand(config, targets);
  if ("reason" in cmd) throw new Error(`the selected tests cannot be run: ${cmd.reason}`);
  const hang = new AbortController();
  const stop = signal ? AbortSignal.any([signal, hang.signal]) : hang.signal;
  let timer: NodeJS.Timeout | undefined;
  let hung = false;
  let settled = false;
  let beforeMs = 0;
  const beforeP = store.forTargets(targets, input.ownerOf, signal, input.definitions, unpatchedLimitMs);
  const gaveUp = () => targets.filter((t) => store.givenUp(t) !== undefined);
  if (!parallel) await beforeP.catch(() => null);
  if (!parallel && gaveUp().length > 0)
    return { result: null, after: null, command: cmd.display, givenUp: gaveUp() };
  const patchedStart = performance.now();
  void beforeP.then(
    (before) => {
      if (settled) return;
      // The unpatched run did not finish: the patched run judges nothing, it is stopped.
      if (gaveUp().length > 0) {
        hang.abort();
        return;
      }
      if (!before || before.exec.limit !== null) return;
      const measured = targets.map((t) => store.times.measured(t));
      beforeMs = measured.every((m) => m !== undefined)
        ? measured.reduce<number>((a, m) => a + (m ?? 0), 0)
        : before.exec.durationMs;
      const limitMs = SLOWDOWN_FACTOR * beforeMs + input.slowdownGraceMs;
      const wait = Math.max(0, patchedStart + limitMs - performance.now());
      timer = setTimeout(() => {
        hung = true;
        hang.abort();
      }, wait);
    },
    () => {},
  );
  const afterP = runTestSuite(sandbox, workdir, config, stop, { pristine: pristine.dir, targeted: cmd });
  try {
    let before: TestRun | null;
    try {
      before = await beforeP;
    } catch (err) {
      hang.abort();
      await afterP.catch(() => null);
      throw err;
    }
    let after = await afterP;
    settled = true;
    if (gaveUp().length > 0) return { result: null, after: null, command: cmd.display, givenUp: gaveUp() };
    if (hung && after) after = { ...after, exec: { ...after.exec, limit: "time" } };
    const result = compareRuns(before, after);
    if (hung && result.status === "regressions") {
      // Which tests of the batch hang cannot be told: each is named as not finishing.
      result.regressions = targets.map(
        (t) =>
          `${t} (did not finish: its batch ran past ${SLOWDOWN_FACTOR}× the time it took before the patch, plus ${seconds(input.slowdownGraceMs)})`,
      );
      result.summary += ` (limit: ${SLOWDOWN_FACTOR}× the ${seconds(beforeMs)} the same tests took before the patch, plus ${seconds(input.slowdownGraceMs)})`;
    }
    addRestored(result, after);
    baselineLimit(result, before);
    return { result, after, command: cmd.display, givenUp: [] };
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/** Tests named first (by the change's module names, the reproducer, the model) run as one batch. */
const phaseOf = (tier: number): number => (tier <= 1 ? 0 : 1);

/**
 * Runs the related tests of a candidate in rank order within its budget: each round takes, in rank
 * order, the tests whose estimated time (with the unpatched run when the job lacks it) fits the time
 * left, runs the best-ranked group of them as one batch, and measures; the first test always runs. It
 * stops once a batch shows a regression (the candidate is rejected anyway). What did not run is named.
 */
export async function runRelated(input: RelatedRunsInput): Promise<RelatedRuns> {
  const store = input.pristine.tests;
  const parallel = input.parallel ?? availableParallelism() >= 2;
  const pair = parallel ? PAIR_PARALLEL : PAIR_SEQUENTIAL;
  const pending = input.ranked.map((r) => r);
  const out: RelatedRuns = {
    result: null,
    run: null,
    ran: [],
    overBudget: [],
    afterRegression: [],
    givenUp: [],
    commands: [],
  };
  const batches: Batch[] = [];
  /** This candidate's wall time over its estimates so far (load, contention). */
  let spent = 0;
  let predicted = 0;
  let lastPick = new Set<RankedTest>();
  /** Time (as measured) of the tests that only failed before which ran. */
  let spentFailedOnly = 0;
  const giveUp = (t: string) => {
    out.givenUp.push({ target: t, limitMs: store.givenUp(t) ?? 0 });
    pending.splice(
      pending.findIndex((r) => r.test.target === t),
      1,
    );
  };
  while (pending.length > 0) {
    // Tests whose unpatched run did not finish for an earlier candidate are not tried again.
    for (const r of [...pending]) if (store.givenUp(r.test.target) !== undefined) giveUp(r.test.target);
    if (pending.length === 0) break;
    // Slower than estimated (load, contention) makes later estimates longer; faster never shortens them.
    const ratio = predicted > 0 ? Math.min(4, Math.max(1, spent / predicted)) : 1;
    const left = input.budgetMs === null ? Infinity : input.started + input.budgetMs - performance.now();
    const costOf = (r: RankedTest): number => {
      const t = r.test.target;
      return input.estimate(t) * (store.missing([t], input.ownerOf).length > 0 ? pair : 1) * ratio;
    };
    // In rank order, the tests that fit the time left (the first test of the candidate always runs).
    // Tests that only failed before the patch cannot show a regression (they fail already): they get
    // what is left of the budget, at most a quarter of it.
    const pick: RankedTest[] = [];
    let acc = store.overheadMs;
    let failedOnly = spentFailedOnly;
    const failedOnlyCap = input.budgetMs === null ? Infinity : input.budgetMs * FAILED_ONLY_SHARE;
    for (const r of pending) {
      const c = costOf(r);
      const last = r.tier === FAILED_ONLY_TIER;
      if (out.ran.length === 0 && pick.length === 0) {
        pick.push(r);
        acc += c;
      } else if (acc + c <= left && (!last || failedOnly + c <= failedOnlyCap)) {
        pick.push(r);
        acc += c;
        if (last) failedOnly += c;
      }
    }
    if (batches.some((b) => b.result?.status === "regressions")) {
      // A regression is shown: the tests the last round found room for are left out for it, the others
      // (no room then) for the budget.
      for (const r of pending) (lastPick.has(r) ? out.afterRegression : out.overBudget).push(r.test.target);
      pending.length = 0;
      break;
    }
    if (pick.length === 0) break;
    lastPick = new Set(pick);
    const phase = phaseOf(pick[0]!.tier);
    // A batch of tests the job has not timed yet takes at most half the time left: their guesses are
    // checked by a measurement before the rest of the budget is spent on more guesses.
    const batch: RankedTest[] = [];
    let batchCost = 0;
    for (const r of pick) {
      if (phaseOf(r.tier) !== phase) continue;
      const c = costOf(r);
      const guessed = [...batch, r].some((x) => store.times.measured(x.test.target) === undefined);
      if (batch.length > 0 && guessed && batchCost + c > left / 2) break;
      batch.push(r);
      batchCost += c;
    }
    const targets = batch.map((r) => r.test.target);
    const t0 = performance.now();
    const unpatchedNow = store.missing(targets, input.ownerOf);
    const overhead = store.overheadMs;
    // The unpatched run of tests the job lacks gets twice the budget (or 4× its estimate and the grace,
    // or 10 s, when longer): past it they are given up for the job, not waited for by every candidate.
    const unpatchedLimitMs =
      input.budgetMs === null
        ? undefined
        : Math.max(
            MIN_UNPATCHED_LIMIT_MS,
            UNPATCHED_BUDGETS * input.budgetMs,
            SLOWDOWN_FACTOR * batch.reduce((a, r) => a + input.estimate(r.test.target), 0) +
              input.slowdownGraceMs,
          );
    const b = await runBatch(input, targets, parallel, unpatchedLimitMs);
    const wall = performance.now() - t0;
    // What the batch would have been estimated at with the times it just measured: the ratio then
    // holds only what estimates from measured times miss (load, contention), not first guesses.
    spent += wall;
    predicted +=
      overhead + targets.reduce((a, t) => a + input.estimate(t) * (unpatchedNow.includes(t) ? pair : 1), 0);
    // What the batch cost beyond its runs' own time (copies, the configuration check, waiting).
    const unpatchedMs = unpatchedNow.reduce((a, t) => a + (store.times.measured(t) ?? 0), 0);
    const own = parallel
      ? Math.max(b.after?.exec.durationMs ?? 0, unpatchedMs)
      : (b.after?.exec.durationMs ?? 0) + unpatchedMs;
    store.noteOverhead(wall - own);
    if (b.result === null) {
      // The others of the batch stay pending: their unpatched results are known now, or run next round.
      for (const t of b.givenUp) giveUp(t);
      continue;
    }
    batches.push(b);
    for (const r of batch) if (r.tier === FAILED_ONLY_TIER) spentFailedOnly += input.estimate(r.test.target);
    out.ran.push(...targets);
    out.commands.push(b.command);
    for (const t of targets)
      pending.splice(
        pending.findIndex((r) => r.test.target === t),
        1,
      );
  }
  out.overBudget.push(...pending.map((r) => r.test.target));
  if (batches.length > 0) {
    out.result = mergeResults(batches.flatMap((b) => (b.result ? [b.result] : [])));
    out.run = mergeRuns(batches.flatMap((b) => (b.after ? [b.after] : [])));
  }
  return out;
}
