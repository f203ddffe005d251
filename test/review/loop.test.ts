import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import { reproduceIssue } from "../../src/reproduce/index.ts";
import { type PatchProposal, type ReviewLoopDeps, runReviewLoop } from "../../src/review/index.ts";
import { createSandbox, makeWorkCopy, type SandboxPort, type WorkCopy } from "../../src/sandbox/index.ts";
import { selectCandidate } from "../../src/select/index.ts";
import { TreeStates, validatePatched } from "../../src/validate/index.ts";
import { type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { chatModelFor, diffFor, FIXTURES, fence, promptKind, verdict } from "./helpers.ts";

let sandbox: SandboxPort;
const cleanup: (() => Promise<void>)[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of cleanup) await c();
});

interface Fixture {
  dir: string;
  config: RepoConfig;
  states: TreeStates;
}
async function fixture(name: string): Promise<Fixture> {
  const copy: WorkCopy = await makeWorkCopy(join(FIXTURES, name));
  cleanup.push(() => copy.dispose());
  const config = loadRepoConfig(copy.dir);
  const states = await TreeStates.prepare({ sandbox, config, source: copy.dir });
  cleanup.push(() => states.dispose());
  return { dir: copy.dir, config, states };
}

const proposal = (id: string, diff: string): PatchProposal => ({
  id,
  diff,
  applicable: true,
  status: "APPLICABLE_PATCH",
});

/** Runs the reproduce stage and the review loop against the scripted model, as the pipeline does. */
async function reproduceAndReview(
  fx: Fixture,
  handler: ScriptHandler,
  initial: PatchProposal,
  rewritePatch: ReviewLoopDeps["rewritePatch"] = async () => null,
) {
  const model = await startScriptedModel(handler);
  cleanup.push(() => model.close());
  const chat = chatModelFor(model.baseURL);
  const pristine = await fx.states.pristine();
  const reproduction = await reproduceIssue(
    { model: chat, sandbox, config: fx.config },
    { issue: "the issue", workdir: pristine.dir },
  );
  await pristine.dispose();
  const baseline = await fx.states.baseline();
  const outcome = await runReviewLoop(
    {
      model: chat,
      sandbox,
      config: fx.config,
      states: fx.states,
      issue: "the issue",
      rewritePatch,
      validate: async (p) => {
        const copy = await fx.states.patched(p.diff);
        try {
          return (await validatePatched(sandbox, copy.dir, fx.config, baseline)).result;
        } finally {
          await copy.dispose();
        }
      },
    },
    initial,
    reproduction,
  );
  return { reproduction, outcome, requests: model.requests };
}

const PY_REPRO =
  "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";

