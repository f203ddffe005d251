import { availableParallelism } from "node:os";
import { mergeResults, mergeRuns } from "./merge-runs.ts";
import { runBatch } from "./related-batch.ts";
import type { PristineTests } from "./baseline.ts";
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
  const s = newSchedule(input);
  while (s.pending.length > 0) {
    setAside(s);
    if (s.pending.length === 0) break;
    const round = roundCosts(s);
    const pick = pickRound(s, round);
    if (s.batches.some((b) => b.result?.status === "regressions")) {
      // A regression is shown: the tests the last round found room for are left out for it, the others
      // (no room then) for the budget.
      for (const r of s.pending)
        (s.lastPick.has(r) ? s.out.afterRegression : s.out.overBudget).push(r.test.target);
      s.pending.length = 0;
      break;
    }
    if (pick.length === 0) break;
    s.lastPick = new Set(pick);
    await runRound(s, batchOf(s, pick, round));
  }
  for (const r of s.pending) {
    s.out.overBudget.push(r.test.target);
    const m = s.store.times.measured(r.test.target);
    if (s.budget !== null && m !== undefined && m > s.budget) s.out.longerThanBudget.set(r.test.target, m);
  }
  if (s.batches.length > 0) {
    s.out.result = mergeResults(s.batches.flatMap((b) => (b.result ? [b.result] : [])));
    s.out.run = mergeRuns(s.batches.flatMap((b) => (b.after ? [b.after] : [])));
  }
  return s.out;
}

/** What a candidate's schedule of related tests carries from round to round. */
interface Schedule {
  input: RelatedRunsInput;
  store: PristineTests;
  parallel: boolean;
  /** A batch's estimated wall time with the unpatched run beside it, as a multiple of one run's. */
  pair: number;
  budget: number | null;
  allowance: number | null;
  /** The most related test file (see mostRelated). */
  lead: RankedTest | undefined;
  leadLimit: number | null;
  /** Tests not run yet, in the order they are tried. */
  pending: RankedTest[];
  out: RelatedRuns;
  /** Batches with a comparison. */
  batches: Batch[];
  /** This candidate's wall time over its estimates so far (load, contention). */
  spent: number;
  predicted: number;
  lastPick: Set<RankedTest>;
  /** Time (as measured) of the tests that only failed before which ran. */
  spentFailedOnly: number;
  /** No batch ran yet (the first one's privilege is unused). */
  first: boolean;
  requeued: RankedTest[];
}

function newSchedule(input: RelatedRunsInput): Schedule {
  const parallel = input.parallel ?? availableParallelism() >= 2;
  const budget = input.budgetMs;
  return {
    input,
    store: input.pristine.tests,
    parallel,
    pair: parallel ? PAIR_PARALLEL : PAIR_SEQUENTIAL,
    budget,
    allowance: allowanceFor(input.config.validation.runner, budget, input.slowdownGraceMs),
    lead: mostRelated(input.ranked),
    leadLimit: budget === null ? null : mostRelatedLimitMs(budget),
    pending: input.ranked.map((r) => r),
    out: {
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
    },
    batches: [],
    spent: 0,
    predicted: 0,
    lastPick: new Set(),
    spentFailedOnly: 0,
    first: true,
    requeued: [],
  };
}

const drop = (s: Schedule, t: string) =>
  s.pending.splice(
    s.pending.findIndex((r) => r.test.target === t),
    1,
  );

/**
 * Sets aside what cannot run: tests that need the network, and tests stopped at their own limit on the
 * unpatched tree, cannot be judged here (named as such, never run after the patch); tests whose unpatched
 * run was stopped after the whole budget (for this candidate or an earlier one) fit no candidate (given
 * up for the job, not tried again).
 */
function setAside(s: Schedule): void {
  const { store, out, budget } = s;
  for (const r of [...s.pending]) {
    const t = r.test.target;
    // A single test id is given up with its file.
    const owner = s.input.ownerOf(t) ?? t;
    const line = store.network.get(t) ?? store.network.get(owner);
    const ms = store.timedOut.get(t) ?? store.timedOut.get(owner);
    if (line !== undefined) out.network.push({ target: t, line });
    else if (ms !== undefined) out.timedOut.push({ target: t, ms });
    else continue;
    drop(s, t);
  }
  for (const r of [...s.pending]) {
    const atLeast = budget === null ? undefined : store.times.atLeast(r.test.target);
    if (budget !== null && atLeast !== undefined && atLeast >= budget) {
      out.givenUp.push({ target: r.test.target, limitMs: atLeast });
      drop(s, r.test.target);
    }
  }
}

/** A round's view of cost: the time left, each test's estimated cost, which tests run alone. */
interface RoundCosts {
  left: number;
  costOf: (r: RankedTest) => number;
  heavy: (r: RankedTest) => boolean;
}

function roundCosts(s: Schedule): RoundCosts {
  const { input, store } = s;
  // Slower than estimated (load, contention) makes later estimates longer; faster never shortens them.
  const ratio = s.predicted > 0 ? Math.min(4, Math.max(1, s.spent / s.predicted)) : 1;
  return {
    left: s.budget === null ? Infinity : input.started + s.budget - performance.now(),
    costOf: (r) => {
      const t = r.test.target;
      return input.estimate(t) * (store.missing([t], input.ownerOf).length > 0 ? s.pair : 1) * ratio;
    },
    heavy: (r) => isHeavy(store, r.test.target, input.estimate(r.test.target), s.allowance),
  };
}

