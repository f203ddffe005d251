import { availableParallelism } from "node:os";
import type { RepoConfig } from "../config/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import { addRestored, baselineLimit, compareRuns, type ValidationResult } from "./compare.ts";
import { mergeResults, mergeRuns } from "./merge-runs.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import type { RankedTest } from "./targets/rank.ts";
import { targetedCommand, toolTreeOf } from "./targets/runner-command.ts";
import { partOfRun, splitStopped } from "./stopped-runs.ts";
import {
  allowanceFor,
  cheapFirst,
  FAILED_ONLY_TIER,
  isHeavy,
  unpatchedLimitMs,
  withoutTargets,
} from "./schedule.ts";

/** The tests may take this many times as long after the patch as before it, plus the grace. */
export const SLOWDOWN_FACTOR = 4;
/** Time a batch of tests gets beyond SLOWDOWN_FACTOR × its unpatched time (start-up noise, load). */
export const SLOWDOWN_GRACE_MS = 10_000;
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

export interface RelatedRunsInput {
  sandbox: SandboxPort;
  config: RepoConfig;
  pristine: { dir: string; tests: PristineTests };
  workdir: string;
  /** Files the patch changed (the canaries call the changed code where a test beside them does). */
  changed?: readonly string[];
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

/** A batch stopped at the budget: its tests that were not judged, and what is known of their times. */
export interface StoppedBatch {
  targets: string[];
  /** How long the batch had run when it was stopped (ms). */
  afterMs: number;
  /** How long the same tests took on the unpatched tree (ms), when every one of them is known. */
  unpatchedMs: number | null;
  /** Why, as the report says it ("stopped at the budget after 12 s; …"). */
  reason: string;
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
  /** Over the budget because their batch was stopped at it (also in no other list). */
  stopped: StoppedBatch[];
  /** Over the budget because their unpatched run alone took longer than the budget (ms), also in overBudget. */
  longerThanBudget: Map<string, number>;
  /**
   * Targets whose unpatched run was stopped, for this or an earlier candidate, after at least the whole
   * budget (ms): no candidate can run them, so they are given up for the job.
   */
  givenUp: { target: string; limitMs: number }[];
  /** Commands of the patched runs, in order. */
  commands: string[];
  /**
   * Targets whose tests failed on the unpatched tree only because the network is off (with the error
   * line that shows it): they need the network, are not judged here and not run again after the patch.
   */
  network: { target: string; line: string }[];
  /**
   * Targets whose unpatched run was stopped at their own time limit (ms run): they could not be judged
   * here (timed out before the patch) and are not run on the patched tree.
   */
  timedOut: { target: string; ms: number }[];
}

interface Batch {
  /** The comparison of what both runs finished (null when nothing could be compared). */
  result: ValidationResult | null;
  after: TestRun | null;
  command: string;
  /** Targets judged: both runs finished them, or a stopped run showed a regression in them. */
  ran: string[];
  /** The others, when the batch was stopped at the budget. */
  stopped: StoppedBatch | null;
  /**
   * Targets of a batch whose unpatched run was stopped at its allowance (not at the budget) that were
   * not judged: they go back to the queue (one that timed out alone is given up by the queue).
   */
  requeue: string[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The sum of the unpatched times of `targets`, when each is known. */
function unpatchedTime(store: PristineTests, targets: readonly string[]): number | null {
  const m = targets.map((t) => store.times.measured(t));
  return m.every((x) => x !== undefined) ? m.reduce<number>((a, x) => a + (x ?? 0), 0) : null;
}

/**
 * One batch: the targets' unpatched results (run now for those the job lacks, beside the patched run
 * when cores allow) and the patched run. Both stop at `deadline` (a `performance.now()` time; null = no
 * budget); the patched run is also stopped as a hang once it takes SLOWDOWN_FACTOR× the time the same
 * tests took unpatched, plus the grace, when that comes before the deadline. A batch stopped at the
 * deadline judges what both runs finished (and a regression a stopped run already shows); its other
 * tests are over the budget, with how long they ran and, when known, took before the patch.
 */
async function runBatch(
  input: RelatedRunsInput,
  targets: string[],
  parallel: boolean,
  deadline: number | null,
  allowance: number | null,
): Promise<Batch> {
  const { sandbox, config, pristine, workdir, signal, ownerOf } = input;
  const store = pristine.tests;
  const cmd = targetedCommand(config, targets, toolTreeOf(workdir));
  if ("reason" in cmd) throw new Error(`the selected tests cannot be run: ${cmd.reason}`);
  const t0 = performance.now();
  /** A run starting now stops at the deadline when that comes before the configured test limit. */
  const limitNow = (): number | undefined => {
    if (deadline === null) return undefined;
    const left = Math.max(1, Math.round(deadline - performance.now()));
    return left < config.timeouts.testMs ? left : undefined;
  };
  const hang = new AbortController();
  const stop = signal ? AbortSignal.any([signal, hang.signal]) : hang.signal;
  let timer: NodeJS.Timeout | undefined;
  let hung = false;
  let settled = false;
  /** The unpatched run did not finish every target: the patched run was stopped, it cannot be judged. */
  let baselineShort = false;
  let beforeMs = 0;
  // Targets not run on the unpatched tree yet get their allowance there (see schedule.ts), when it
  // comes before the deadline: a batch stopped at it is split, never left over the budget.
  const missingNow = store.missing(targets, ownerOf);
  const atDeadlineLimit = limitNow();
  const fileLimit =
    allowance !== null && missingNow.length > 0
      ? unpatchedLimitMs(store, missingNow, input.estimate, allowance)
      : undefined;
  const byAllowance = fileLimit !== undefined && fileLimit < (atDeadlineLimit ?? config.timeouts.testMs);
  /** A batch whose unpatched run was stopped at its allowance: split (see schedule.ts). */
  const settle = (b: Batch, unpatchedStopped: boolean): Batch => {
    if (!byAllowance || !unpatchedStopped || b.stopped === null) return b;
    const alone = missingNow.length === 1;
    for (const t of b.stopped.targets) {
      const least = store.times.atLeast(t);
      if (least === undefined || store.missing([t], ownerOf).length === 0) continue;
      // Timed out: the output shows the run was in its tests when it was stopped, alone or after a
      // whole allowance; or it was stopped alone twice (a start slower than the allowance, once, is
      // load: it runs again).
      const inside = store.stoppedInside(t);
      const again = alone && store.stoppedAlone.has(t);
      if (alone) store.stoppedAlone.add(t);
      if ((inside && (alone || least >= (allowance ?? Infinity))) || again)
        store.timedOut.set(t, Math.round(least));
    }
    return { ...b, stopped: null, requeue: b.stopped.targets };
  };
  const beforeP = store.forTargets(
    targets,
    ownerOf,
    signal,
    input.definitions,
    byAllowance ? fileLimit : atDeadlineLimit,
  );
  const uncovered = () => store.missing(targets, ownerOf);
  if (!parallel) await beforeP.catch(() => null);
  if (!parallel && uncovered().length > 0) {
    await beforeP;
    return settle(stoppedBatch(input, targets, cmd, null, uncovered(), performance.now() - t0, false), true);
  }
  const patchedStart = performance.now();
  const patchedLimit = limitNow();
  void beforeP.then(
    (before) => {
      if (settled) return;
      if (uncovered().length > 0) {
        baselineShort = true;
        hang.abort();
        return;
      }
      if (!before || before.exec.limit !== null) return;
      beforeMs = unpatchedTime(store, targets) ?? before.exec.durationMs;
      const at = patchedStart + SLOWDOWN_FACTOR * beforeMs + input.slowdownGraceMs;
      // The deadline comes first: a run stopped there is over the budget, not a hang.
      if (deadline !== null && at >= deadline) return;
      timer = setTimeout(
        () => {
          hung = true;
          hang.abort();
        },
        Math.max(0, at - performance.now()),
      );
    },
    () => {},
  );
  const afterP = runTestSuite(sandbox, workdir, config, stop, {
    pristine: pristine.dir,
    targeted: cmd,
    ...(input.changed ? { changed: input.changed } : {}),
    ...(patchedLimit !== undefined ? { timeoutMs: patchedLimit } : {}),
  });
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
    const short = uncovered();
    const atDeadline = after !== null && patchedLimit !== undefined && after.exec.limit === "time" && !hung;
    if (short.length > 0 || atDeadline || baselineShort) {
      return settle(
        stoppedBatch(
          input,
          targets,
          cmd,
          after,
          short,
          performance.now() - t0,
          !atDeadline && !baselineShort,
        ),
        short.length > 0 || baselineShort,
      );
    }
    if (hung && after) after = { ...after, exec: { ...after.exec, limit: "time" } };
    // Targets whose tests failed before the patch only for want of the network are not judged.
    const net = new Set(targets.filter((t) => store.network.has(t)));
    const judged = targets.filter((t) => !net.has(t));
    if (judged.length === 0)
      return { result: null, after, command: cmd.display, ran: [], stopped: null, requeue: [] };
    if (before && after && net.size > 0) {
      before = withoutTargets(before, net, ownerOf);
      after = withoutTargets(after, net, ownerOf);
    }
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
    return { result, after, command: cmd.display, ran: judged, stopped: null, requeue: [] };
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/**
 * A batch stopped at the budget (`after`: the patched run, null when it did not start; `short`: targets
 * whose unpatched run did not finish; `afterDone`: the patched run finished). What both runs finished
 * is compared, with the tests the patched run reached in the target it was stopped in (a test that
 * passed before and fails after is a regression wherever the run stopped); the rest is over the budget.
 */
function stoppedBatch(
  input: RelatedRunsInput,
  targets: readonly string[],
  cmd: { display: string; sequential?: true },
  after: TestRun | null,
  short: readonly string[],
  wallMs: number,
  afterDone: boolean,
): Batch {
  const { ownerOf } = input;
  const store = input.pristine.tests;
  const split =
    after && !afterDone
      ? splitStopped(after, targets, ownerOf, cmd.sequential === true, input.definitions)
      : null;
  const finished = (afterDone ? [...targets] : (split?.finished ?? [])).filter(
    (t) => !short.includes(t) && !store.network.has(t),
  );
  const partial =
    split?.partial != null && !short.includes(split.partial) && !finished.includes(split.partial)
      ? split.partial
      : null;
  const reached = new Set(partial ? (split?.ids.get(partial) ?? []) : []);
  let result: ValidationResult | null = null;
  const asked = [...finished, ...(partial ? [partial] : [])];
  const before = asked.length > 0 && after?.tests ? store.view(asked, ownerOf) : null;
  if (after?.tests && before?.tests) {
    const owner = (id: string, files?: readonly string[]) => (targets.includes(id) ? id : ownerOf(id, files));
    const keep = (run: TestRun) =>
      new Set(
        [...(run.tests?.keys() ?? [])].filter((id) => {
          const o = owner(id, run.files?.get(id));
          return o !== null && (finished.includes(o) || (o === partial && reached.has(id)));
        }),
      );
    const a = partOfRun(after, keep(after), after.exec.durationMs);
    const b = partOfRun(before, keep(before), before.exec.durationMs);
    if ((a.tests?.size ?? 0) > 0) {
      result = compareRuns(b, a);
      result.summary += ` (the batch was stopped at the budget after ${seconds(wallMs)}: only the tests both runs finished are compared)`;
      addRestored(result, after);
    }
  }
  const ran = [...finished, ...(partial && result?.regressions.some((r) => reached.has(r)) ? [partial] : [])];
  const left = targets.filter((t) => !ran.includes(t));
  // A comparison of part of a target, with no regression in it, judges no target: it is not a result.
  if (ran.length === 0) result = null;
  const unpatchedMs = unpatchedTime(store, left);
  const patchedMs = after?.exec.durationMs ?? 0;
  let reason: string;
  if (after === null) {
    reason = `stopped at the budget after ${seconds(wallMs)}: their run on the unpatched tree did not finish, so the patched run did not start`;
  } else if (afterDone) {
    reason = `their run on the unpatched tree was stopped at the budget after ${seconds(wallMs)}, so the patched run (${seconds(patchedMs)}) has nothing to be compared with`;
  } else if (left.some((t) => short.includes(t))) {
    reason = `stopped at the budget after ${seconds(patchedMs)} of the patched run; their run on the unpatched tree did not finish either`;
  } else {
    reason = `stopped at the budget after ${seconds(patchedMs)} of the patched run`;
    if (unpatchedMs !== null) {
      const ratio = patchedMs / Math.max(1, unpatchedMs);
      // How far the patched run got: its results of these tests against the unpatched run's (which
      // finished them all in unpatchedMs). Far behind is shown, never judged: a test's time is unknown.
      const owned = (run: TestRun | null, id: string) => {
        const o = left.includes(id) ? id : ownerOf(id, run?.files?.get(id));
        return o !== null && left.includes(o);
      };
      const prior = store.view(left, ownerOf);
      const had = prior?.tests ? [...prior.tests.keys()].filter((id) => owned(prior, id)).length : 0;
      const got = after.tests ? [...after.tests.keys()].filter((id) => owned(after, id)).length : null;
      const counted = had > 0 && got !== null;
      if (counted) reason += `, with ${got} of the ${had} test results the unpatched run gave`;
      reason += `; the same tests took ${seconds(unpatchedMs)} before the patch`;
      if (ratio >= SLOWDOWN_FACTOR)
        reason += ` (${Math.floor(ratio)}× as long already: the patch may make them hang or run far slower)`;
      else if (counted && ratio >= 1 && got * SLOWDOWN_FACTOR < had)
        reason += " (far behind the unpatched run: the patch may make them hang or run far slower)";
    }
  }
  return {
    result,
    after,
    command: cmd.display,
    ran,
    requeue: [],
    stopped:
      left.length > 0
        ? {
            targets: left,
            afterMs: Math.round(after && !afterDone ? patchedMs : wallMs),
            unpatchedMs,
            reason,
          }
        : null,
  };
}

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
