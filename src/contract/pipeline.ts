import type { Issue } from "../agents/issue-text.ts";
import type { MaintainerInput } from "../core/maintainer-input.ts";
import type { RepoConfig } from "../config/index.ts";
import type { PatchApplyResult, PatchEngine } from "../agents/patch-agent.ts";
import type { LocationRequest } from "../agents/proxy-agent.ts";
import type { SearchOutcome } from "../agents/search-agent.ts";
import type { ResolvedLocationLike, SearchPort } from "../agents/search-port.ts";
import type { ArtifactRecorder } from "../model/recorder.ts";
import type { RunSandbox } from "../sandbox/index.ts";
import type { ModelPort } from "../model/types.ts";
import type { StageUsage, UsageMeter } from "../model/usage.ts";
import type { Progress } from "./progress.ts";
import type {
  FixResult,
  RegressionTestReport,
  ReproducerReport,
  ReviewReport,
  ValidationReport,
} from "./result.ts";

export type { FixResult } from "./result.ts";

export interface FixOptions {
  /** The user's checkout; never modified. */
  repo: string;
  issue: Issue;
  out: string;
  testCmd?: string;
  roundLimit?: number;
  patchAttempts?: number;
  /** `/retry <guidance>` or a reviewer's advice from an earlier run. */
  guidance?: string;
  /**
   * What the maintainer said besides the issue (their words, a review with its points, CI evidence, the
   * repository's instructions), rendered into the search, patch and review prompts as data. Plain
   * `guidance` is its text when it has none.
   */
  maintainer?: MaintainerInput;
  /** Keep the private work tree after the run (its path is in the report). */
  keepWorkspace?: boolean;
  /** Aborts the run (Ctrl-C, job cancellation): it ends as "error" with the report written. */
  signal?: AbortSignal;
  /** Things to tell the user in the report that were decided before the run started. */
  notes?: string[];
}

/** The code-facing tools of one private work tree: search APIs + locate, and the patch engine. */
export interface CodeTools<
  L extends ResolvedLocationLike = ResolvedLocationLike,
  R extends PatchApplyResult = PatchApplyResult,
> {
  search: SearchPort<L>;
  engine: PatchEngine<R> & { write?: (result: R) => Promise<void> };
  /** Index figures for the report (files, classes, ...). */
  stats: Record<string, unknown>;
  notes: string[];
}

/** A patch worth considering, with whatever evidence later stages gathered about it. */
export interface PatchCandidate {
  id: string;
  /** Which strategy and attempt produced it, e.g. "linear attempt 2". */
  source: string;
  answer: string;
  result: PatchApplyResult;
  applicable: boolean;
  review?: ReviewOutcome;
  validation?: ValidationOutcome;
  /** Whether the patch changes code once comments and whitespace are set aside (set for the chosen one). */
  codeChange?: CodeChange;
  /** What the patch scan found in the code the patch adds (set for every applicable candidate). */
  scan?: PatchScanFacts;
}

/** The patch scan's word on a candidate (src/scan), as the evidence and the reports carry it. */
export interface PatchScanFacts {
  /** Each finding in words with file:line ("the patch reads the environment: `…` at calc.py:3"). */
  findings: string[];
  /** Literals the patch adds that the reproducer or a failing test also holds ("`42` at calc.py:3"). */
  shared: string[];
  /** Files that could not be scanned, and why. */
  unscanned: string[];
}

/** Whether a patch changes code, as the result's evidence says it. */
export interface CodeChange {
  /** true: some file's code changes; false: only comments and whitespace change; null: cannot be told. */
  changed: boolean | null;
  /** In words, for the report: which files change code, or why it could not be told. */
  detail: string;
}

export interface ReproduceOutcome {
  reproduced: boolean;
  /** Output to show the search agent as a lead (stderr of the reproducer). */
  lead: string | null;
  summary: string;
  /** The reproducer as the result reports it (its `after` is filled from the chosen patch's review). */
  data?: ReproducerReport;
}

/** What the review stage found for one candidate, before it is chosen or not. */
export type ReviewDetail = Omit<ReviewReport, "approved" | "summary"> & {
  /** The reproducer the verdict was given with: its script, its run before, its run after this patch. */
  reproducer: Pick<ReproducerReport, "script" | "before" | "after" | "evidence"> | null;
};

export interface ReviewOutcome {
  approved: boolean;
  summary: string;
  /** The verdict, the rounds and the reproducer behind it; absent when the reviewer said nothing usable. */
  data?: ReviewDetail;
  /** A patch rewritten during the review loop, replacing the reviewed one. */
  revised?: PatchCandidate;
}

export interface ValidationOutcome {
  /** No test that passed before the patch fails after it (a candidate may be chosen). */
  passed: boolean;
  /**
   * The tests show the patch fixing something: a test that failed before passes after, or a suite that
   * failed before passes after. A suite green before and after shows no regression, not a fix.
   */
  showsFix: boolean;
  regressions: string[];
  summary: string;
  /**
   * The test runs behind the verdict (`passed`, `shows_fix`, `regressions` and `summary` come from the
   * fields above); absent when the candidate was checked some other way (the tree search's own checks).
   */
  data?: Omit<ValidationReport, "passed" | "shows_fix">;
}

