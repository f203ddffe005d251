/**
 * Results for tests whose pipeline is a stand-in (the app's tests, benchmarks): a complete result of the
 * contract with neutral values for every field a test does not care about, checked by the contract's
 * own schema (a stand-in result that breaks the contract fails the test that builds it).
 */
import {
  type ExecReport,
  type FixResult,
  FixResultSchema,
  type MaintainerReport,
  type ReproducerReport,
  type ReviewReport,
} from "../../src/contract/result.ts";

export type FakeResultFields = Partial<Omit<FixResult, "review" | "reproducer" | "maintainer">> & {
  review?: Partial<ReviewReport> | null;
  maintainer?: Partial<MaintainerReport> | null;
  reproducer?:
    | (Partial<Omit<ReproducerReport, "before" | "after">> & {
        before?: Partial<ExecReport> | null;
        after?: Partial<ExecReport> | null;
      })
    | null;
};

export function fakeExec(fields: Partial<ExecReport> = {}): ExecReport {
  return {
    exitCode: 0,
    signal: null,
    limit: null,
    stdout: "",
    stderr: "",
    truncated: false,
    durationMs: 10,
    ...fields,
  };
}

export function fakeReview(fields: Partial<ReviewReport> = {}): ReviewReport {
  return {
    approved: fields["patch-correct"] === "yes" && fields["test-correct"] === "yes",
    summary: "reviewed",
    rounds: 1,
    "patch-correct": null,
    "test-correct": null,
    "patch-analysis": null,
    "patch-advice": null,
    "test-analysis": null,
    "test-advice": null,
    history: [],
    ...fields,
  };
}

/** The maintainer input a run used: none of each kind unless given. */
export function fakeMaintainer(fields: Partial<MaintainerReport> = {}): MaintainerReport {
  return { instructions: null, guidance: false, review: null, checks: [], points: [], ...fields };
}

/** A result with these fields; the rest neutral (nothing found, nothing spent). */
export function fakeResult(fields: FakeResultFields = {}): FixResult {
  const { review, maintainer, ...rest } = fields;
  // A "fixed" stand-in needs what the contract asks of one: evidence that ran. Unless the test says
  // otherwise, a reviewed one carries a reproducer that failed before the patch and passes after it.
  const approved = review && review["patch-correct"] === "yes" && review["test-correct"] === "yes";
  const reproducer =
    fields.reproducer === undefined && rest.status === "fixed" && approved
      ? { before: { exitCode: 1, stderr: "AssertionError" }, after: { exitCode: 0 } }
      : fields.reproducer;
  const rep = reproducer
    ? {
        status: "reproduced" as const,
        summary: "the script fails with AssertionError",
        path: "reproducer.py",
        command: "python reproducer.py",
        script: "assert False\n",
        attempts: 1,
        ...reproducer,
        before: reproducer.before ? fakeExec({ exitCode: 1, ...reproducer.before }) : null,
        after: reproducer.after ? fakeExec(reproducer.after) : null,
      }
    : null;
  const status = rest.status ?? "no-patch";
  return FixResultSchema.parse({
    patch: null,
    reproduced: rep ? rep.status === "reproduced" : null,
    validation: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    out: "/tmp/auto-fix-test-out",
    reason: `${status} (a stand-in result)`,
    error: status === "error" ? "the stand-in pipeline failed" : null,
    timed_out_after: null,
    summary: "",
    model: null,
    locations: [],
    selection: null,
    seconds: 1,
    ...rest,
    status,
    review: review ? fakeReview(review) : null,
    reproducer: rep,
    maintainer: maintainer ? fakeMaintainer(maintainer) : null,
  });
}
