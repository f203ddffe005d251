import { anyRunnerResults } from "../runners/index.ts";
import type { OwnerOf } from "./targets/types.ts";
import type { TestRun } from "./run-tests.ts";
import { TestTimes } from "./test-times.ts";

/** What the output of a run of some targets stopped part-way tells. */
export interface StoppedSplit {
  /**
   * Targets the run finished: with a runner that runs them one after the other in the order given
   * (`TargetedCommand.sequential`), those with results before the last target that printed any. Empty
   * for other runners (parallel workers, reordering plugins): nothing of theirs is known to be finished.
   */
  finished: string[];
  /** The target the run was in when it was stopped (null when the output names none). */
  partial: string | null;
  /** Each target's test ids read from the output (ids no target owns are left out). */
  ids: Map<string, string[]>;
  /**
   * The run's time shared out. With a runner that runs targets one after the other: each finished
   * target the time the job's estimates give its tests (never more than its share by tests), and the
   * target the run was in the rest, the time it took at least. Otherwise among the targets that printed
   * results in proportion to the tests each ran, or when the output names none, to the tests each
   * defines: estimates, never evidence.
   */
  shares: Map<string, number>;
}

/** The targets of a stopped run that it finished, the one it was in, and their shares of its time. */
export function splitStopped(
  run: TestRun,
  targets: readonly string[],
  ownerOf: OwnerOf,
  sequential: boolean,
  definitions: (target: string) => number,
  scale = 1,
): StoppedSplit {
  const order = new Map(targets.map((t, i) => [t, i]));
  const ids = new Map<string, string[]>();
  let last = -1;
  for (const id of run.tests?.keys() ?? []) {
    const t = order.has(id) ? id : ownerOf(id, run.files?.get(id));
    if (t === null || !order.has(t)) continue;
    const list = ids.get(t) ?? [];
    list.push(id);
    ids.set(t, list);
    last = Math.max(last, order.get(t)!);
  }
  const finished = sequential ? targets.filter((t, i) => i < last && ids.has(t)) : [];
  let partial = last >= 0 && sequential ? targets[last]! : null;
  // No test id was printed (a runner that names its tests only at its end): its progress lines tell
  // which file it was in, whatever the order it ran them in. No file is known finished (none of their results
  // was read).
  if (last < 0) {
    last = anyRunnerResults.progressAt?.(run.exec.stdout, order) ?? -1;
    if (last >= 0) partial = targets[last]!;
  }
  const weighed = ids.size > 0 ? targets.filter((t) => ids.has(t)) : [...targets];
  const weight = (t: string) => TestTimes.guess(ids.get(t)?.length ?? definitions(t));
  const total = weighed.reduce((a, t) => a + weight(t), 0);
  const ms = run.exec.durationMs;
  const shares = new Map(weighed.map((t) => [t, (ms * weight(t)) / total]));
  if (partial !== null) {
    let done = 0;
    // Files before it that printed no results: their guessed times, at most the run's.
    for (const t of targets.slice(0, last))
      if (!ids.has(t)) done += Math.min(weight(t) * scale, Math.max(0, ms - done));
    for (const t of finished) {
      const share = Math.min(weight(t) * scale, shares.get(t) ?? 0);
      shares.set(t, share);
      done += share;
    }
    shares.set(partial, ms - done);
  }
  return { finished, partial, ids, shares };
}

/**
 * The results of `keep` (test ids) from a stopped run, as a run of its own that finished: no limit, an
 * exit code from its failures, the time given. What a comparison of the finished part reads.
 */
export function partOfRun(run: TestRun, keep: ReadonlySet<string>, durationMs: number): TestRun {
  const tests = new Map([...(run.tests ?? [])].filter(([id]) => keep.has(id)));
  const files = new Map([...(run.files ?? [])].filter(([id]) => keep.has(id)));
  const count = (o: string) => [...tests.values()].filter((v) => v === o).length;
  const failed = count("failed");
  return {
    command: run.command,
    exec: {
      ...run.exec,
      exitCode: failed > 0 ? 1 : 0,
      signal: null,
      limit: null,
      stdout: "",
      stderr: "",
      durationMs: Math.round(durationMs),
    },
    tests,
    ...(files.size > 0 ? { files } : {}),
    parser: run.parser,
    passed: count("passed"),
    failed,
    skipped: count("skipped"),
    ...(run.restored ? { restored: run.restored } : {}),
    notes: run.notes ?? [],
    ...(run.perTestUnavailable ? { perTestUnavailable: run.perTestUnavailable } : {}),
  };
}
