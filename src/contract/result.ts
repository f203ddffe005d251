import { z } from "zod";
import { judgeEvidence, loadingTests, reproducerShowsFix } from "./fix-evidence.ts";
import { ReproducerEvidenceSchema } from "./reproducer-evidence.ts";

/**
 * The result of one run: what `auto-fix fix --json` prints, what `result.json` under `--out` holds, and
 * what the GitHub App reads back from the pipeline's child process. One schema for all three: the
 * pipeline builds a value of this type, the app parses the child's output with it and renders the pull
 * request and the status comment from its typed fields only.
 *
 * The command-line contract fixes the names `status`, `patch`, `reproduced`, `review`, `validation`,
 * `usage` (`prompt_tokens`, `completion_tokens`, `cost_usd`), `out`, `reason`, `locations`, `selection`,
 * `seconds`, `validation.shows_fix` and the reviewer's keys (`patch-correct`, ...): fields are added,
 * never renamed. Every object is strict: a key this build does not know (an older or newer pipeline, a
 * renamed field, a stray `__proto__`) is refused rather than silently dropped.
 */

const nonNegInt = z.number().int().nonnegative();
const line = z.number().int().positive();

export const RESULT_STATUSES = ["fixed", "patched", "no-patch", "error"] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** One run of a command in the sandbox (the reproducer before or after a patch). */
export const ExecReportSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  /** The signal that ended it, e.g. `SIGKILL`. */
  signal: z.string().nullable(),
  /** The sandbox limit it hit (`time`, `memory`, ...), or null. */
  limit: z.enum(["time", "memory", "processes", "output", "disk", "files"]).nullable(),
  stdout: z.string(),
  stderr: z.string(),
  /** Output was cut (by the sandbox's output limit, or shortened for the result). */
  truncated: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type ExecReport = z.infer<typeof ExecReportSchema>;

/** The reproducer: the script, how it is run, its run before any patch and after the chosen one. */
export const ReproducerReportSchema = z.strictObject({
  status: z.enum(["reproduced", "not-reproduced", "no-example", "error"]),
  /** One sentence on how the stage went. */
  summary: z.string(),
  /** Where the script is saved, relative to the repository root (e.g. `reproducer.py`). */
  path: z.string().min(1),
  /** How it is run from the repository root (e.g. `python reproducer.py`). */
  command: z.string().min(1),
  /** The script (the version the reviewer judged the chosen patch with), or null when none was written. */
  script: z.string().nullable(),
  /** Scripts written before one reproduced the issue (or the stage gave up). */
  attempts: nonNegInt,
  /** Its run on the unpatched code. */
  before: ExecReportSchema.nullable(),
  /** Its run with the chosen patch applied (null when no patch was run against it). */
  after: ExecReportSchema.nullable(),
  /**
   * How those runs ended as the runtime reported them, whether they went through the patched lines, and
   * whether the reproducer can therefore back "fixed" (absent: no patch was run against it).
   */
  evidence: ReproducerEvidenceSchema.optional(),
});
export type ReproducerReport = z.infer<typeof ReproducerReportSchema>;

/**
 * The regression test the run added to the patch (a new file in the repository's own test framework),
 * or why it left none: checked in the sandbox to fail on the unfixed tree and pass on the fixed one.
 */
export const RegressionTestReportSchema = z.strictObject({
  status: z.enum(["added", "left-out", "off"]),
  /** One sentence for people: what was added, or why nothing was. */
  summary: z.string(),
  /** Where the test file is (relative to the repository root); null when none was planned. */
  path: z.string().nullable(),
  /** The command that runs it alone from the repository root; null when none was planned. */
  command: z.string().nullable(),
  /** The test runner it is written for, as people name it (its conventions' `label`); null when none. */
  framework: z.string().nullable(),
  /** Its run on the unfixed tree (it must fail) and on the fixed one (it must pass). */
  before: ExecReportSchema.nullable(),
  after: ExecReportSchema.nullable(),
  /** How the repository's whole suite ran with it in place (every other test as without it), when checked. */
  suite: z.string().optional(),
  /** The repository's own tests that fail without the fix and pass with it, when they stand in for a new one. */
  covered_by: z.array(z.string()).optional(),
});
export type RegressionTestReport = z.infer<typeof RegressionTestReportSchema>;

