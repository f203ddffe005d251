import type { RepoConfig } from "../config/index.ts";
import type { SandboxPort } from "../sandbox/index.ts";
import type { OwnerOf, PristineTests } from "./baseline.ts";
import type { ValidationResult } from "./compare.ts";
import type { TestRun } from "./run-tests.ts";
import type { RankedTest } from "./targets/rank.ts";

/** The tests may take this many times as long after the patch as before it, plus the grace. */
export const SLOWDOWN_FACTOR = 4;
/** Time a batch of tests gets beyond SLOWDOWN_FACTOR × its unpatched time (start-up noise, load). */
export const SLOWDOWN_GRACE_MS = 10_000;

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

export interface Batch {
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

export const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The sum of the unpatched times of `targets`, when each is known. */
export function unpatchedTime(store: PristineTests, targets: readonly string[]): number | null {
  const m = targets.map((t) => store.times.measured(t));
  return m.every((x) => x !== undefined) ? m.reduce<number>((a, x) => a + (x ?? 0), 0) : null;
}
