/** Run budgets: how many runs an issue and a repository may have. */

import type { RunLedger } from "../jobs/run-ledger.ts";

export type { RunLedger };

/** An in-process ledger (tests); the app uses the durable ones from `src/jobs/run-ledger.ts`. */
export class MemoryRunLedger implements RunLedger {
  readonly #runs = new Map<string, number[]>();

  async record(repoKey: string, at: number): Promise<void> {
    const list = this.#runs.get(repoKey) ?? [];
    list.push(at);
    this.#runs.set(repoKey, list);
  }

  async countSince(repoKey: string, since: number): Promise<number> {
    const list = (this.#runs.get(repoKey) ?? []).filter((t) => t >= since);
    this.#runs.set(repoKey, list);
    return list.length;
  }

  async reserve(
    repoKey: string,
    at: number,
    windowMs: number,
    limit: number,
  ): Promise<{ allowed: boolean; count: number }> {
    const count = await this.countSince(repoKey, at - windowMs);
    if (count >= limit) return { allowed: false, count };
    await this.record(repoKey, at);
    return { allowed: true, count };
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface BudgetFacts {
  issueRuns: number;
  repoRunsToday: number;
  maxRunsPerIssue: number;
  maxRunsPerRepoPerDay: number;
}

/** The refusal (naming the limit) when a new run would exceed a budget, or null when it may start. */
export function budgetRefusal(f: BudgetFacts): string | null {
  if (f.issueRuns >= f.maxRunsPerIssue) {
    return (
      `This issue has had ${f.issueRuns} runs, the limit for one issue (runs per issue: ${f.maxRunsPerIssue}). ` +
      "A maintainer can raise `budgets.runs-per-issue` in `.github/auto-fix.yml` (up to the operator's limit) " +
      "or take it from here by hand."
    );
  }
  if (f.repoRunsToday >= f.maxRunsPerRepoPerDay) {
    return (
      `This repository has had ${f.repoRunsToday} runs in the last 24 hours, the daily limit ` +
      `(runs per repository per day: ${f.maxRunsPerRepoPerDay}). Try again later.`
    );
  }
  return null;
}