const yesNo = z.enum(["yes", "no"]).nullable();

/** One round of the review loop. */
export const ReviewRoundReportSchema = z.strictObject({
  round: z.number().int().positive(),
  /** The candidate reviewed in this round. */
  patchId: z.string(),
  /** Which version of the reproducer was used (1 = the original). */
  scriptVersion: z.number().int().positive(),
  action: z.enum([
    "accepted",
    "validation-failed",
    "rewrite-patch",
    "rewrite-test",
    "rewrite-both",
    "duplicate",
    "rejected",
    "stopped",
  ]),
  note: z.string(),
});
export type ReviewRoundReport = z.infer<typeof ReviewRoundReportSchema>;

/**
 * The reviewer's verdict on the chosen patch. The reviewer's keys are null when no verdict was given
 * (the stage failed, the reviewer never answered usably); `summary` then says why.
 */
export const ReviewReportSchema = z.strictObject({
  /** The reviewer accepted patch and reproducer (and validation, when it ran, found no regression). */
  approved: z.boolean(),
  /** One sentence on how the review loop ended. */
  summary: z.string(),
  /** Review rounds run for this candidate's loop. */
  rounds: nonNegInt,
  "patch-correct": yesNo,
  "test-correct": yesNo,
  "patch-analysis": z.string().nullable(),
  "patch-advice": z.string().nullable(),
  "test-analysis": z.string().nullable(),
  "test-advice": z.string().nullable(),
  /** What each round did (rewrite the patch, the test, accept, ...). */
  history: z.array(ReviewRoundReportSchema),
});
export type ReviewReport = z.infer<typeof ReviewReportSchema>;

/** Figures of one run of the repository's tests. */
export const TestRunReportSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  limit: z.string().nullable(),
  passed: nonNegInt,
  failed: nonNegInt,
  skipped: nonNegInt,
  /** Which output format the counts were read from (a runner's report or output format, or `exit-code`). */
  parser: z.string(),
  durationMs: z.number().nonnegative(),
  /** What was not read of the output or the reports (past their caps, refused); empty when all was. */
  notes: z.array(z.string()),
});
export type TestRunReport = z.infer<typeof TestRunReportSchema>;

/**
 * passed / no-regressions: tests ran and were counted on both trees and nothing regressed; no-tests: no
 * test command, or no test relates to the change; could-not-run: the repository has tests but none could
 * be counted (nothing collected, every module failed to load, zero tests, only an exit code); tampered:
 * the runner's report cannot be trusted (its canaries were lost or misreported); error: the run could not
 * be judged at all.
 */
export const VALIDATION_STATUSES = [
  "passed",
  "no-regressions",
  "regressions",
  "no-tests",
  "could-not-run",
  "tampered",
  "error",
] as const;
export type ValidationReportStatus = (typeof VALIDATION_STATUSES)[number];

/** Statuses whose tests ran and were counted on both trees with no regression: the only "pass". */
export const COUNTED_CLEAN: readonly ValidationReportStatus[] = ["passed", "no-regressions"];

/** The repository's tests before and after the chosen patch. */
/** Which tests a validation ran and why, and what it did not run (validate/compare.ts `TestsRan`). */
export const TestsRanSchema = z.strictObject({
  kind: z.enum(["targeted", "targeted+rest", "full"]),
  runner: z.string().nullable(),
  why: z.string(),
  /** In the order they ran (best able to show a regression first). */
  selected: z.array(
    z.strictObject({
      target: z.string(),
      reasons: z.array(z.string()),
      detail: z.string().optional(),
      /**
       * ran; over-budget, after-regression, unpatched-too-slow (timed out before the patch) or
       * needs-network (failed before the patch for want of the network): not judged, and why (absent: ran).
       */
      run: z
        .enum(["ran", "over-budget", "after-regression", "unpatched-too-slow", "needs-network"])
        .optional(),
      /** Why it did not run, when more can be said than `run` (e.g. its batch was stopped at the budget). */
      reason: z.string().optional(),
      /** over-budget because its batch was stopped at the budget: after how long (ms). */
      stoppedAfterMs: z.number().nonnegative().optional(),
      /** How long the same tests (its batch) took on the unpatched tree (ms), when known. */
      unpatchedMs: z.number().nonnegative().optional(),
    }),
  ),
  total: z.number().nullable(),
  command: z.string().nullable(),
  notRun: z.string().nullable(),
  pristineRuns: z.number(),
  /** The budget for the related tests in ms (null: none applied, `validation: full`). */
  relatedBudgetMs: z.number().nonnegative().nullable().optional(),
  /** Wall time of the candidate's validation in ms. */
  durationMs: z.number().nonnegative().optional(),
});

