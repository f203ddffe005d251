import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { parseTreeJson } from "../../src/strategies/tree/serialize.ts";
import { MEDIAN, offsetBug } from "./support/bugs.ts";
import { isExpansion, isReward, patchFixes, runStrategy } from "./support/run-strategy.ts";

// Whole runs of the pipeline on fixture repositories: the scripted model plays every agent over HTTP
// (through the real openai client), candidates are checked in the real sandbox.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

test("a fix found only at depth 2: the tree search finds it, the linear loop with as many calls does not", async () => {
  const tree = await runStrategy(MEDIAN, "tree", { sandbox });
  assert.equal(tree.result.status, "fixed", tree.result.reason);
  assert.ok(tree.tree?.result.solved);
  const best = tree.tree!.result.best!;
  assert.equal(best.depth, 2);
  assert.equal(best.evaluation.status, "passed");
  assert.ok(await patchFixes(MEDIAN, tree.result.patch, sandbox));
  // Every first-level candidate failed; the winner refines the best-scored one.
  const root = tree.tree!.result.tree.nodes[0]!;
  const first = root.childIds.map((id) => tree.tree!.result.tree.nodes[id]!);
  assert.ok(first.every((n) => n.evaluation.status !== "passed"));
  assert.equal(best.parentId, first.reduce((a, b) => (b.evaluation.reward > a.evaluation.reward ? b : a)).id);
  // The child's prompt carried its parent's patch and failure.
  const childPrompt = tree.requests.filter(isExpansion)[1]!.messages.at(-1)!.content!;
  assert.match(childPrompt, /\+ {4}return \(ordered\[mid\] \+ ordered\[mid - 1\]\) \/\/ 2/);
  assert.match(childPrompt, /returned 2, expected 2\.5/);

  const patchCalls = tree.requests.filter((r) => isExpansion(r) || isReward(r)).length;
  assert.equal(patchCalls, 5); // 2 expansions (n = 4 each) + 3 reward scores
  const linear = await runStrategy(MEDIAN, "linear", { sandbox, patchAttempts: patchCalls });
  assert.ok(linear.calls <= tree.calls, `linear used ${linear.calls} calls, tree ${tree.calls}`);
  assert.notEqual(linear.result.patch, null);
  assert.equal(await patchFixes(MEDIAN, linear.result.patch, sandbox), false);

  // The tree is saved with the artifacts and shown in report.md.
  const saved = parseTreeJson(readFileSync(join(tree.out, "tree/tree.json"), "utf8"));
  assert.ok(saved.ok);
  assert.equal(saved.file.bestId, best.id);
  const report = readFileSync(join(tree.out, "report.md"), "utf8");
  assert.match(report, /## Tree search/);
  assert.match(report, /- ★ root · value [\d.]+ · visits 2 · unpatched/);
  assert.match(report, new RegExp(`- ★ #${best.id} · value 1\\.00 · visits 0 · \\*\\*passed\\*\\*`));
});

test("the budget stops a hopeless search and the best candidate so far is reported", async () => {
  const bug = offsetBug();
  const run = await runStrategy(bug, "tree", { sandbox, budget: { tokens: 14_000 } });
  const report = run.tree!;
  assert.equal(report.result.stop, "budget");
  assert.equal(report.result.solved, false);
  assert.ok(report.result.stats.rollouts >= 2, `${report.result.stats.rollouts} rollouts`);
  const best = report.result.best!;
  const scored = report.result.tree.nodes.filter((n) => n.evaluation.rewardSource === "model");
  assert.equal(best.evaluation.reward, Math.max(...scored.map((n) => n.evaluation.reward)));
  assert.equal(run.result.status, "patched");
  assert.equal(run.result.patch, best.diff);
  const md = readFileSync(join(run.out, "report.md"), "utf8");
  assert.match(md, /\*\*Not solved\*\* — model budget spent/);
  assert.match(md, /Chosen: tree node #\d+/);
});
