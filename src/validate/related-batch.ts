import { addRestored, baselineLimit, compareRuns } from "./compare.ts";
import {
  type Batch,
  type RelatedRunsInput,
  SLOWDOWN_FACTOR,
  seconds,
  unpatchedTime,
} from "./related-types.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { unpatchedLimitMs, withoutTargets } from "./schedule.ts";
import { stoppedBatch } from "./stopped-batch.ts";
import { targetedCommand, toolTreeOf } from "./targets/runner-command.ts";

/**
 * One batch: the targets' unpatched results (run now for those the job lacks, beside the patched run
 * when cores allow) and the patched run. Both stop at `deadline` (a `performance.now()` time; null = no
 * budget); the patched run is also stopped as a hang once it takes SLOWDOWN_FACTOR× the time the same
 * tests took unpatched, plus the grace, when that comes before the deadline. A batch stopped at the
 * deadline judges what both runs finished (and a regression a stopped run already shows); its other
 * tests are over the budget, with how long they ran and, when known, took before the patch.
 */
export async function runBatch(
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
  const limits = unpatchedLimits(input, targets, limitNow(), allowance);
  const settle = (b: Batch, unpatchedStopped: boolean): Batch =>
    settleAllowance(input, limits, allowance, b, unpatchedStopped);
  const beforeP = store.forTargets(
    targets,
    ownerOf,
    signal,
    input.definitions,
    limits.byAllowance ? limits.fileLimit : limits.atDeadline,
  );
  const uncovered = () => store.missing(targets, ownerOf);
  if (!parallel) await beforeP.catch(() => null);
  if (!parallel && uncovered().length > 0) {
    await beforeP;
    return settle(stoppedBatch(input, targets, cmd, null, uncovered(), performance.now() - t0, false), true);
  }
  const patchedStart = performance.now();
  const patchedLimit = limitNow();
  const watch = watchPatchedRun(input, targets, beforeP, uncovered, deadline, patchedStart);
  const afterP = runTestSuite(sandbox, workdir, config, watch.signal, {
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
      watch.abort();
      await afterP.catch(() => null);
      throw err;
    }
    let after = await afterP;
    watch.settled = true;
    const short = uncovered();
    const atDeadline =
      after !== null && patchedLimit !== undefined && after.exec.limit === "time" && !watch.hung;
    const baselineShort = watch.baselineShort;
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
    if (watch.hung && after) after = { ...after, exec: { ...after.exec, limit: "time" } };
    return judgeBatch(input, targets, cmd.display, before, after, watch.hung ? watch.beforeMs : null);
  } finally {
    watch.dispose();
  }
}

/**
 * The verdict of a batch both runs finished: targets that failed before only for want of the network are
 * not judged; a patched run stopped as a hang (`hungAfter`: the unpatched time it was measured against,
 * else null) names every test of the batch as not finishing.
 */
function judgeBatch(
  input: RelatedRunsInput,
  targets: readonly string[],
  command: string,
  before: TestRun | null,
  after: TestRun | null,
  hungAfter: number | null,
): Batch {
  const { ownerOf } = input;
  const store = input.pristine.tests;
  // Targets whose tests failed before the patch only for want of the network are not judged.
  const net = new Set(targets.filter((t) => store.network.has(t)));
  const judged = targets.filter((t) => !net.has(t));
  if (judged.length === 0) return { result: null, after, command, ran: [], stopped: null, requeue: [] };
  if (before && after && net.size > 0) {
    before = withoutTargets(before, net, ownerOf);
    after = withoutTargets(after, net, ownerOf);
  }
  const result = compareRuns(before, after);
  if (hungAfter !== null && result.status === "regressions") {
    // Which tests of the batch hang cannot be told: each is named as not finishing.
    result.regressions = targets.map(
      (t) =>
        `${t} (did not finish: its batch ran past ${SLOWDOWN_FACTOR}× the time it took before the patch, plus ${seconds(input.slowdownGraceMs)})`,
    );
    result.summary += ` (limit: ${SLOWDOWN_FACTOR}× the ${seconds(hungAfter)} the same tests took before the patch, plus ${seconds(input.slowdownGraceMs)})`;
  }
  addRestored(result, after);
  baselineLimit(result, before);
  return { result, after, command, ran: judged, stopped: null, requeue: [] };
}