export const ValidationReportSchema = z.strictObject({
  /** No test that passed before the patch fails after it. */
  passed: z.boolean(),
  /** A test (or the suite) that failed before the patch passes after it. */
  shows_fix: z.boolean(),
  status: z.enum(VALIDATION_STATUSES),
  /** The test command that ran, or null when none did. */
  command: z.string().nullable(),
  /** Tests that passed before the patch and fail (or no longer run) after it. */
  regressions: z.array(z.string()),
  /** Tests that failed before the patch and pass after it. */
  fixed: z.array(z.string()),
  /** The output named individual tests (without it, none can be named). */
  perTest: z.boolean(),
  before: TestRunReportSchema.nullable(),
  after: TestRunReportSchema.nullable(),
  summary: z.string(),
  /** Which tests ran and why, and which did not (absent when the whole suite ran as before targeting). */
  tests: TestsRanSchema.optional(),
  /** Tests that failed before the patch and still fail after it. */
  stillFailing: z.array(z.string()).optional(),
  /** Of those, the ones that relate to the change: the patch did not make them pass. */
  stillFailingRelated: z.array(z.string()).optional(),
  /** Tests that ran (passed or failed) and were counted on each tree; absent when they were not counted. */
  counted: z.strictObject({ before: nonNegInt, after: nonNegInt }).optional(),
  /** Tests that ran and relate to the change (selected for more than having failed before). */
  related: nonNegInt.optional(),
  /** The runner checks of the run after the patch (planted tests): intact, tampered or unverified, and why. */
  integrity: z
    .strictObject({ state: z.enum(["intact", "tampered", "unverified"]), detail: z.string() })
    .optional(),
});
export type ValidationReport = z.infer<typeof ValidationReportSchema>;

/** A bug location the search resolved to real code, with the behaviour the model said it should have. */
export const LocationReportSchema = z.strictObject({
  file: z.string().min(1),
  class: z.string().nullable(),
  method: z.string().nullable(),
  start: line,
  end: line,
  intendedBehavior: z.string(),
});
export type LocationReport = z.infer<typeof LocationReportSchema>;

export const UsageReportSchema = z.strictObject({
  prompt_tokens: nonNegInt,
  completion_tokens: nonNegInt,
  /** null: the model's price is unknown (shown as "unknown", never as $0). */
  cost_usd: z.number().nonnegative().nullable(),
});
export type UsageReport = z.infer<typeof UsageReportSchema>;

export const POINT_STATUSES = ["addressed", "partly", "not-addressed"] as const;
/** Most characters of the model's answer to one review comment (it is posted in the comment's thread). */
export const MAX_POINT_REPLY_CHARS = 1500;

/** How the chosen patch answers one review comment, as the model judged it. */
export const PointReportSchema = z.strictObject({
  /** The review comment's id. */
  id: nonNegInt,
  status: z.enum(POINT_STATUSES),
  /** The answer for the comment's thread (the model's words: data, capped). */
  reply: z.string().max(MAX_POINT_REPLY_CHARS),
});
export type PointReport = z.infer<typeof PointReportSchema>;

/**
 * The maintainer input a run used (names and counts, never the text itself: that is in the prompts'
 * artifacts), and how the chosen patch answers each comment of the review that started it.
 */
export const MaintainerReportSchema = z.strictObject({
  /** The repository's instructions file the prompts were given, or null when there was none. */
  instructions: z
    .strictObject({
      /** `.github/auto-fix.md` or `AGENTS.md`. */
      source: z.string().max(200),
      /** The branch or commit it was read from ("" when read from the checkout). */
      ref: z.string().max(200),
      /** The file's size before the cap. */
      bytes: nonNegInt,
      /** Only the first part of the file was given to the prompts. */
      truncated: z.boolean(),
    })
    .nullable(),
  /** The maintainer's own words (`/retry <guidance>`, `/auto-fix <guidance>`) were given. */
  guidance: z.boolean(),
  /** The review the run answers: its id and how many line comments it had. */
  review: z.strictObject({ id: nonNegInt, points: z.number().int().nonnegative().max(50) }).nullable(),
  /** The failing checks whose evidence the run was given, by name. */
  checks: z.array(z.string().max(200)).max(10),
  /** Per review comment: how the chosen patch answers it (empty without a patch or an answer). */
  points: z.array(PointReportSchema).max(50),
});
export type MaintainerReport = z.infer<typeof MaintainerReportSchema>;

