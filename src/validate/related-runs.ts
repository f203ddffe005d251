import { availableParallelism } from "node:os";
import { mergeResults, mergeRuns } from "./merge-runs.ts";
import { runBatch } from "./related-batch.ts";
import type { Batch, RelatedRuns, RelatedRunsInput } from "./related-types.ts";
import type { RankedTest } from "./targets/rank.ts";
import { allowanceFor, cheapFirst, FAILED_ONLY_TIER, isHeavy } from "./schedule.ts";

export {
  type RelatedRuns,
  type RelatedRunsInput,
  SLOWDOWN_FACTOR,
  SLOWDOWN_GRACE_MS,
  type StoppedBatch,
} from "./related-types.ts";

/** The share of the budget tests that only failed before the patch (FAILED_ONLY_TIER) may take. */
export const FAILED_ONLY_SHARE = 0.25;
/**
 * A candidate's first batch may run until this many times the budget has passed since the candidate
 * began (every later batch stops at the budget): a test whose unpatched run fits the budget gets a real
 * chance beside the copies and the load, and the candidate still ends near the budget (56 s for 45 s).
 */
export const FIRST_BATCH_ALLOWANCE = 1.25;
/** A batch's estimated wall time with the unpatched run beside it, as a multiple of one run's. */
const PAIR_PARALLEL = 1.3;
const PAIR_SEQUENTIAL = 2;

/** Tests named first (by the change's module names, the reproducer, the model) run as one batch. */
const phaseOf = (tier: number): number => (tier <= 1 ? 0 : 1);

/** How many times the related-test budget the most related test file may take, alone. */
export const MOST_RELATED_BUDGETS = 2;

/**
 * The test file ranked most related (unless it only failed before the patch): it is never left out for
 * its own length. It leads the first batch; when it is costly enough to run alone, its run may take until
 * MOST_RELATED_BUDGETS× the budget has passed, without a file allowance.
 */
const mostRelated = (ranked: readonly RankedTest[]): RankedTest | undefined =>
  ranked[0] && ranked[0].tier !== FAILED_ONLY_TIER ? ranked[0] : undefined;

/** The time limit of the most related file's run (see mostRelated). */
export const mostRelatedLimitMs = (budgetMs: number): number =>
  budgetMs * Math.max(FIRST_BATCH_ALLOWANCE, MOST_RELATED_BUDGETS);

