/**
 * The stage entries one by one (reproduce, review, validate, select), on a fixture repository in the real
 * sandbox with the scripted model over HTTP: what each returns, what it records, which failures it turns
 * into its own outcome and which it lets through to end the run.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fenceIssue, parseIssueFile } from "../../src/agents/issue-text.ts";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import type { FixContext, PatchCandidate } from "../../src/contract/pipeline.ts";
import { silentProgress } from "../../src/contract/progress.ts";
import { BudgetExceeded } from "../../src/model/errors.ts";
import { type Reproduction, reproduceStage } from "../../src/reproduce/index.ts";
import { reviewStage } from "../../src/review/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { selectStage } from "../../src/select/index.ts";
import { TreeStates, type ValidationResult, validateStage } from "../../src/validate/index.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { diffFor, FIXTURES, fence, promptKind, verdict } from "../review/helpers.ts";
import { openCodeFor } from "../review/open-code.ts";

const REPRO =
  "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";

let sandbox: SandboxPort;
let repo: string;
let config: RepoConfig;
let states: TreeStates;
let goodDiff: string;
const dirs: string[] = [];

before(async () => {
  sandbox = await createSandbox("bwrap");
  repo = mkdtempSync(join(tmpdir(), "af-stages-"));
  dirs.push(repo);
  cpSync(join(FIXTURES, "py-shop"), repo, { recursive: true });
  goodDiff = diffFor(
    repo,
    "shop/pricing.py",
    "return price - price * percent",
    "return price - price * percent / 100",
  );
  config = loadRepoConfig(repo);
  assert.ok(config.test.command, "the fixture's tests are detected");
  states = await TreeStates.prepare({ sandbox, config, source: repo });
});
after(async () => {
  await states.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const issue = () => parseIssueFile(`# apply_discount is wrong\n\napply_discount(100, 10) should be 90.\n`);

async function withModel<T>(
  handler: ScriptHandler,
  fn: (model: ReturnType<typeof makeTestModel>, requests: () => number) => Promise<T>,
  budget?: { tokens: number },
): Promise<T> {
  const server = await startScriptedModel(handler);
  const out = mkdtempSync(join(tmpdir(), "af-stages-out-"));
  dirs.push(out);
  try {
    return await fn(
      makeTestModel(server.baseURL, { dir: out, ...(budget ? { budget } : {}) }),
      () => server.requests.length,
    );
  } finally {
    await server.close();
  }
}

const reproducer: ScriptHandler = (req) =>
  promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("python", REPRO);

function recorded() {
  const files = new Map<string, unknown>();
  return {
    files,
    record: (name: string, text: string) => files.set(name, text),
    recordJson: (name: string, value: unknown) => files.set(name, value),
  };
}

async function reproduce(): Promise<Reproduction> {
  return withModel(reproducer, async (tm) => {
    const r = await reproduceStage({
      model: tm.model,
      sandbox,
      config,
      pristine: () => states.pristine(),
      issue: fenceIssue(issue()),
      problem: null,
      ...recorded(),
    });
    assert.ok(r.reproduction);
    return r.reproduction;
  });
}

test("reproduce: the script fails on the bug in the sandbox; the outcome carries the lead and the run before", async () => {
  await withModel(reproducer, async (tm) => {
    const rec = recorded();
    const { outcome, reproduction } = await reproduceStage({
      model: tm.model,
      sandbox,
      config,
      pristine: () => states.pristine(),
      issue: fenceIssue(issue()),
      problem: "setup step failed: pip install (exit 1)",
      record: rec.record,
      recordJson: rec.recordJson,
    });
    assert.equal(outcome.reproduced, true, outcome.summary);
    assert.match(outcome.lead ?? "", /AssertionError: expected 90, got -900/);
    assert.match(
      outcome.summary,
      /\(setup step failed: pip install \(exit 1\)\)$/,
      "what went wrong before is said",
    );
    assert.equal(reproduction?.status, "reproduced");
    const data = outcome.data as {
      status: string;
      path: string;
      before: { exitCode: number; stderr: string };
    };
    assert.equal(data.status, "reproduced");
    assert.notEqual(data.before.exitCode, 0);
    assert.match(data.before.stderr, /AssertionError/);
    assert.deepEqual((rec.files.get("reproduce/result.json") as { status: string }).status, "reproduced");
  });
});

test("reproduce: no sandbox → says why and asks the model nothing; a stage failure is its own outcome", async () => {
  await withModel(reproducer, async (tm, requests) => {
    const none = await reproduceStage({
      model: tm.model,
      sandbox: null,
      config,
      pristine: null,
      issue: fenceIssue(issue()),
      problem: "no sandbox: bubblewrap is not installed; nothing from the repository was run",
      ...recorded(),
    });
    assert.equal(none.outcome.reproduced, false);
    assert.match(none.outcome.summary, /^no sandbox: bubblewrap is not installed/);
    assert.equal(none.reproduction, null);
    assert.equal(requests(), 0);

    const rec = recorded();
    const failed = await reproduceStage({
      model: tm.model,
      sandbox,
      config,
      pristine: async () => {
        throw new Error("no space left on device");
      },
      issue: fenceIssue(issue()),
      problem: null,
      record: rec.record,
      recordJson: rec.recordJson,
    });
    assert.equal(failed.outcome.reproduced, false);
    assert.equal(failed.outcome.summary, "the reproduce stage failed: no space left on device");
    assert.match(String(rec.files.get("reproduce/error.txt")), /no space left on device/);
  });
});

test("reproduce: a spent budget is not the stage's to absorb: it ends the run", async () => {
  await withModel(
    reproducer,
    async (tm) => {
      await assert.rejects(
        reproduceStage({
          model: tm.model,
          sandbox,
          config,
          pristine: () => states.pristine(),
          issue: fenceIssue(issue()),
          problem: null,
          ...recorded(),
        }),
        (e: unknown) => e instanceof BudgetExceeded,
      );
    },
    { tokens: 1 },
  );
});

test("validate: the repository's tests before and after one patch, run once per distinct diff", async () => {
  const cache = new Map<string, Promise<ValidationResult>>();
  const rec: string[] = [];
  const input = { sandbox, config, states, cache };
  const first = await validateStage(input, { id: "linear-1", diff: goodDiff }, (name) => rec.push(name));
  assert.ok(first);
  assert.equal(first.passed, true, first.summary);
  // The fixture's tests pass before and after: no regression, but no evidence of the fix either.
  assert.equal(first.showsFix, false);
  assert.deepEqual(first.regressions, []);
  const again = await validateStage(input, { id: "tree-3", diff: goodDiff }, (name) => rec.push(name));
  assert.equal(cache.size, 1, "the same diff ran once");
  assert.deepEqual(again?.data, first.data, "the same run, durations and all");
  assert.deepEqual(rec, ["linear-1/validation.json", "tree-3/validation.json"]);
  const noTests = { ...config, test: { ...config.test, command: null } } as RepoConfig;
  assert.equal(
    await validateStage({ ...input, config: noTests }, { id: "x", diff: goodDiff }, () => {}),
    null,
  );
  assert.equal(await validateStage({ ...input, states: null }, { id: "x", diff: goodDiff }, () => {}), null);
});

async function reviewContext(tm: ReturnType<typeof makeTestModel>): Promise<FixContext> {
  const code = await openCodeFor(repo);
  return {
    options: { repo, issue: issue(), out: tm.dir },
    model: tm.model,
    meter: tm.meter,
    recorder: tm.recorder,
    progress: silentProgress,
    workdir: repo,
    code,
    config,
    sandbox: { port: sandbox, problem: null },
    state: {
      reproduction: null,
      search: null,
      candidates: [],
      chosen: null,
      chosenWhy: "",
      locationsText: null,
      requested: [],
    },
  };
}

const candidate = (): PatchCandidate => ({
  id: "linear-1",
  source: "linear attempt 1",
  answer: "",
  result: { status: "APPLICABLE_PATCH", diff: goodDiff, edits: [], feedback: "" },
  applicable: true,
});

test("review: the reviewer sees the reproducer pass after the patch and approves; the outcome carries the runs", async () => {
  const reproduction = await reproduce();
  await withModel(
    () => verdict("yes", "yes"),
    async (tm) => {
      const ctx = await reviewContext(tm);
      const { outcome, loop } = await reviewStage(
        ctx,
        { sandbox, config, states, reproduction },
        candidate(),
      );
      assert.equal(outcome.approved, true, outcome.summary);
      assert.equal(loop?.reproducerPasses, true);
      const data = outcome.data as { "patch-correct": string; reproducer: { after: { exitCode: number } } };
      assert.equal(data["patch-correct"], "yes");
      assert.equal(data.reproducer.after.exitCode, 0);
    },
  );
});

test("review: a spent budget ends the run; a reviewer that never answers usefully ends the review, not the run", async () => {
  const reproduction = await reproduce();
  await withModel(
    () => verdict("yes", "yes"),
    async (tm) => {
      const ctx = await reviewContext(tm);
      // The budget is spent before the reviewer is asked.
      await tm.model.chat([{ role: "user", content: "spend" }], { stage: "other" }).catch(() => null);
      await assert.rejects(
        reviewStage(ctx, { sandbox, config, states, reproduction }, candidate()),
        (e: unknown) => e instanceof BudgetExceeded,
      );
    },
    { tokens: 1 },
  );
  await withModel(
    () => "I would rather not say.",
    async (tm) => {
      const ctx = await reviewContext(tm);
      const { outcome } = await reviewStage(ctx, { sandbox, config, states, reproduction }, candidate());
      assert.equal(outcome.approved, false);
      assert.match(outcome.summary, /review/);
    },
  );
});

test("select: the full test runs break a tie; with nothing applicable the closest attempt is kept", () => {
  const applicable = (id: string): PatchCandidate => ({ ...candidate(), id, source: id });
  const run = (passed: number) =>
    ({ status: "passed", regressions: [], after: { passed } }) as unknown as ValidationResult;
  const picked = selectStage([applicable("a"), applicable("b")], {
    compare: () => 0,
    noTests: false,
    testRuns: (c) => run(c.id === "b" ? 9 : 3),
  });
  assert.equal(picked.chosen?.id, "b");
  assert.equal(picked.why, "b: regression-free (tests: passed), not reviewed (over 1 other candidate)");
  assert.match(picked.selection.reason, /^candidate b won: regression-free/);
  const order = ["NO_PATCH", "RAW_PATCH_BUT_UNPARSED", "RAW_PATCH_BUT_UNMATCHED"];
  const failed = (id: string, status: string): PatchCandidate => ({
    ...candidate(),
    id,
    source: id,
    applicable: false,
    result: { status, diff: "", edits: [], feedback: "" },
  });
  const none = selectStage([failed("x", "NO_PATCH"), failed("y", "RAW_PATCH_BUT_UNMATCHED")], {
    compare: (a, b) => order.indexOf(a) - order.indexOf(b),
    noTests: true,
  });
  assert.equal(none.chosen?.id, "y");
  assert.equal(none.why, "no attempt applied; the closest was y (RAW_PATCH_BUT_UNMATCHED)");
  assert.equal(selectStage([], { compare: () => 0, noTests: true }).chosen, null);
});