test("python: reproduced, reviewed, validated and accepted", async () => {
  const fx = await fixture("py-shop");
  const good = diffFor(fx.dir, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
  const { reproduction, outcome, requests } = await reproduceAndReview(
    fx,
    (req) => {
      const kind = promptKind(req);
      if (kind === "has-example") return '{"has-reproducible-example": true}';
      if (kind === "repro-write") return fence("python", PY_REPRO);
      if (kind === "review") return verdict("yes", "yes");
      return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
    },
    proposal("p1", good),
  );
  assert.equal(reproduction.status, "reproduced");
  assert.equal(outcome.approved, true);
  assert.equal(outcome.rounds.length, 1);
  assert.equal(outcome.reproducerPasses, true);
  assert.equal(outcome.validation?.status, "passed");
  assert.equal(outcome.rounds[0]!.after?.exitCode, 0);
  // The reviewer saw the issue, the script, both runs and the patch.
  const review = requests.find((r) => promptKind(r) === "review")!.messages.at(-1)!.content!;
  assert.match(review, /the issue/);
  assert.match(review, /assert result == 90/);
  assert.match(review, /BEFORE the patch:\nResult: exit code 1[\s\S]*AssertionError: expected 90, got -900/);
  assert.match(review, /\+ {4}return price - price \* percent \/ 100/);
  assert.match(review, /AFTER the patch:\nResult: exit code 0/);
});

test("python: the reviewer says the test is wrong, it is rewritten, then the patch is accepted", async () => {
  const fx = await fixture("py-shop");
  const good = diffFor(fx.dir, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
  // Reproduces (fails before) but expects the wrong value, so it also fails after a correct patch.
  const wrongTest =
    "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 10, f'expected 10, got {result}'\n";
  let reviews = 0;
  const { outcome, requests } = await reproduceAndReview(
    fx,
    (req) => {
      const kind = promptKind(req);
      if (kind === "has-example") return '{"has-reproducible-example": true}';
      if (kind === "repro-write") return fence("python", wrongTest);
      if (kind === "rewrite-test") return fence("python", PY_REPRO);
      if (kind === "review") {
        reviews++;
        return reviews === 1
          ? verdict("yes", "no", "10% off 100 is 90, not 10: assert 90")
          : verdict("yes", "yes");
      }
      return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
    },
    proposal("p1", good),
  );
  assert.equal(outcome.approved, true);
  assert.deepEqual(
    outcome.rounds.map((r) => [r.action, r.scriptVersion, r.after?.exitCode]),
    [
      ["rewrite-test", 1, 1],
      ["accepted", 2, 0],
    ],
  );
  assert.match(outcome.reproduction.script ?? "", /result == 90/);
  const rewrite = requests.find((r) => promptKind(r) === "rewrite-test")!;
  assert.match(rewrite.messages.at(-1)!.content!, /assert 90/);
  // The rewrite continues the conversation that wrote the first script.
  assert.ok(rewrite.messages.some((m) => m.content?.includes("expected 10")));
});

test("python: not reproducible, so there is no review", async () => {
  const fx = await fixture("py-shop");
  const good = diffFor(fx.dir, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
  const { reproduction, outcome, requests } = await reproduceAndReview(
    fx,
    (req) => (promptKind(req) === "has-example" ? '{"has-reproducible-example": false}' : { status: 500 }),
    proposal("p1", good),
  );
  assert.equal(reproduction.status, "no-example");
  assert.equal(outcome.approved, false);
  assert.equal(outcome.rounds.length, 0);
  assert.equal(outcome.summary, "not reviewed: no reproducer");
  assert.equal(requests.length, 1);
});

test("js: an accepted patch with a regression is rejected by validation and rewritten", async () => {
  const fx = await fixture("js-slug");
  const regressing = diffFor(
    fx.dir,
    "src/slug.js",
    'text.trim().toLowerCase().replace(" ", "-")',
    'text.trim().replace(/ /g, "-")',
  );
  const good = diffFor(fx.dir, "src/slug.js", '.replace(" ", "-")', '.replace(/\\s+/g, "-")');
  const guidance: string[] = [];
  const { reproduction, outcome } = await reproduceAndReview(
    fx,
    (req) => {
      const kind = promptKind(req);
      if (kind === "has-example") return '{"has-reproducible-example": true}';
      if (kind === "repro-write")
        return fence(
          "javascript",
          'import assert from "node:assert/strict";\nimport { slugify } from "./src/slug.js";\nassert.equal(slugify("a quick brown fox"), "a-quick-brown-fox");\n',
        );
      if (kind === "review") return verdict("yes", "yes");
      return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
    },
    proposal("regressing", regressing),
    async (text) => {
      guidance.push(text);
      return proposal("good", good);
    },
  );
  assert.equal(reproduction.status, "reproduced");
  assert.match(reproduction.lead ?? "", /AssertionError/);
  assert.equal(outcome.approved, true);
  assert.equal(outcome.final.id, "good");
  assert.deepEqual(
    outcome.rounds.map((r) => r.action),
    ["validation-failed", "accepted"],
  );
  assert.equal(outcome.rounds[0]!.validation?.status, "regressions");
  assert.deepEqual(outcome.rounds[0]!.validation?.regressions, [
    "test/slug.test.js > one word",
    "test/slug.test.js > two words",
  ]);
  assert.equal(guidance.length, 1);
  assert.match(guidance[0]!, /- test\/slug\.test\.js > one word\n- test\/slug\.test\.js > two words/);
  // Selection across the run's candidates prefers the approved, regression-free one.
  const sel = selectCandidate([
    {
      id: "regressing",
      status: "APPLICABLE_PATCH",
      reviewApproved: true,
      validation: outcome.rounds[0]!.validation,
    },
    { id: "good", status: "APPLICABLE_PATCH", reviewApproved: true, validation: outcome.validation },
  ]);
  assert.equal(sel.winner?.id, "good");
});

test("js: a regression with no better patch leaves the run unapproved", async () => {
  const fx = await fixture("js-slug");
  const regressing = diffFor(
    fx.dir,
    "src/slug.js",
    'text.trim().toLowerCase().replace(" ", "-")',
    'text.trim().replace(/ /g, "-")',
  );
  const { outcome } = await reproduceAndReview(
    fx,
    (req) => {
      const kind = promptKind(req);
      if (kind === "has-example") return '{"has-reproducible-example": true}';
      if (kind === "repro-write")
        return fence(
          "js",
          'import assert from "node:assert/strict";\nimport { slugify } from "./src/slug.js";\nassert.equal(slugify("a b c"), "a-b-c");\n',
        );
      return verdict("yes", "yes");
    },
    proposal("regressing", regressing),
  );
  assert.equal(outcome.approved, false);
  assert.equal(outcome.validation?.status, "regressions");
  assert.match(outcome.summary, /validation failed/);
});
