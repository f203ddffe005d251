import type { RepoConfig } from "../config/index.ts";
import type { ExecResult, SandboxPort, WorkCopy } from "../sandbox/index.ts";
import { mergeIntegrity } from "./canaries/index.ts";
import { networkBound } from "./network.ts";
import { runTestSuite, type TestRun } from "./run-tests.ts";
import { partOfRun, splitStopped } from "./stopped-runs.ts";
import { targetedCommand, toolTreeOf } from "./targets/runner-command.ts";
import { TestTimes } from "./test-times.ts";
import type { OwnerOf, TestSuiteMap, TreeListing } from "./targets/types.ts";

export type { OwnerOf } from "./targets/types.ts";

type RunOpts = NonNullable<Parameters<typeof runTestSuite>[4]>;

/** A test that failed on the unpatched tree, with the files the output named for it. */
export interface FailedTest {
  id: string;
  files?: readonly string[];
}

interface PristineRun {
  /** The targets the run covered; null = the whole suite. */
  targets: ReadonlySet<string> | null;
  run: TestRun;
}

/**
 * The unpatched tree's test results for one job, computed once and shared by every candidate of both
 * strategies: the whole suite at most once, and each selected test at most once (a later candidate that
 * selects more tests runs only the missing ones on a fresh copy of the pristine tree).
 */
export class PristineTests {
  readonly #sandbox: SandboxPort;
  readonly #config: RepoConfig;
  readonly #pristine: () => Promise<WorkCopy>;
  readonly #stop: AbortSignal;
  readonly #runs: PristineRun[] = [];
  readonly #inflight = new Map<string, Promise<void>>();
  #full: Promise<TestRun | null> | undefined;
  #fullDone: TestRun | null | undefined;
  #fullTrial: Promise<TestRun | null> | undefined;
  /** Set when the whole suite did not finish within a budget it was given: it is not tried again. */
  #fullTooSlow: number | null = null;
  /** The unpatched tree's tests per runner, found once (the tree does not change during a job). */
  readonly suites = new Map<string, TestSuiteMap>();
  /** The unpatched tree's files, listed once. */
  listing: TreeListing | null = null;
  /** How long each test took on the unpatched tree (and first guesses for those not run yet). */
  readonly times = new TestTimes();
  /** Wall time a batch of tests costs beyond the tests' own run time (copies, configuration check). */
  #overheadSum = 0;
  #overheadCount = 0;
  /** Sandbox runs made (targeted and whole), for the report and the benchmark. */
  runCount = 0;
  /**
   * Targets whose tests failed on the unpatched tree only because the network is off, with the error
   * line that shows it: they need the network, and no candidate can be judged by them here.
   */
  readonly network = new Map<string, string>();
  /**
   * Targets whose unpatched run was stopped at their own time limit (not at the budget), with how long
   * they had run: they could not be judged here (timed out before the patch) and are not run again.
   */
  readonly timedOut = new Map<string, number>();
  /** Targets whose unpatched run, of them alone, was stopped at their own limit. */
  readonly stoppedAlone = new Set<string>();
  /** Targets a stopped unpatched run was known (from its output) to be in when it was stopped. */
  readonly #stoppedIn = new Set<string>();

  /** Whether a stopped unpatched run's output showed it was in `target` when it was stopped. */
  stoppedInside(target: string): boolean {
    return this.#stoppedIn.has(target);
  }

  constructor(deps: {
    sandbox: SandboxPort;
    config: RepoConfig;
    pristine: () => Promise<WorkCopy>;
    stop: AbortSignal;
  }) {
    this.#sandbox = deps.sandbox;
    this.#config = deps.config;
    this.#pristine = deps.pristine;
    this.#stop = deps.stop;
  }

