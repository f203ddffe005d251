import type { TestsRan } from "./compare.ts";
import type { RelatedRuns } from "./related-types.ts";

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const countOf = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
/** Names listed in a "not run" line before the rest are counted. */
const NAMED_LEFT_OUT = 10;
export const namesOf = (names: readonly string[]): string =>
  names.length <= NAMED_LEFT_OUT
    ? names.join(", ")
    : `${names.slice(0, NAMED_LEFT_OUT).join(", ")} and ${names.length - NAMED_LEFT_OUT} more`;

type Selected = TestsRan["selected"][number];
/** What more than `run` says of a test that did not run (a batch stopped at the budget). */
export type RunDetail = Pick<Selected, "reason" | "stoppedAfterMs" | "unpatchedMs">;

/** How the related tests' runs come out in the report: each test's run and detail, what was left out. */
export interface RelatedAccount {
  runOf: (target: string) => NonNullable<Selected["run"]>;
  detailOf: (target: string) => RunDetail;
  /** What of the related tests did not run, for the report. */
  leftOut: string[];
  /** Related tests were left out over the budget. */
  overBudget: boolean;
  /** Related test files whose unpatched run did not finish in time: the whole suite holds them too. */
  unfinished: string[];
}

/** Nothing related ran (none selected): every test ran as far as the report goes. */
export const NOTHING_LEFT_OUT: RelatedAccount = {
  runOf: () => "ran",
  detailOf: () => ({}),
  leftOut: [],
  overBudget: false,
  unfinished: [],
};

/** Each related test's run in the report (ran, over the budget, …) and what more can be said of it. */
function statusOf(related: RelatedRuns): Pick<RelatedAccount, "runOf" | "detailOf"> {
  const status = new Map<
    string,
    "over-budget" | "after-regression" | "unpatched-too-slow" | "needs-network"
  >();
  for (const t of related.overBudget) status.set(t, "over-budget");
  for (const t of related.afterRegression) status.set(t, "after-regression");
  for (const { target } of related.givenUp) status.set(target, "unpatched-too-slow");
  for (const { target } of related.timedOut) status.set(target, "unpatched-too-slow");
  for (const { target } of related.network) status.set(target, "needs-network");
  const details = new Map<string, RunDetail>();
  for (const st of related.stopped) {
    for (const t of st.targets) {
      status.set(t, "over-budget");
      details.set(t, {
        reason: st.reason,
        stoppedAfterMs: st.afterMs,
        ...(st.unpatchedMs !== null ? { unpatchedMs: Math.round(st.unpatchedMs) } : {}),
      });
    }
  }
  for (const [t, ms] of related.longerThanBudget) {
    details.set(t, {
      reason: `its run on the unpatched tree took ${seconds(ms)}, longer than the budget`,
      unpatchedMs: Math.round(ms),
    });
  }
  for (const g of related.givenUp) {
    details.set(g.target, {
      reason: `its run on the unpatched tree was stopped after ${seconds(g.limitMs)}, not finished`,
    });
  }
  for (const { target, ms } of related.timedOut) {
    details.set(target, {
      reason: `its run on the unpatched tree was stopped at its own limit after ${seconds(ms)}, not finished`,
    });
  }
  for (const { target, line } of related.network) details.set(target, { reason: line });
  return { runOf: (t) => status.get(t) ?? "ran", detailOf: (t) => details.get(t) ?? {} };
}

/** The report's lines on the related tests that could not be judged here (timed out before, network). */
function unjudgedLines(related: RelatedRuns): string[] {
  const lines: string[] = [];
  if (related.givenUp.length > 0) {
    const limit = Math.max(...related.givenUp.map((g) => g.limitMs));
    lines.push(
      `${namesOf(related.givenUp.map((g) => g.target))} (${countOf(related.givenUp.length, "related test")}, could not be judged here (timed out before the patch): their run on the unpatched tree did not finish within ${seconds(limit)}, at least the budget, so they are given up for this job)`,
    );
  }
  if (related.timedOut.length > 0) {
    const names = related.timedOut.map((x) => x.target);
    lines.push(
      `${namesOf(names)} (${countOf(names.length, "related test")}, could not be judged here (timed out before the patch): their run on the unpatched tree did not finish within its own limit, so they were not run after it)`,
    );
  }
  if (related.network.length > 0) {
    const names = related.network.map((x) => x.target);
    lines.push(
      `${namesOf(names)} (${countOf(names.length, "related test")}, needs the network (not judged here): their tests failed on the unpatched tree only with network errors, networking being off, so they were not run after the patch)`,
    );
  }
  return lines;
}

/** The report's lines on the related tests left out over the budget or after a regression. */
function leftOverLines(related: RelatedRuns, budgetMs: number | null): string[] {
  const lines: string[] = [];
  for (const st of related.stopped) {
    lines.push(
      `${namesOf(st.targets)} (${countOf(st.targets.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests: ${st.reason})`,
    );
  }
  if (related.overBudget.length > 0) {
    const longer = related.overBudget.filter((t) => related.longerThanBudget.has(t));
    const rest = related.overBudget.filter((t) => !related.longerThanBudget.has(t));
    if (rest.length > 0) {
      lines.push(
        `${namesOf(rest)} (${countOf(rest.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests, validation.related-budget)`,
      );
    }
    if (longer.length > 0) {
      lines.push(
        `${namesOf(longer)} (${countOf(longer.length, "related test")}, over the ${seconds(budgetMs ?? 0)} budget for related tests: their run on the unpatched tree alone took longer)`,
      );
    }
  }
  if (related.afterRegression.length > 0) {
    lines.push(
      `${namesOf(related.afterRegression)} (${countOf(related.afterRegression.length, "related test")}, not run: the tests that ran already show a regression, so the patch is rejected)`,
    );
  }
  return lines;
}

/** How the related tests' runs come out in the report (see RelatedAccount). */
export function accountRelated(related: RelatedRuns, budgetMs: number | null): RelatedAccount {
  return {
    ...statusOf(related),
    leftOut: [...unjudgedLines(related), ...leftOverLines(related, budgetMs)],
    overBudget: related.stopped.length > 0 || related.overBudget.length > 0,
    unfinished: [...related.givenUp.map((g) => g.target), ...related.timedOut.map((x) => x.target)],
  };
}
