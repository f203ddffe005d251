import type { TestRun } from "./run-tests.ts";
import type { TreeListing } from "./targets/types.ts";

/** Time a test target costs before any test of it runs (the runner's start-up, imports), first guess. */
export const PRIOR_START_MS = 400;
/** Time one test costs, first guess (the job's runs replace both guesses with what they measured). */
export const PRIOR_PER_TEST_MS = 40;
/** Test definitions counted in a file at most. */
const MAX_COUNTED = 5000;
/** Lines that define a test in the languages the selection knows (a count, not a parse: a first guess). */
const TEST_DEFINITION =
  /^\s*(?:(?:async\s+)?def\s+test|(?:it|test|specify)\s*(?:\.\w+\s*)?\(|@(?:Test|ParameterizedTest)\b|func\s+Test)/;

/**
 * How long each test target takes, for one job: what the unpatched runs measured (a run of one target
 * is its time; a run of several is shared out by their tests), and for a target that has not run yet a
 * guess from the tests its files define, scaled by how far the job's measured targets were from their
 * own guesses. Used to order the selected tests and to fit them in a candidate's budget: estimates,
 * never evidence.
 */
export class TestTimes {
  readonly #measured = new Map<string, number>();
  /** Targets whose unpatched run was stopped before they finished: the time they took at least. */
  readonly #atLeast = new Map<string, number>();
  readonly #counts = new Map<string, number>();
  #measuredSum = 0;
  #guessedSum = 0;

  /** Test definitions in a target's files (cached; the unpatched tree does not change during a job). */
  definitions(target: string, files: readonly string[], listing: TreeListing | null): number {
    let n = this.#counts.get(target);
    if (n === undefined) {
      n = 0;
      for (const f of files) {
        const text = listing?.read(f) ?? "";
        let from = 0;
        while (from < text.length && n < MAX_COUNTED) {
          let to = text.indexOf("\n", from);
          if (to < 0) to = text.length;
          if (TEST_DEFINITION.test(text.slice(from, to))) n++;
          from = to + 1;
        }
      }
      this.#counts.set(target, n);
    }
    return n;
  }

  /** The first guess for a target with `tests` test definitions (a single test id: 1). */
  static guess(tests: number): number {
    return PRIOR_START_MS + PRIOR_PER_TEST_MS * Math.max(1, tests);
  }

  /** How far measured times are from their guesses, over the job (1 before anything was measured). */
  get scale(): number {
    if (this.#guessedSum <= 0) return 1;
    return Math.min(50, Math.max(0.05, this.#measuredSum / this.#guessedSum));
  }

  /** The time the unpatched tree took for `target`, when a run of it was measured. */
  measured(target: string): number | undefined {
    return this.#measured.get(target);
  }

  /** The time `target` took at least on the unpatched tree, when a run of it was stopped before it ended. */
  atLeast(target: string): number | undefined {
    return this.#measured.has(target) ? undefined : this.#atLeast.get(target);
  }

  /** Records that the unpatched run of `target` was stopped after it had taken `ms` (the longest kept). */
  recordStopped(target: string, ms: number): void {
    if (this.#measured.has(target)) return;
    this.#atLeast.set(target, Math.max(ms, this.#atLeast.get(target) ?? 0));
  }

  /**
   * The estimated time of `target`: its measured time, else its scaled guess, and never less than what
   * a stopped run of it already took.
   */
  estimate(target: string, tests: number): number {
    const m = this.#measured.get(target);
    if (m !== undefined) return m;
    return Math.max(TestTimes.guess(tests) * this.scale, this.#atLeast.get(target) ?? 0);
  }

  /**
   * Records an unpatched run of `targets`: one target takes the run's time; several share it in
   * proportion to their guesses from the tests each ran (`ownerOf` tells which target an id belongs to;
   * `definitions` what a target was guessed from when none of its ids was read).
   */
  record(
    targets: readonly string[],
    run: TestRun,
    ownerOf: (id: string, files?: readonly string[]) => string | null,
    definitions: (target: string) => number,
  ): void {
    if (targets.length === 0 || run.exec.limit !== null) return;
    const ran = new Map<string, number>();
    for (const id of run.tests?.keys() ?? []) {
      const t = targets.includes(id) ? id : ownerOf(id, run.files?.get(id));
      if (t !== null) ran.set(t, (ran.get(t) ?? 0) + 1);
    }
    const weight = (t: string) => TestTimes.guess(ran.get(t) ?? definitions(t));
    const total = targets.reduce((a, t) => a + weight(t), 0);
    for (const t of targets) {
      if (this.#measured.has(t)) continue;
      const ms = (run.exec.durationMs * weight(t)) / total;
      this.#measured.set(t, ms);
      this.#measuredSum += ms;
      this.#guessedSum += TestTimes.guess(definitions(t));
    }
  }
}