  /** Runs on a fresh pristine copy; `opts` may be worded for the copy (its installed tools). */
  async #runOn(opts: RunOpts | ((dir: string) => RunOpts), signal?: AbortSignal): Promise<TestRun | null> {
    const copy = await this.#pristine();
    const stop = signal ? AbortSignal.any([signal, this.#stop]) : this.#stop;
    this.runCount++;
    try {
      const own = typeof opts === "function" ? opts(copy.dir) : opts;
      return await runTestSuite(this.#sandbox, copy.dir, this.#config, stop, own);
    } finally {
      await copy.dispose();
    }
  }

  /** The whole suite on the unpatched tree, run once per job. */
  full(signal?: AbortSignal): Promise<TestRun | null> {
    this.#full ??= this.#runOn({}, signal).then((r) => {
      this.#fullDone = r;
      if (r) this.#runs.push({ targets: null, run: r });
      return r;
    });
    return this.#full;
  }

  /**
   * The whole suite within `timeoutMs`: null (and never tried again) when it does not finish in time.
   * A run that finishes becomes the job's whole-suite baseline.
   */
  fullWithin(timeoutMs: number, signal?: AbortSignal): Promise<TestRun | null> {
    if (this.#full !== undefined) return this.#full;
    if (this.#fullTooSlow !== null) return Promise.resolve(null);
    // Candidates validated at the same time share one attempt.
    this.#fullTrial ??= this.#runOn({ timeoutMs }, signal).then((r) => {
      this.#fullTrial = undefined;
      if (r && r.exec.limit === "time") {
        this.#fullTooSlow = timeoutMs;
        return null;
      }
      this.#full = Promise.resolve(r);
      this.#fullDone = r;
      if (r) this.#runs.push({ targets: null, run: r });
      return r;
    });
    return this.#fullTrial;
  }

  /** Records what a batch of tests cost beyond the runs' own time, for later estimates. */
  noteOverhead(ms: number): void {
    this.#overheadSum += Math.max(0, ms);
    this.#overheadCount++;
  }

  /** What a batch of tests costs beyond the runs' own time, as measured in this job (1 s before that). */
  get overheadMs(): number {
    return this.#overheadCount === 0 ? 1000 : this.#overheadSum / this.#overheadCount;
  }

  /** The targets no run of this job has covered yet (or is running now). */
  missing(targets: readonly string[], ownerOf: OwnerOf): string[] {
    return targets.filter((t) => !this.#covered(t, ownerOf) && !this.#inflight.has(t));
  }

  /** Resolves once no run of this store is in progress (none is started). */
  async idle(): Promise<void> {
    await Promise.all([
      this.#full?.catch(() => null),
      ...[...this.#inflight.values()].map((p) => p.catch(() => null)),
    ]);
  }

  /** The whole suite's run when it has finished, else undefined. */
  get fullResult(): TestRun | null | undefined {
    return this.#fullDone;
  }

  /** The time limit the whole suite did not finish in, when it was tried within a budget. */
  get fullTooSlowMs(): number | null {
    return this.#fullTooSlow;
  }

  /** Tests that failed on the unpatched tree in any run so far (with the files named for them). */
  knownFailures(): FailedTest[] {
    const out = new Map<string, FailedTest>();
    for (const { run } of this.#runs) {
      for (const [id, o] of run.tests ?? []) {
        if (o !== "failed" || out.get(id)?.files) continue;
        const files = run.files?.get(id);
        out.set(id, files ? { id, files } : { id });
      }
    }
    return [...out.values()];
  }

  /**
   * A whole-suite run answers for single tests only when it named them (per-test results, no limit; not
   * a run that cannot judge single tests, whose output lists at most failures).
   */
  static #usableWhole(r: PristineRun): boolean {
    return (
      r.targets === null &&
      r.run.tests !== null &&
      r.run.exec.limit === null &&
      r.run.perTestUnavailable === undefined
    );
  }

  /**
   * For runners whose ids may lack their file: whether a whole-suite run attributed every test it
   * named, and the targets it named a passing or skipped test of (a reporter that lists only failures
   * says nothing of the rest of a file).
   */
  static #attribution = new WeakMap<PristineRun, { all: boolean; named: Set<string> }>();

  /** Whether a whole-suite run stands in for `target`'s unpatched results. */
  static #standsIn(r: PristineRun, target: string, ownerOf: OwnerOf): boolean {
    if (!PristineTests.#usableWhole(r)) return false;
    if (!ownerOf.idsMayLackFiles) return true;
    let a = PristineTests.#attribution.get(r);
    if (a === undefined) {
      a = { all: true, named: new Set<string>() };
      for (const [id, o] of r.run.tests!) {
        const owner = ownerOf(id, r.run.files?.get(id));
        if (owner === null) a.all = false;
        else if (o !== "failed") a.named.add(owner);
      }
      PristineTests.#attribution.set(r, a);
    }
    return a.all && a.named.has(target);
  }

  /** A run covered a target when it ran it, or ran the file or module a single test belongs to. */
  static #ran(r: PristineRun, target: string, ownerOf: OwnerOf): boolean {
    if (r.targets === null) return PristineTests.#standsIn(r, target, ownerOf);
    if (r.targets.has(target)) return true;
    const owner = ownerOf(target);
    return owner !== null && owner !== target && r.targets.has(owner);
  }

