import type { FixResult } from "../../contract/app-result.ts";

/**
 * What the pull request and the status comment say about a run, read leniently from the pipeline's
 * result: the reviewer's verdict may sit on `review` itself, in `review.data`, or in the last review
 * round; the reproducer on `reproducer` or in the review data's reproduction.
 */

export interface Verdict {
  patchCorrect: string | null;
  testCorrect: string | null;
  patchAnalysis: string | null;
  patchAdvice: string | null;
  testAnalysis: string | null;
  testAdvice: string | null;
}

export interface ExecView {
  exitCode: number | null;
  output: string;
  limit: string | null;
}

export interface ReproducerView {
  script: string;
  path: string | null;
  command: string | null;
  before: ExecView | null;
  after: ExecView | null;
}

export interface LocationView {
  file: string;
  unit: string | null;
  start: number | null;
  end: number | null;
  intended: string | null;
}

export interface ValidationView {
  passed: boolean | null;
  regressions: string[];
  summary: string | null;
  command: string | null;
}

export interface RunFacts {
  approved: boolean | null;
  reviewSummary: string | null;
  verdict: Verdict | null;
  reproducer: ReproducerView | null;
  validation: ValidationView | null;
  locations: LocationView[];
}

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj | null => (x && typeof x === "object" && !Array.isArray(x) ? (x as Obj) : null);
const str = (x: unknown): string | null => (typeof x === "string" && x.trim() !== "" ? x : null);
const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);
const last = (x: unknown): unknown => (Array.isArray(x) ? x[x.length - 1] : undefined);

function verdictOf(x: unknown): Verdict | null {
  const o = obj(x);
  if (!o || (!("patch-correct" in o) && !("test-correct" in o))) return null;
  return {
    patchCorrect: str(o["patch-correct"]),
    testCorrect: str(o["test-correct"]),
    patchAnalysis: str(o["patch-analysis"]),
    patchAdvice: str(o["patch-advice"]),
    testAnalysis: str(o["test-analysis"]),
    testAdvice: str(o["test-advice"]),
  };
}

function execOf(x: unknown): ExecView | null {
  const o = obj(x);
  if (!o) return null;
  const exec = obj(o.exec) ?? o;
  const output = [str(exec.stdout), str(exec.stderr)].filter(Boolean).join("\n");
  const timedOut = exec.timed_out === true ? "time" : null;
  return {
    exitCode: num(exec.exitCode) ?? num(exec.exit_code),
    output,
    limit: str(exec.limit) ?? timedOut,
  };
}

function locationOf(x: unknown): LocationView | null {
  const o = obj(x);
  const file = str(o?.file);
  if (!o || !file) return null;
  const unit = [str(o.class), str(o.method)].filter(Boolean).join(".");
  return {
    file,
    unit: unit || null,
    start: num(o.start),
    end: num(o.end),
    intended: str(o.intended_behavior) ?? str(o.intendedBehavior) ?? str(o.intended_behaviour),
  };
}

export function describeResult(r: FixResult): RunFacts {
  const review = obj(r.review);
  const data = obj(review?.data);
  const lastRound = obj(last(data?.rounds));
  const verdict =
    verdictOf(review) ??
    verdictOf(review?.verdict) ??
    verdictOf(data) ??
    verdictOf(data?.verdict) ??
    verdictOf(lastRound?.verdict);

  let reproducer: ReproducerView | null = null;
  const rep = obj(r.reproducer);
  const reproduction = obj(data?.reproduction);
  if (rep && str(rep.script)) {
    reproducer = {
      script: str(rep.script)!,
      path: str(rep.path) ?? str(rep.file),
      command: str(rep.command),
      before: execOf(rep.before),
      after: execOf(rep.after),
    };
  } else if (reproduction && str(reproduction.script)) {
    reproducer = {
      script: str(reproduction.script)!,
      path: str(reproduction.file) ?? str(reproduction.path),
      command: str(reproduction.command),
      before: execOf(reproduction.run),
      after: execOf(lastRound?.after),
    };
  }

  const v = obj(r.validation);
  const validation: ValidationView | null = v
    ? {
        passed: typeof v.passed === "boolean" ? v.passed : null,
        regressions: Array.isArray(v.regressions) ? v.regressions.filter((t) => typeof t === "string") : [],
        summary: str(v.summary),
        command: str(v.command),
      }
    : null;

  const rawLocations = Array.isArray(r.locations)
    ? r.locations
    : Array.isArray(r.bug_locations)
      ? r.bug_locations
      : [];
  return {
    approved:
      typeof review?.approved === "boolean"
        ? review.approved
        : verdict
          ? verdict.patchCorrect === "yes"
          : null,
    reviewSummary: str(review?.summary),
    verdict,
    reproducer,
    validation,
    locations: rawLocations.map(locationOf).filter((l): l is LocationView => l !== null),
  };
}

/** The reviewer's advice to carry into the next run's prompts. */
export function adviceOf(facts: RunFacts): string {
  const parts: string[] = [];
  if (facts.verdict?.patchAdvice) parts.push(`On the patch: ${facts.verdict.patchAdvice.trim()}`);
  if (facts.verdict?.testAdvice) parts.push(`On the reproducer: ${facts.verdict.testAdvice.trim()}`);
  if (parts.length === 0 && facts.approved === false && facts.reviewSummary)
    parts.push(facts.reviewSummary.trim());
  return parts.join("\n\n").slice(0, 6000);
}