/** What a "fixed" rests on, or why a patch that applies is not "fixed" (contract/fix-evidence.ts). */
export const EvidenceReportSchema = z.strictObject({
  /** The patch changes code once comments and whitespace are set aside (tree-sitter syntax trees compared); null: could not be told. */
  code_changed: z.boolean().nullable(),
  /** Which files change code, or why it could not be told. */
  code: z.string(),
  /** What "fixed" rests on; null when the run is not "fixed". */
  rests_on: z.string().nullable(),
  /** Why a patch that applies is not "fixed"; null when it is. */
  not_fixed: z.string().nullable(),
  /** What the patch scan found in the code the patch adds, in words with file:line (absent: not scanned). */
  patch_findings: z.array(z.string()).optional(),
  /** Literals the patch adds that the reproducer or a failing test also holds (possible special-casing). */
  shared_literals: z.array(z.string()).optional(),
});
export type EvidenceReport = z.infer<typeof EvidenceReportSchema>;

/** The pipeline's stages, as `stages_tried` names them. */
export const PIPELINE_STAGES = [
  "index",
  "reproduce",
  "search",
  "patch",
  "regress",
  "review",
  "validate",
] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

const FixResultObject = z.strictObject({
  status: z.enum(RESULT_STATUSES),
  /** The unified diff of the chosen patch; null unless the status is fixed or patched. */
  patch: z.string().nullable(),
  /** Whether a reproducer failed before the patch (null when the reproduce stage did not run). */
  reproduced: z.boolean().nullable(),
  review: ReviewReportSchema.nullable(),
  validation: ValidationReportSchema.nullable(),
  reproducer: ReproducerReportSchema.nullable(),
  usage: UsageReportSchema,
  /** The folder holding patch.diff, report.md, result.json and the artifacts. */
  out: z.string(),
  /** One sentence on why the run ended as it did. */
  reason: z.string(),
  /** What stopped the run when the status is "error"; null otherwise. */
  error: z.string().nullable(),
  /** The wall-clock limit the run hit (e.g. `30 minutes`), when it was stopped for it. */
  timed_out_after: z.string().nullable(),
  /** One paragraph on what the run found and did, for people (the pull request's summary). */
  summary: z.string(),
  /** The model the run used, as configured (`AUTO_FIX_MODEL`); null when unknown. */
  model: z.string().nullable(),
  locations: z.array(LocationReportSchema),
  /** Why the chosen patch was chosen (null without candidates). */
  selection: z.string().nullable(),
  seconds: z.number().nonnegative(),
  /** What the maintainer told the run besides the issue; null when they told it nothing. */
  maintainer: MaintainerReportSchema.nullable(),
  /** What the status rests on (absent: no patch applied, or a result from before evidence was recorded). */
  evidence: EvidenceReportSchema.nullable().optional(),
  /** The regression test added to the patch, or why none was (absent: the stage did not run). */
  regression_test: RegressionTestReportSchema.nullable().optional(),
  /** The pipeline's stages that started, in order (absent: a result from before this was recorded). */
  stages_tried: z.array(z.enum(PIPELINE_STAGES)).optional(),
});