/**
 * Runs the related tests of a candidate in rank order within its budget: each round takes, in rank
 * order, the tests whose estimated time (with the unpatched run when the job lacks it) fits the time
 * left, runs the best-ranked group of them as one batch, and measures. Every batch stops at the budget
 * (the first at FIRST_BATCH_ALLOWANCE× it), and the first test whose unpatched time is not known to be
 * over the budget runs whatever its estimate. It stops once a batch shows a regression (the candidate is
 * rejected anyway). What did not run is named, with why.
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
    stopped: [],
    longerThanBudget: new Map(),
    givenUp: [],
    commands: [],
    network: [],
    timedOut: [],
  };
  const batches: Batch[] = [];
  /** This candidate's wall time over its estimates so far (load, contention). */
  let spent = 0;
  let predicted = 0;
  let lastPick = new Set<RankedTest>();
  /** Time (as measured) of the tests that only failed before which ran. */
  let spentFailedOnly = 0;
  /** Whether a batch ran (the first one's privilege is used). */
  let first = true;
  const requeued: RankedTest[] = [];
  const budget = input.budgetMs;
  const drop = (t: string) =>
    pending.splice(
      pending.findIndex((r) => r.test.target === t),
      1,
    );
  const allowance = allowanceFor(input.config.validation.runner, budget, input.slowdownGraceMs);
  const lead = mostRelated(input.ranked);
  const leadLimit = budget === null ? null : mostRelatedLimitMs(budget);
  while (pending.length > 0) {
    // Tests that need the network, and tests stopped at their own limit on the unpatched tree, cannot
    // be judged here: named as such, never run after the patch.
    for (const r of [...pending]) {
      const t = r.test.target;
      // A single test id is given up with its file.
      const owner = input.ownerOf(t) ?? t;
      const line = store.network.get(t) ?? store.network.get(owner);
      const ms = store.timedOut.get(t) ?? store.timedOut.get(owner);
      if (line !== undefined) out.network.push({ target: t, line });
      else if (ms !== undefined) out.timedOut.push({ target: t, ms });
      else continue;
      drop(t);
    }
    // Tests whose unpatched run was stopped after the whole budget (for this candidate or an earlier
    // one) fit no candidate: given up for the job, not tried again.
    for (const r of [...pending]) {
      const atLeast = budget === null ? undefined : store.times.atLeast(r.test.target);
      if (budget !== null && atLeast !== undefined && atLeast >= budget) {
        out.givenUp.push({ target: r.test.target, limitMs: atLeast });
        drop(r.test.target);
      }
    }
    if (pending.length === 0) break;
    // Slower than estimated (load, contention) makes later estimates longer; faster never shortens them.
    const ratio = predicted > 0 ? Math.min(4, Math.max(1, spent / predicted)) : 1;
    const left = budget === null ? Infinity : input.started + budget - performance.now();
    const costOf = (r: RankedTest): number => {
      const t = r.test.target;
      return input.estimate(t) * (store.missing([t], input.ownerOf).length > 0 ? pair : 1) * ratio;
    };
    const heavy = (r: RankedTest) => isHeavy(store, r.test.target, input.estimate(r.test.target), allowance);
    const order = cheapFirst(pending, heavy, FAILED_ONLY_TIER);
    // The most related file leads the first batch whatever its cost.
    if (first && lead && order.includes(lead)) {
      order.splice(order.indexOf(lead), 1);
      order.unshift(lead);
    }
    pending.splice(0, pending.length, ...order);
    /** A test whose unpatched run took longer than the budget can have the first batch's privilege. */
    const mayLead = (r: RankedTest): boolean => {
      const m = store.times.measured(r.test.target);
      return r === lead || budget === null || m === undefined || m <= budget;
    };
    // In rank order, the tests that fit the time left (the first test of the candidate that may lead
    // runs whatever its estimate). Tests that only failed before the patch cannot show a regression
    // (they fail already): they get what is left of the budget, at most a quarter of it.
    const pick: RankedTest[] = [];
    let acc = store.overheadMs;
    let failedOnly = spentFailedOnly;
    const failedOnlyCap = budget === null ? Infinity : budget * FAILED_ONLY_SHARE;
    for (const r of pending) {
      const c = costOf(r);
      const last = r.tier === FAILED_ONLY_TIER;
      if (first && pick.length === 0 && mayLead(r)) {
        pick.push(r);
        acc += c;
        if (last) failedOnly += c;
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
      // A costly test runs alone: it cannot hold the others' verdicts.
      if (heavy(r)) {
        if (batch.length === 0) batch.push(r);
        break;
      }
      const c = costOf(r);
      const guessed = [...batch, r].some((x) => store.times.measured(x.test.target) === undefined);
      if (batch.length > 0 && guessed && batchCost + c > left / 2) break;
      batch.push(r);
      batchCost += c;
    }
    // The most related file, costly enough to run alone, has its own limit (no file allowance).
    const leads = first && lead !== undefined && batch.length === 1 && batch[0] === lead;
    const targets = batch.map((r) => r.test.target);
    const t0 = performance.now();
    const unpatchedNow = store.missing(targets, input.ownerOf);
    const overhead = store.overheadMs;
    const deadline =
      budget === null
        ? null
        : input.started +
          (leads && leadLimit !== null ? leadLimit : budget * (first ? FIRST_BATCH_ALLOWANCE : 1));
    first = false;
    const b = await runBatch(input, targets, parallel, deadline, leads ? null : allowance);
    const wall = performance.now() - t0;
    // What the batch would have been estimated at with the times it just measured: the ratio then
    // holds only what estimates from measured times miss (load, contention), not first guesses.
    spent += wall;
    predicted +=
      overhead + targets.reduce((a, t) => a + input.estimate(t) * (unpatchedNow.includes(t) ? pair : 1), 0);
    if (b.stopped === null) {
      // What the batch cost beyond its runs' own time (copies, the configuration check, waiting).
      const unpatchedMs = unpatchedNow.reduce((a, t) => a + (store.times.measured(t) ?? 0), 0);
      const own = parallel
        ? Math.max(b.after?.exec.durationMs ?? 0, unpatchedMs)
        : (b.after?.exec.durationMs ?? 0) + unpatchedMs;
      store.noteOverhead(wall - own);
    } else {
      const st = { ...b.stopped, targets: b.stopped.targets.filter((t) => !store.network.has(t)) };
      if (st.targets.length > 0) out.stopped.push(st);
    }
    if (b.result) batches.push(b);
    for (const r of batch)
      if (r.tier === FAILED_ONLY_TIER && b.ran.includes(r.test.target))
        spentFailedOnly += input.estimate(r.test.target);
    out.ran.push(...b.ran);
    if (b.after) out.commands.push(b.command);
    for (const t of targets) {
      const r = pending.find((x) => x.test.target === t);
      if (!r) continue;
      drop(t);
      // Not judged because their unpatched run was stopped at its allowance: queued again (those that
      // timed out or need the network are given up at the top of the loop), else settled.
      if (b.requeue.includes(t) || store.network.has(t)) requeued.push(r);
    }
    pending.unshift(...requeued.splice(0));
  }
  for (const r of pending) {
    out.overBudget.push(r.test.target);
    const m = store.times.measured(r.test.target);
    if (budget !== null && m !== undefined && m > budget) out.longerThanBudget.set(r.test.target, m);
  }
  if (batches.length > 0) {
    out.result = mergeResults(batches.flatMap((b) => (b.result ? [b.result] : [])));
    out.run = mergeRuns(batches.flatMap((b) => (b.after ? [b.after] : [])));
  }
  return out;
}