/** Everything a stage may use. Mutable run state lives in `state`. */
export interface FixContext {
  options: FixOptions;
  model: ModelPort;
  meter: UsageMeter;
  recorder: ArtifactRecorder;
  progress: Progress;
  /** The private work tree. */
  workdir: string;
  code: CodeTools;
  /** The repository's configuration, read once by the caller (`FixDeps.config`). */
  config: RepoConfig;
  /** The run's one sandbox, made once by the caller (`FixDeps.sandbox`). */
  sandbox: RunSandbox;
  state: FixState;
  /**
   * What one stage prepares for the others of the same job: the set-up unpatched tree and its test
   * results (computed once, shared by every candidate of both strategies).
   */
  job?: {
    /**
     * The validation stage's prepared trees (a `TreeStates` of `validate/`; opaque here so that the
     * contract depends on no stage: a user checks it with `instanceof`).
     */
    trees?: unknown;
  };
}

export interface FixState {
  reproduction: ReproduceOutcome | null;
  search: SearchOutcome | null;
  candidates: PatchCandidate[];
  chosen: PatchCandidate | null;
  chosenWhy: string;
  locationsText: string | null;
  requested: LocationRequest[];
  /** The runtimes' versions as the sandbox runs them, one line for the prompts (absent: not read). */
  runtime?: string;
  /** Notes a stage leaves for the report (e.g. why a strategy could not run as asked). */
  notes?: string[];
  /** Extra report sections a stage writes (e.g. the tree search's outline), shown after the patch. */
  sections?: { title: string; markdown: string }[];
  /** The regression test for the chosen patch: the test file's diff (added to the patch) and its report. */
  regression?: RegressionOutcome | null;
}

/** What the regression-test stage did for the chosen patch. */
export interface RegressionOutcome {
  /** The new test file as a unified diff (appended to the chosen patch), or null when it was left out. */
  diff: string | null;
  data: RegressionTestReport;
}

/** A way of producing patch candidates from the search outcome (linear writer, tree search, ...). */
export interface PatchStrategy {
  readonly name: string;
  run(ctx: FixContext): Promise<PatchCandidate[]>;
}

/** Optional stages that plug into the orchestrator; each is skipped when absent. */
export interface FixHooks {
  reproduce?: (ctx: FixContext) => Promise<ReproduceOutcome | null>;
  /** Null when there is nothing to review with (no reproducer): the candidate stays unreviewed. */
  review?: (ctx: FixContext, candidate: PatchCandidate) => Promise<ReviewOutcome | null>;
  /** Null when the repository has no test command. */
  validate?: (ctx: FixContext, candidate: PatchCandidate) => Promise<ValidationOutcome | null>;
  /** Picks among candidates; the default prefers approved + regression-free, then regression-free, then status. */
  select?: (ctx: FixContext, candidates: PatchCandidate[]) => { chosen: PatchCandidate | null; why: string };
  /**
   * Writes a regression test for the chosen patch in the repository's framework, checked in the sandbox;
   * null when the stage does not run (turned off, no sandbox).
   */
  regress?: (ctx: FixContext, chosen: PatchCandidate) => Promise<RegressionOutcome | null>;
}

export interface FixDeps {
  model: ModelPort;
  /**
   * The repository's configuration (`.github/auto-fix.yml` + detection, with the caller's overrides such
   * as `--test-cmd`), read once by the caller: a file that does not parse is the caller's to report.
   */
  config: RepoConfig;
  /** The sandbox every stage and strategy runs the repository's code in, made once by the caller. */
  sandbox: RunSandbox;
  /** The model's name as configured (`AUTO_FIX_MODEL`), for the result; null when unknown. */
  modelName?: string;
  meter: UsageMeter;
  recorder: ArtifactRecorder;
  /** Indexes the work tree and builds its search port and patch engine. */
  openCode: (workdir: string) => Promise<CodeTools>;
  progress?: Progress;
  strategy?: PatchStrategy;
  hooks?: FixHooks;
  /**
   * Hands the caller a function that writes the report of the run as it stands, at once and
   * synchronously (for a process that must quit now); it does nothing once the run has written its own.
   */
  onHardStop?: (writeNow: () => void) => void;
}

export interface StageTiming {
  stage: string;
  ms: number;
  ok: boolean;
}

/** What the report is written from. */
export interface FixRunRecord {
  result: FixResult;
  issue: Issue;
  options: FixOptions;
  state: FixState;
  timings: StageTiming[];
  /** Time spent inside search API calls and patch application (not the model). */
  toolMs: { search: number; apply: number };
  usageByStage: Record<string, StageUsage>;
  modelCalls: number;
  indexStats: Record<string, unknown> | null;
  notes: string[];
  error: string | null;
  workdir: string | null;
  artifacts: string[];
}
