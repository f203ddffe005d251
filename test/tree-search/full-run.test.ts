import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { FixContext } from "../../src/contract/pipeline.ts";
import { createReproduceReviewHooks } from "../../src/pipeline/stage-hooks.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { TreeStates } from "../../src/validate/index.ts";
import { configuredStrategy } from "../../src/strategies/configured.ts";
import { fence, promptKind, verdict } from "../review/helpers.ts";
import type { ChatRequest } from "../support/scripted-model.ts";
import { MEDIAN } from "./support/bugs.ts";
import { isExpansion, isReward, patchFixes, runStrategy } from "./support/run-strategy.ts";

// The whole pipeline with its reproduce, review and validation stages: the reproducer the model writes
// becomes the tree search's check, and the reviewer judges the patch the search found.

let sandbox: SandboxPort;
const hooksToDispose: { dispose(): Promise<void> }[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const h of hooksToDispose) await h.dispose();
});

/** The reproducer writer and the reviewer: only true division is approved. */
function others(req: ChatRequest): string | null {
  const kind = promptKind(req);
  if (kind === "has-example") return '{"has-reproducible-example": true}';
  if (kind.startsWith("repro") || kind === "rewrite-test") return fence("python", MEDIAN.reproducer);
  if (kind === "review" || kind === "review-retry") {
    const text = JSON.stringify(req.messages);
    return text.includes("+    return (ordered[mid] + ordered[mid - 1]) / 2")
      ? verdict("yes", "yes")
      : verdict("no", "yes", "the even case still loses the half: use true division");
  }
  return null;
}

function hooks() {
  const h = createReproduceReviewHooks();
  hooksToDispose.push(h);
  return h;
}

test("with the reproduce and review stages: the tree search checks with the model's reproducer and is approved", async () => {
  const tree = await runStrategy(MEDIAN, "tree", {
    sandbox,
    use: configuredStrategy({ name: "tree" }),
    hooks: hooks(),
    others,
  });
  assert.equal(tree.result.status, "fixed", tree.result.reason);
  assert.equal(tree.result.reproduced, true);
  assert.equal((tree.result.review as { approved: boolean }).approved, true);
  assert.ok(await patchFixes(MEDIAN, tree.result.patch, sandbox));
  const report = readFileSync(join(tree.out, "report.md"), "utf8");
  assert.match(report, /Checks per candidate: reproducer `python3 reproducer\.py` \+ tests/);
  assert.match(report, /\*\*Solved\*\*/);

  // The linear pipeline, with its review loop, on the same bug and model: the reviewer's advice does not
  // bring the writer past its first idea, although it spends more calls than the tree search.
  const linear = await runStrategy(MEDIAN, "linear", {
    sandbox,
    use: configuredStrategy({ name: "linear" }),
    hooks: hooks(),
    others,
  });
  assert.notEqual(linear.result.status, "fixed");
  assert.equal(await patchFixes(MEDIAN, linear.result.patch, sandbox), false);
  assert.ok(linear.calls >= tree.calls, `linear ${linear.calls} calls, tree ${tree.calls}`);
  assert.equal(linear.requests.filter((r) => isExpansion(r) || isReward(r)).length, 0);
});

test("tree mode and the validation stage share one set-up tree and one set of unpatched test results", async () => {
  const { cpSync, mkdirSync, writeFileSync } = await import("node:fs");
  const { tempDir } = await import("../support/temp.ts");
  const repo = join(tempDir("af-shared-"), "repo");
  cpSync(MEDIAN.repo, repo, { recursive: true });
  mkdirSync(join(repo, ".github"), { recursive: true });
  writeFileSync(join(repo, ".github", "auto-fix.yml"), "setup: echo setup-ran\n");
  // Every command the sandbox runs, for counting.
  const commands: string[] = [];
  const counting: SandboxPort = {
    ...sandbox,
    run: (req) => {
      commands.push(Array.isArray(req.command) ? req.command.join(" ") : req.command);
      return sandbox.run(req);
    },
  };
  let job: FixContext["job"];
  const strategy = configuredStrategy({ name: "tree" });
  const h = createReproduceReviewHooks();
  hooksToDispose.push(h);
  const tree = await runStrategy(MEDIAN, "tree", {
    sandbox: counting,
    repo,
    use: {
      name: "tree",
      run: (ctx) => {
        job = ctx.job;
        return strategy.run(ctx);
      },
    },
    hooks: h,
    others,
  });
  assert.equal(tree.result.status, "fixed", tree.result.reason);
  assert.equal(commands.filter((c) => c === "echo setup-ran").length, 1, "setup runs once per job");
  const states = job?.trees;
  assert.ok(states instanceof TreeStates, "the validation stage hands its prepared trees to the tree search");
  // Every candidate (checked by the search, then validated) changes stats/median.py: the same tests are
  // selected, so the unpatched tree ran them once for the whole job, and never the whole suite apart.
  assert.equal(states.tests.runCount, 1, commands.join("\n"));
  assert.equal(states.tests.fullResult, undefined);
  const v = tree.result.validation as { tests?: { selected: { target: string }[]; pristineRuns: number } };
  assert.deepEqual(
    v.tests?.selected.map((s) => s.target),
    ["tests.test_median"],
  );
  assert.equal(v.tests?.pristineRuns, 0, "validation reused the results the search computed");
});