  #covered(target: string, ownerOf: OwnerOf): boolean {
    return this.#runs.some((r) => PristineTests.#ran(r, target, ownerOf));
  }

  /**
   * The unpatched tree's results for exactly `targets`: tests not run yet on it are run now (once, even
   * when several candidates ask at the same time), then the results of every run that covered them are
   * put together, each test id kept only when it belongs to one of the targets. A run given `timeoutMs`
   * that does not finish in it keeps what its output shows of the targets it finished (see
   * `#keepStopped`); the others stay missing, with the time they took at least recorded.
   */
  async forTargets(
    targets: readonly string[],
    ownerOf: OwnerOf,
    signal?: AbortSignal,
    definitions: (target: string) => number = () => 1,
    timeoutMs?: number,
  ): Promise<TestRun | null> {
    const missing = this.missing(targets, ownerOf);
    const waits = targets.flatMap((t) => this.#inflight.get(t) ?? []);
    if (missing.length > 0) {
      const cmd = targetedCommand(this.#config, missing);
      if ("reason" in cmd) throw new Error(`the selected tests cannot be run: ${cmd.reason}`);
      // Worded again for the copy it runs in: the runner reads its tool's version there.
      const opts = (dir: string): RunOpts => {
        const own = targetedCommand(this.#config, missing, toolTreeOf(dir));
        const targeted = "reason" in own ? cmd : own;
        return timeoutMs !== undefined ? { targeted, timeoutMs } : { targeted };
      };
      const p = this.#runOn(opts, signal).then((run) => {
        if (!run) return;
        if (timeoutMs !== undefined && run.exec.limit === "time") {
          this.#keepStopped(missing, run, ownerOf, cmd.sequential === true, definitions);
          return;
        }
        this.#runs.push({ targets: new Set(missing), run });
        this.times.record(missing, run, ownerOf, definitions);
        this.#noteNetwork(run, missing, ownerOf);
      });
      for (const t of missing) this.#inflight.set(t, p);
      try {
        await p;
      } finally {
        for (const t of missing) this.#inflight.delete(t);
      }
    }
    await Promise.all(waits);
    return this.view(targets, ownerOf);
  }

  /**
   * An unpatched run stopped at its time limit: the targets it finished (a runner that runs them one
   * after the other) keep their results and their share of the run's time, as a run of their own; the
   * target it was in records the time it took at least, so that no later candidate expects it to be
   * shorter. Nothing of a runner that runs targets side by side is known finished.
   */
  #keepStopped(
    targets: readonly string[],
    run: TestRun,
    ownerOf: OwnerOf,
    sequential: boolean,
    definitions: (target: string) => number,
  ): void {
    const split = splitStopped(run, targets, ownerOf, sequential, definitions, this.times.scale);
    if (split.finished.length > 0) {
      this.#noteNetwork(run, split.finished, ownerOf, false);
      const keep = new Set(split.finished.flatMap((t) => split.ids.get(t) ?? []));
      const ms = split.finished.reduce((a, t) => a + (split.shares.get(t) ?? 0), 0);
      const part = partOfRun(run, keep, ms);
      this.#runs.push({ targets: new Set(split.finished), run: part });
      this.times.record(split.finished, part, ownerOf, definitions);
    }
    if (split.partial !== null) {
      this.times.recordStopped(split.partial, split.shares.get(split.partial) ?? 0);
      this.#stoppedIn.add(split.partial);
    } else if (sequential) this.times.recordStopped(targets[0]!, run.exec.durationMs);
    else for (const [t, ms] of split.shares) this.times.recordStopped(t, ms);
  }

  /** Records which of `targets` failed on this unpatched run only for want of the network. */
  #noteNetwork(run: TestRun, targets: readonly string[], ownerOf: OwnerOf, alone?: boolean): void {
    for (const [t, line] of networkBound(run, targets, ownerOf, alone)) this.network.set(t, line);
  }

  /** The results for `targets` from the runs made so far (null when none covered them). */
  view(targets: readonly string[], ownerOf: OwnerOf): TestRun | null {
    const want = new Set(targets);
    // Targeted runs first: they ran exactly these tests; the whole suite only for what they lack.
    const targeted = this.#runs.filter(
      (r) => r.targets !== null && targets.some((t) => PristineTests.#ran(r, t, ownerOf)),
    );
    const coveredByTargeted = targets.every((t) => targeted.some((r) => PristineTests.#ran(r, t, ownerOf)));
    const runs = coveredByTargeted
      ? targeted
      : [
          ...targeted,
          ...this.#runs.filter((r) => targets.some((t) => PristineTests.#standsIn(r, t, ownerOf))),
        ];
    if (runs.length === 0) return null;
    const perTest = runs.every((r) => r.run.tests !== null);
    const tests = perTest ? new Map<string, "passed" | "failed" | "skipped">() : null;
    const files = new Map<string, string[]>();
    let limit: ExecResult["limit"] = null;
    let exitCode = 0;
    let durationMs = 0;
    for (const r of runs) {
      const { targets: covered, run } = r;
      limit ??= run.exec.limit;
      durationMs += run.exec.durationMs;
      const exact = covered !== null && [...covered].every((t) => want.has(t));
      if (exact || !perTest) {
        if (run.exec.exitCode !== 0) exitCode = run.exec.exitCode ?? 1;
      }
      if (!tests || !run.tests) continue;
      for (const [id, o] of run.tests) {
        const named = run.files?.get(id);
        const owner = ownerOf(id, named);
        // An id that names no target (a doctest a module adds, a test a helper generates) is kept only
        // from a targeted run of nothing but these tests: it ran for them. From a run that also ran
        // others, or that ran the whole file or module of a single test asked for now, it may belong to
        // what is not asked for, and the patched run of these tests would not run it: kept, it would
        // read as a test that "no longer runs". A single test asked for by its id is kept from the run
        // of its whole file or module.
        const wanted =
          want.has(id) ||
          (owner === null
            ? exact
            : want.has(owner) && (covered !== null || PristineTests.#standsIn(r, owner, ownerOf)));
        if (!wanted) continue;
        const prev = tests.get(id);
        if (prev !== "failed") tests.set(id, o === "failed" || prev === undefined ? o : prev);
        if (o === "failed" && exitCode === 0) exitCode = 1;
        if (named && !files.has(id)) files.set(id, named);
      }
    }
    const first = runs[0]!.run;
    const count = (o: string) => (tests ? [...tests.values()].filter((v) => v === o).length : 0);
    const unavailable = runs.find((r) => r.run.perTestUnavailable)?.run.perTestUnavailable;
    return {
      command: runs.map((r) => r.run.command).join(" + "),
      exec: { ...first.exec, exitCode, limit, durationMs, stdout: "", stderr: "" },
      tests,
      ...(files.size > 0 ? { files } : {}),
      parser: first.parser,
      passed: count("passed"),
      failed: count("failed"),
      skipped: count("skipped"),
      notes: runs.flatMap((r) => r.run.notes ?? []),
      ...(unavailable ? { perTestUnavailable: unavailable } : {}),
      ...mergeIntegrity(runs.map((r) => r.run)),
    };
  }
}
