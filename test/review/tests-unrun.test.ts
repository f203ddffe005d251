/**
 * The reviewer sees what the repository's tests ran and what they did not: an approved patch whose
 * validation left related tests unrun (over the time given to them) or judged by no test goes back to the
 * reviewer once with that account, and its second verdict decides. A validation that ran every related
 * test costs no second look. Real reproducer runs in the bubblewrap sandbox, the scripted model over the
 * real protocol; the validation is the real one, or (for tests over the time) its result as validate
 * reports such a run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { reproduceIssue } from "../../src/reproduce/index.ts";
import { type PatchProposal, type ReviewLoopDeps, runReviewLoop } from "../../src/review/index.ts";
import { testsAccount } from "../../src/review/tests-account.ts";
import { createSandbox, makeWorkCopy, type SandboxPort } from "../../src/sandbox/index.ts";
import { TreeStates, type ValidationResult, validatePatched } from "../../src/validate/index.ts";
import { type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { chatModelFor, diffFor, FIXTURES, fence, promptKind, verdict } from "./helpers.ts";

let sandbox: SandboxPort;
const cleanup: (() => Promise<void>)[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

const REPRO =
  "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";

/** Validation as validate reports related tests left out past the time given to them. */
function overTime(real: ValidationResult): ValidationResult {
  return {
    ...real,
    status: "no-tests",
    before: null,
    after: null,
    counted: undefined,
    related: 0,
    summary:
      "none of the related tests could be run (see what was not run): the patch was not validated by the repository's tests",
    tests: {
      kind: "targeted",
      runner: "pytest",
      why: "1 of 1 pytest test file relates to the change",
      selected: [
        { target: "tests/test_pricing.py", reasons: ["imports a changed module"], run: "over-budget" },
      ],
      total: 1,
      command: "python3 -m pytest tests/test_pricing.py",
      notRun:
        "tests/test_pricing.py (1 related test, over the 45 s budget for related tests, validation.related-budget)",
      pristineRuns: 0,
      relatedBudgetMs: 45_000,
    },
  };
}

async function run(
  handler: ScriptHandler,
  shape: (real: ValidationResult) => ValidationResult,
  rewritePatch: ReviewLoopDeps["rewritePatch"] = async () => null,
) {
  const copy = await makeWorkCopy(join(FIXTURES, "py-shop"));
  cleanup.push(() => copy.dispose());
  const config = loadRepoConfig(copy.dir);
  const states = await TreeStates.prepare({ sandbox, config, source: copy.dir });
  cleanup.push(() => states.dispose());
  const model = await startScriptedModel(handler);
  cleanup.push(() => model.close());
  const chat = chatModelFor(model.baseURL);
  const pristine = await states.pristine();
  const reproduction = await reproduceIssue(
    { model: chat, sandbox, config },
    { issue: "apply_discount(100, 10) returns -900", workdir: pristine.dir },
  );
  await pristine.dispose();
  const baseline = await states.baseline();
  const good = diffFor(copy.dir, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
  const initial: PatchProposal = { id: "p1", diff: good, applicable: true, status: "APPLICABLE_PATCH" };
  const outcome = await runReviewLoop(
    {
      model: chat,
      sandbox,
      config,
      states,
      issue: "apply_discount(100, 10) returns -900",
      rewritePatch,
      validate: async (p) => {
        const patched = await states.patched(p.diff);
        try {
          return shape((await validatePatched(sandbox, patched.dir, config, baseline)).result);
        } finally {
          await patched.dispose();
        }
      },
    },
    initial,
    reproduction,
  );
  const reviews = model.requests.filter((r) => promptKind(r) === "review");
  return { outcome, reviews };
}

const script =
  (second: () => string): ScriptHandler =>
  (req) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write") return fence("python", REPRO);
    if (kind === "review") {
      const told = String(req.messages.at(-1)?.content ?? "").includes("What the repository's own tests did");
      return told ? second() : verdict("yes", "yes");
    }
    return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
  };

test("related tests that did not run go back to the reviewer, who approves knowing the fix rests on the reproducer", async () => {
  const { outcome, reviews } = await run(
    script(() => verdict("yes", "yes")),
    overTime,
  );
  assert.equal(reviews.length, 2, "one second look");
  const told = String(reviews[1]!.messages.at(-1)!.content);
  assert.match(told, /No test of the repository judged the patch: none of the related tests could be run/);
  assert.match(
    told,
    /`tests\/test_pricing\.py` \(imports a changed module\): did not run: the time given to related tests ran out/,
  );
  assert.match(told, /Not run: tests\/test_pricing\.py/);
  assert.match(told, /A test that did not run is evidence neither for the patch nor\s+against it/);
  // The first look had no such account: the tests had not run yet.
  assert.doesNotMatch(String(reviews[0]!.messages.at(-1)!.content), /What the repository's own tests did/);
  assert.equal(outcome.approved, true);
  assert.match(outcome.summary, /the reviewer saw what the tests did not run/);
});

test("the reviewer that rejects the patch once it sees what did not run has its advice sent to the patch writer", async () => {
  const asked: string[] = [];
  const { outcome, reviews } = await run(
    script(() => verdict("no", "yes", "the websocket tests never ran: keep the old signature")),
    overTime,
    async (guidance) => {
      asked.push(guidance);
      return null;
    },
  );
  assert.equal(reviews.length, 2);
  assert.equal(outcome.approved, false);
  assert.equal(outcome.verdict?.["patch-correct"], "no");
  assert.equal(asked.length, 1);
  assert.match(asked[0]!, /keep the old signature/);
});

test("a validation that ran every related test costs no second look", async () => {
  const { outcome, reviews } = await run(
    script(() => verdict("no", "no", "should not be asked")),
    (real) => real,
  );
  assert.equal(outcome.validation?.status, "passed");
  assert.equal(testsAccount(outcome.validation!).gaps, false);
  assert.equal(reviews.length, 1);
  assert.equal(outcome.approved, true);
});