/** The rules between fields that a result must keep (a child claiming more than it shows is refused). */
export const FixResultSchema = FixResultObject.superRefine((r, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  const patched = r.status === "fixed" || r.status === "patched";
  if (patched && !r.patch?.trim()) issue("patch", `a "${r.status}" result needs the patch`);
  if (!patched && r.patch !== null) issue("patch", `a "${r.status}" result carries no patch`);
  if (r.status === "fixed") {
    const v = r.validation;
    const verdict = judgeEvidence({
      codeChanged: r.evidence?.code_changed,
      reviewApproved: r.review ? r.review.approved : undefined,
      reproducerFixed: reproducerShowsFix(r.reproducer?.before, r.reproducer?.after),
      reproducerBacks: r.reproducer?.evidence,
      loading: loadingTests(v?.tests),
      validationStatus: v?.status,
      validationSummary: v?.summary,
      testsShowFix: v?.shows_fix === true,
      testsFixed: v?.shows_fix ? v.fixed : [],
      stillFailingRelated: v?.stillFailingRelated ?? [],
      related: v?.related,
      patchFindings: r.evidence?.patch_findings,
    });
    if (!verdict.fixed) issue("status", `"fixed" needs evidence that ran: ${verdict.notFixed}`);
  }
  if (r.status === "error" && !r.error?.trim()) issue("error", 'an "error" result says what went wrong');
  if (r.status !== "error" && r.error !== null) issue("error", `a "${r.status}" result has no error`);
  if (r.timed_out_after !== null && r.status !== "error")
    issue("timed_out_after", 'only an "error" times out');
  if (r.reproducer && r.reproduced === null) issue("reproduced", "is set when there is a reproducer");
  if (r.reproducer && r.reproduced !== (r.reproducer.status === "reproduced"))
    issue("reproduced", `disagrees with the reproducer's status "${r.reproducer.status}"`);
  const m = r.maintainer;
  if (m && m.points.length > 0) {
    if (!r.patch) issue("maintainer", "answers review comments without a patch");
    if (!m.review) issue("maintainer", "answers review comments without a review");
    else if (m.points.length > m.review.points)
      issue("maintainer", `answers ${m.points.length} review comments of ${m.review.points}`);
    if (new Set(m.points.map((p) => p.id)).size !== m.points.length)
      issue("maintainer", "answers a review comment twice");
  }
  r.locations.forEach((l, i) => {
    if (l.end < l.start)
      ctx.addIssue({ code: "custom", path: ["locations", i, "end"], message: "ends before it starts" });
  });
});
export type FixResult = z.infer<typeof FixResultSchema>;

/** The zod issues of a refused result, in one line a person can act on: missing fields first, by name. */
function describeIssues(error: z.ZodError, max = 4): string {
  const where = (path: readonly PropertyKey[]) =>
    path.length > 0 ? path.map(String).join(".") : "(the result)";
  const missing = error.issues
    .filter((i) => i.code === "invalid_type" && /received undefined$/.test(i.message))
    .map((i) => where(i.path));
  const other = error.issues.filter(
    (i) => !(i.code === "invalid_type" && /received undefined$/.test(i.message)),
  );
  const parts: string[] = [];
  if (missing.length > 0) {
    const named = missing.slice(0, 15).join(", ");
    parts.push(`missing ${named}${missing.length > 15 ? ` and ${missing.length - 15} more` : ""}`);
  }
  for (const i of other.slice(0, max)) parts.push(`${where(i.path)}: ${i.message}`);
  const more = other.length - max;
  return parts.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

export type ParsedResult = { ok: true; result: FixResult } | { ok: false; message: string };

/** Checks a value (parsed JSON) against the contract; a refusal names the fields at fault. */
export function checkFixResult(value: unknown): ParsedResult {
  const parsed = FixResultSchema.safeParse(value);
  if (parsed.success) return { ok: true, result: parsed.data };
  return { ok: false, message: `the result does not match the contract: ${describeIssues(parsed.error)}` };
}

/** Reads a result from JSON text (a child's stdout, a `result.json`). */
export function parseFixResult(text: string): ParsedResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `the result is not JSON: ${(err as Error).message}` };
  }
  return checkFixResult(value);
}

/**
 * The result of a run that ended before the pipeline could say anything (its process died, timed out or
 * printed no valid result): status "error", nothing found, nothing spent that is known.
 */
export function failedResult(opts: {
  out: string;
  reason: string;
  error: string;
  timedOutAfter?: string;
  model?: string | null;
  seconds?: number;
}): FixResult {
  return FixResultSchema.parse({
    status: "error",
    patch: null,
    reproduced: null,
    review: null,
    validation: null,
    reproducer: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
    out: opts.out,
    reason: opts.reason,
    error: opts.error,
    timed_out_after: opts.timedOutAfter ?? null,
    summary: `The run failed before it finished: ${opts.reason}.`,
    model: opts.model ?? null,
    locations: [],
    selection: null,
    seconds: opts.seconds ?? 0,
    maintainer: null,
  });
}
