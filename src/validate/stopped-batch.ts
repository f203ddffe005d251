import { addRestored, compareRuns, type ValidationResult } from "./compare.ts";
import {
  type Batch,
  type RelatedRunsInput,
  SLOWDOWN_FACTOR,
  seconds,
  unpatchedTime,
} from "./related-types.ts";
import type { TestRun } from "./run-tests.ts";
import { partOfRun, splitStopped } from "./stopped-runs.ts";

/**
 * A batch stopped at the budget (`after`: the patched run, null when it did not start; `short`: targets
 * whose unpatched run did not finish; `afterDone`: the patched run finished). What both runs finished
 * is compared, with the tests the patched run reached in the target it was stopped in (a test that
 * passed before and fails after is a regression wherever the run stopped); the rest is over the budget.
 */
export function stoppedBatch(
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
