import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Pipeline } from "../../src/contract/app-result.ts";
import { type Harness, OWNER, REPO, startHarness } from "./harness.ts";
import { fakeResult } from "../support/fix-result.ts";

/** What each run spends, in order, and the budget each run was given. */
const costs = [0.5, 1.5, 1.0];
const budgets: number[] = [];

const pipeline: Pipeline = async (req) => {
  budgets.push(req.maxCostUsd);
  const cost = costs[budgets.length - 1] ?? 0;
  return fakeResult({
    status: "no-patch",
    reason: "nothing found",
    usage: { prompt_tokens: 100, completion_tokens: 10, cost_usd: cost },
  });
};

let h: Harness;
before(async () => {
  h = await startHarness({
    pipeline,
    env: { AUTO_FIX_MAX_COST_USD_PER_RUN: "2", AUTO_FIX_MAX_COST_USD_PER_REPO_PER_DAY: "3" },
  });
});
after(async () => {
  await h.close();
});

test("runs reserve their budget from the repository's daily spend, pay what they used, and stop at the limit", async () => {
  for (let i = 0; i < 4; i++) {
    const issue = h.github.addIssue(OWNER, REPO, { title: `bug ${i}`, body: "b" });
    await h.labeled(issue.number);
    await h.idle();
  }
  // $3 a day, at most $2 a run: 2 (0.50 spent), 2 (1.50 spent, 2.00 in all), then the 1.00 left.
  assert.deepEqual(budgets, [2, 2, 1]);
  const last = [...h.outcomes.values()].at(-1)!;
  assert.equal(last.action, "refused", JSON.stringify(last));
  const issues = [...h.repo.issues.keys()];
  const refusal = h.github.commentsOn(OWNER, REPO, issues.at(-1)!).at(-1)!;
  assert.match(refusal.body, /model spend today reached its daily limit \(\$3\.00 per repository/);
  assert.match(refusal.body, /AUTO_FIX_MAX_COST_USD_PER_REPO_PER_DAY/);
});