/**
 * Orders the pending tests (cheap first within a tier, the most related file leading the first batch
 * whatever its cost) and picks, in that order, the tests that fit the time left: the first test of the
 * candidate that may lead runs whatever its estimate; tests that only failed before the patch cannot show
 * a regression (they fail already), so they get what is left of the budget, at most FAILED_ONLY_SHARE.
 */
function pickRound(s: Schedule, { left, costOf, heavy }: RoundCosts): RankedTest[] {
  const { store, budget, lead } = s;
  const order = cheapFirst(s.pending, heavy, FAILED_ONLY_TIER);
  if (s.first && lead && order.includes(lead)) {
    order.splice(order.indexOf(lead), 1);
    order.unshift(lead);
  }
  s.pending.splice(0, s.pending.length, ...order);
  /** A test whose unpatched run took longer than the budget can have the first batch's privilege. */
  const mayLead = (r: RankedTest): boolean => {
    const m = store.times.measured(r.test.target);
    return r === lead || budget === null || m === undefined || m <= budget;
  };
  const pick: RankedTest[] = [];
  let acc = store.overheadMs;
  let failedOnly = s.spentFailedOnly;
  const failedOnlyCap = budget === null ? Infinity : budget * FAILED_ONLY_SHARE;
  for (const r of s.pending) {
    const c = costOf(r);
    const last = r.tier === FAILED_ONLY_TIER;
    if (
      (s.first && pick.length === 0 && mayLead(r)) ||
      (acc + c <= left && (!last || failedOnly + c <= failedOnlyCap))
    ) {
      pick.push(r);
      acc += c;
      if (last) failedOnly += c;
    }
  }
  return pick;
}

/**
 * The batch of this round: the best-ranked picked tests of one phase. A costly test runs alone (it
 * cannot hold the others' verdicts); a batch of tests the job has not timed yet takes at most half the
 * time left, so their guesses are checked by a measurement before more of the budget goes on guesses.
 */
function batchOf(
  s: Schedule,
  pick: readonly RankedTest[],
  { left, costOf, heavy }: RoundCosts,
): RankedTest[] {
  const phase = phaseOf(pick[0]!.tier);
  const batch: RankedTest[] = [];
  let batchCost = 0;
  for (const r of pick) {
    if (phaseOf(r.tier) !== phase) continue;
    if (heavy(r)) {
      if (batch.length === 0) batch.push(r);
      break;
    }
    const c = costOf(r);
    const guessed = [...batch, r].some((x) => s.store.times.measured(x.test.target) === undefined);
    if (batch.length > 0 && guessed && batchCost + c > left / 2) break;
    batch.push(r);
    batchCost += c;
  }
  return batch;
}

/** Runs one batch at its deadline and accounts for it: what ran, what was stopped, what goes back. */
async function runRound(s: Schedule, batch: readonly RankedTest[]): Promise<void> {
  const { input, store, budget, out } = s;
  // The most related file, costly enough to run alone, has its own limit (no file allowance).
  const leads = s.first && s.lead !== undefined && batch.length === 1 && batch[0] === s.lead;
  const targets = batch.map((r) => r.test.target);
  const t0 = performance.now();
  const unpatchedNow = store.missing(targets, input.ownerOf);
  const overhead = store.overheadMs;
  const deadline =
    budget === null
      ? null
      : input.started +
        (leads && s.leadLimit !== null ? s.leadLimit : budget * (s.first ? FIRST_BATCH_ALLOWANCE : 1));
  s.first = false;
  const b = await runBatch(input, targets, s.parallel, deadline, leads ? null : s.allowance);
  const wall = performance.now() - t0;
  // What the batch would have been estimated at with the times it just measured: the ratio then
  // holds only what estimates from measured times miss (load, contention), not first guesses.
  s.spent += wall;
  s.predicted +=
    overhead + targets.reduce((a, t) => a + input.estimate(t) * (unpatchedNow.includes(t) ? s.pair : 1), 0);
  if (b.stopped === null) {
    // What the batch cost beyond its runs' own time (copies, the configuration check, waiting).
    const unpatchedMs = unpatchedNow.reduce((a, t) => a + (store.times.measured(t) ?? 0), 0);
    const own = s.parallel
      ? Math.max(b.after?.exec.durationMs ?? 0, unpatchedMs)
      : (b.after?.exec.durationMs ?? 0) + unpatchedMs;
    store.noteOverhead(wall - own);
  } else {
    const st = { ...b.stopped, targets: b.stopped.targets.filter((t) => !store.network.has(t)) };
    if (st.targets.length > 0) out.stopped.push(st);
  }
  if (b.result) s.batches.push(b);
  for (const r of batch)
    if (r.tier === FAILED_ONLY_TIER && b.ran.includes(r.test.target))
      s.spentFailedOnly += input.estimate(r.test.target);
  out.ran.push(...b.ran);
  if (b.after) out.commands.push(b.command);
  for (const t of targets) {
    const r = s.pending.find((x) => x.test.target === t);
    if (!r) continue;
    drop(s, t);
    // Not judged because their unpatched run was stopped at its allowance: queued again (those that
    // timed out or need the network are given up at the top of the loop), else settled.
    if (b.requeue.includes(t) || store.network.has(t)) s.requeued.push(r);
  }
  s.pending.unshift(...s.requeued.splice(0));
}
