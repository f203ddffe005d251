import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { decideOutcome } from "../../src/contract/failures.ts";
import { selectStage } from "../../src/select/index.ts";
import type { FixHooks, FixState, PatchCandidate } from "../../src/contract/pipeline.ts";
import { patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES, read } from "../support/fix-harness.ts";
import { existsSync } from "node:fs";
import { openCode } from "../../src/pipeline/open-code.ts";
import { BudgetExceeded } from "../../src/model/errors.ts";
import { runFix } from "../../src/pipeline/run-fix.ts";
import { agentScript } from "../support/agent-script.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { tempDir } from "../support/temp.ts";

const repo = join(FIX_FIXTURES, "py-stats");
const issue = { title: "mean() is wrong", body: "mean([2, 4, 6]) returns 6.0 instead of 4.0" };
/** What the caller hands in: the configuration read once, and no sandbox (these hooks run nothing). */
const handedIn = (testCmd?: string) => ({
  config: loadRepoConfig(repo, testCmd !== undefined ? { testCommand: testCmd } : {}),
  sandbox: { port: null, problem: "not needed: the hooks here run nothing" },
});
const goodPatch = patchAnswer(
  "stats/summary.py",
  "    return sum(values) / (len(values) - 1)",
  "    return sum(values) / len(values)",
);