interface UnpatchedLimits {
  /** Targets not run on the unpatched tree yet. */
  missing: string[];
  /** The limit a run starting now has at the deadline (undefined: the configured test limit). */
  atDeadline: number | undefined;
  /** The allowance of the missing targets' unpatched run (see schedule.ts). */
  fileLimit: number | undefined;
  /** The unpatched run stops at the allowance (it comes before the deadline and the test limit). */
  byAllowance: boolean;
}

/**
 * The limit of a batch's unpatched run: targets not run on the unpatched tree yet get their allowance
 * there (see schedule.ts) when it comes before the deadline; a batch stopped at it is split, never left
 * over the budget.
 */
function unpatchedLimits(
  input: RelatedRunsInput,
  targets: readonly string[],
  atDeadline: number | undefined,
  allowance: number | null,
): UnpatchedLimits {
  const store = input.pristine.tests;
  const missing = store.missing(targets, input.ownerOf);
  const fileLimit =
    allowance !== null && missing.length > 0
      ? unpatchedLimitMs(store, missing, input.estimate, allowance)
      : undefined;
  const byAllowance = fileLimit !== undefined && fileLimit < (atDeadline ?? input.config.timeouts.testMs);
  return { missing, atDeadline, fileLimit, byAllowance };
}

/**
 * A batch whose unpatched run was stopped at its allowance: its stopped targets go back to the queue,
 * and those that timed out are marked so (given up by the queue).
 */
function settleAllowance(
  input: RelatedRunsInput,
  limits: UnpatchedLimits,
  allowance: number | null,
  b: Batch,
  unpatchedStopped: boolean,
): Batch {
  const { ownerOf } = input;
  const store = input.pristine.tests;
  if (!limits.byAllowance || !unpatchedStopped || b.stopped === null) return b;
  const alone = limits.missing.length === 1;
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
}

/** The watch over a batch's patched run while its unpatched run may still be going. */
interface PatchedRunWatch {
  /** Stops the patched run (with the job's own signal). */
  signal: AbortSignal;
  /** The patched run was stopped as a hang (SLOWDOWN_FACTOR× the unpatched time, plus the grace). */
  hung: boolean;
  /** The unpatched run did not finish every target: the patched run was stopped, it cannot be judged. */
  baselineShort: boolean;
  /** The unpatched time the hang limit was measured from (ms). */
  beforeMs: number;
  /** Both runs are done: a late unpatched result changes nothing. */
  settled: boolean;
  abort(): void;
  dispose(): void;
}

/**
 * Once the unpatched run ends: stops the patched run when the unpatched one left targets unfinished, else
 * sets the hang limit (SLOWDOWN_FACTOR× the unpatched time plus the grace from `patchedStart`) unless the
 * deadline comes first (a run stopped there is over the budget, not a hang).
 */
function watchPatchedRun(
  input: RelatedRunsInput,
  targets: readonly string[],
  beforeP: Promise<TestRun | null>,
  uncovered: () => string[],
  deadline: number | null,
  patchedStart: number,
): PatchedRunWatch {
  const hang = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const watch: PatchedRunWatch = {
    signal: input.signal ? AbortSignal.any([input.signal, hang.signal]) : hang.signal,
    hung: false,
    baselineShort: false,
    beforeMs: 0,
    settled: false,
    abort: () => hang.abort(),
    dispose: () => {
      watch.settled = true;
      clearTimeout(timer);
    },
  };
  void beforeP.then(
    (before) => {
      if (watch.settled) return;
      if (uncovered().length > 0) {
        watch.baselineShort = true;
        hang.abort();
        return;
      }
      if (!before || before.exec.limit !== null) return;
      watch.beforeMs = unpatchedTime(input.pristine.tests, targets) ?? before.exec.durationMs;
      const at = patchedStart + SLOWDOWN_FACTOR * watch.beforeMs + input.slowdownGraceMs;
      if (deadline !== null && at >= deadline) return;
      timer = setTimeout(
        () => {
          watch.hung = true;
          hang.abort();
        },
        Math.max(0, at - performance.now()),
      );
    },
    () => {},
  );
  return watch;
}
