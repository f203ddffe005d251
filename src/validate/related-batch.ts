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