test("reproduce, review and validate hooks: the lead reaches the search prompt and approval makes it 'fixed'", async () => {
  const seen: string[] = [];
  const hooks: FixHooks = {
    reproduce: async (ctx) => {
      seen.push(`reproduce in ${ctx.workdir !== repo ? "private copy" : "USER TREE"}`);
      return {
        reproduced: true,
        lead: "AssertionError: mean([2, 4, 6]) == 6.0",
        summary: "The script fails with AssertionError.",
      };
    },
    review: async (_ctx, c) => {
      seen.push(`review ${c.source}`);
      return {
        approved: true,
        summary: "The patch divides by the right count.",
        data: {
          rounds: 1,
          "patch-correct": "yes",
          "test-correct": "yes",
          "patch-analysis": "Divides by len(values) now.",
          "patch-advice": "",
          "test-analysis": "Asserts the mean.",
          "test-advice": "",
          history: [{ round: 1, patchId: c.id, scriptVersion: 1, action: "accepted", note: "" }],
          reproducer: null,
        },
      };
    },
    validate: async (_ctx, c) => {
      seen.push(`validate ${c.source}`);
      return { passed: true, showsFix: true, regressions: [], summary: "all tests pass" };
    },
  };
  const server = await startScriptedModel(
    agentScript({
      search: [
        searchSays("Bug in mean.", {
          bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len." }],
        }),
      ],
      patch: [goodPatch],
    }),
  );
  try {
    const out = tempDir("auto-fix-out-");
    const t = makeTestModel(server.baseURL, { dir: out });
    const result = await runFix(
      { repo, issue, out, testCmd: "pytest" },
      {
        ...handedIn("pytest"),
        model: t.model,
        meter: t.meter,
        recorder: t.recorder,
        openCode: (w) => openCode(w, { cacheDir: null }),
        hooks,
      },
    );
    assert.equal(result.status, "fixed", result.reason);
    assert.equal(result.reproduced, true);
    assert.deepEqual(result.review, {
      approved: true,
      summary: "The patch divides by the right count.",
      rounds: 1,
      "patch-correct": "yes",
      "test-correct": "yes",
      "patch-analysis": "Divides by len(values) now.",
      "patch-advice": "",
      "test-analysis": "Asserts the mean.",
      "test-advice": "",
      history: [{ round: 1, patchId: "linear-1", scriptVersion: 1, action: "accepted", note: "" }],
    });
    // A validation hook that reports no test runs: the verdict, and nothing invented about the runs.
    assert.deepEqual(result.validation, {
      passed: true,
      shows_fix: true,
      status: "passed",
      command: null,
      regressions: [],
      fixed: [],
      perTest: false,
      before: null,
      after: null,
      summary: "all tests pass",
    });
    assert.deepEqual(seen, [
      "reproduce in private copy",
      "review linear attempt 1",
      "validate linear attempt 1",
    ]);
    const searchPrompt = String(server.requests.find((q) => roleOf(q) === "search")?.messages[1]?.content);
    assert.match(
      searchPrompt,
      /reproduces the issue was run[\s\S]*AssertionError: mean\(\[2, 4, 6\]\) == 6\.0/,
    );
    assert.match(read(out, "report.md"), /## Review\n\nApproved: yes/);
  } finally {
    await server.close();
  }
});

test("a failing hook becomes an error outcome, but an applicable patch found before it is kept", async () => {
  const server = await startScriptedModel(
    agentScript({
      search: [searchSays("Bug in mean.", { bug_locations: [{ file: "stats/summary.py", method: "mean" }] })],
      patch: [goodPatch],
    }),
  );
  try {
    const out = tempDir("auto-fix-out-");
    const t = makeTestModel(server.baseURL, { dir: out });
    const result = await runFix(
      { repo, issue, out },
      {
        ...handedIn(),
        model: t.model,
        meter: t.meter,
        recorder: t.recorder,
        openCode: (w) => openCode(w, { cacheDir: null }),
        hooks: {
          review: async () => {
            throw new Error("sandbox exploded");
          },
        },
      },
    );
    assert.equal(result.status, "patched");
    assert.match(result.reason, /then internal error: sandbox exploded/);
    assert.match(read(out, "error.txt"), /sandbox exploded/);
  } finally {
    await server.close();
  }
});

test("selection prefers approved and regression-free, then regression-free, then status", () => {
  const c = (id: string, status: string, extra: Partial<PatchCandidate> = {}): PatchCandidate => ({
    id,
    source: id,
    answer: "",
    result: { status, diff: status === "APPLICABLE_PATCH" ? `diff ${id}` : "", edits: [], feedback: "" },
    applicable: status === "APPLICABLE_PATCH",
    ...extra,
  });
  const order = ["NO_PATCH", "RAW_PATCH_BUT_UNMATCHED", "APPLICABLE_PATCH"];
  const compare = (a: string, b: string) => order.indexOf(a) - order.indexOf(b);
  const selectCandidate = (cs: PatchCandidate[]) => selectStage(cs, { compare, noTests: false });
  const broken = { passed: false, showsFix: false, regressions: ["test_x"], summary: "" };
  const ok = { passed: true, showsFix: true, regressions: [], summary: "" };
  const cands = [
    c("a", "APPLICABLE_PATCH", { validation: broken, review: { approved: true, summary: "" } }),
    c("b", "APPLICABLE_PATCH", { validation: ok }),
    c("c", "APPLICABLE_PATCH", { validation: ok, review: { approved: true, summary: "" } }),
  ];
  assert.equal(selectCandidate(cands).chosen?.id, "c");
  assert.equal(selectCandidate(cands.slice(0, 2)).chosen?.id, "b");
  // The only applicable patch breaks a test: it is chosen, and the reason names the regression.
  assert.match(selectCandidate([cands[0]!]).why, /status APPLICABLE_PATCH \(regressions: test_x\)/);
  const none = selectCandidate([c("x", "NO_PATCH"), c("y", "RAW_PATCH_BUT_UNMATCHED")]);
  assert.equal(none.chosen?.id, "y");
  assert.match(none.why, /no attempt applied; the closest was y \(RAW_PATCH_BUT_UNMATCHED\)/);
  assert.equal(selectCandidate([]).chosen, null);
});

test("an interrupted run ends as an error with its report, and removes its private copy", async () => {
  const abort = new AbortController();
  let workdir = "";
  const server = await startScriptedModel(async (req, i) => {
    if (i === 1) abort.abort();
    return roleOf(req) === "proxy"
      ? '{"API_calls": ["search_method(\\"mean\\")"]}'
      : "Let me search for mean.";
  });
  try {
    const out = tempDir("auto-fix-out-");
    const t = makeTestModel(server.baseURL, { dir: out });
    const result = await runFix(
      { repo, issue, out, signal: abort.signal },
      {
        ...handedIn(),
        model: t.model,
        meter: t.meter,
        recorder: t.recorder,
        openCode: (w) => {
          workdir = w;
          return openCode(w, { cacheDir: null });
        },
      },
    );
    assert.equal(result.status, "error");
    assert.equal(result.reason, "the run was interrupted during the search stage");
    assert.match(read(out, "report.md"), /Status: error/);
    assert.ok(workdir !== "" && !existsSync(workdir), "the private copy is removed");
    assert.ok(server.requests.length <= 2, "no model call starts after the interruption");
  } finally {
    await server.close();
  }
});

test("'fixed' needs evidence that ran: tests that failed and now pass, or an approved reproducer that went red to green", () => {
  const cand = (extra: Partial<PatchCandidate>): PatchCandidate => ({
    id: "c",
    source: "linear attempt 1",
    answer: "",
    result: { status: "APPLICABLE_PATCH", diff: "diff", edits: [], feedback: "" },
    applicable: true,
    ...extra,
  });
  const state = (chosen: PatchCandidate): FixState => ({
    reproduction: null,
    search: null,
    candidates: [chosen],
    chosen,
    chosenWhy: "why",
    locationsText: null,
    requested: [],
  });
  const passes = {
    passed: true,
    showsFix: true,
    regressions: [],
    summary: "test_x failed before, passes now",
  };
  const unchanged = {
    passed: true,
    showsFix: false,
    regressions: [],
    summary: "suite passes before and after",
  };
  const fails = { passed: false, showsFix: false, regressions: ["test_x"], summary: "a regression" };
  assert.equal(decideOutcome(state(cand({})), null).status, "patched");
  assert.equal(decideOutcome(state(cand({ validation: passes })), null).status, "fixed");
  assert.equal(
    decideOutcome(state(cand({ validation: unchanged })), null).status,
    "patched",
    "tests green before and after show no regression, not a fix",
  );
  assert.equal(decideOutcome(state(cand({ validation: fails })), null).status, "patched");
  // The reviewer's approval alone is no evidence: nothing that ran shows the bug gone.
  assert.equal(
    decideOutcome(state(cand({ review: { approved: true, summary: "ok" } })), null).status,
    "patched",
  );
  assert.equal(
    decideOutcome(state(cand({ review: { approved: true, summary: "ok" }, validation: passes })), null)
      .status,
    "fixed",
  );
  const rejected = cand({ review: { approved: false, summary: "no" }, validation: passes });
  assert.equal(decideOutcome(state(rejected), null).status, "patched");
  const budget = decideOutcome(state(cand({})), new BudgetExceeded({ usd: 1 }, { tokens: 10, usd: 1.2 }));
  assert.equal(budget.status, "patched");
  assert.match(budget.reason, /then the run stopped: model budget reached/);
});
