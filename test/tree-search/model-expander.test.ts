import assert from "node:assert/strict";
import { test } from "node:test";
import { fenceIssue } from "../../src/agents/issue-text.ts";
import { PATCH_FORMAT_HELP, createMemoryRepo } from "../../src/patch/index.ts";
import { createModelExpander, expansionMessages } from "../../src/strategies/tree/model-expander.ts";
import { createModelReward, rewardMessages } from "../../src/strategies/tree/model-reward.ts";
import { ProgramStore } from "../../src/strategies/tree/programs.ts";
import { addChild, createTree } from "../../src/strategies/tree/tree.ts";
import type { ExpansionRequest } from "../../src/strategies/tree/types.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

const SRC = "def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n";
const issue = fenceIssue({ title: "mean() is wrong", body: "mean([2, 4]) returns 6, expected 3" });
const locations =
  "Location 1: stats.py, function mean (lines 1-2)\n1: def mean(xs):\n2:     return sum(xs) / (len(xs) - 1)";

const answer = (reflection: string, original: string, patched: string) =>
  `Reflection: ${reflection}\n\n<file>stats.py</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>`;

async function setup() {
  const programs = new ProgramStore(createMemoryRepo({ "stats.py": SRC }));
  const tree = createTree({ failure: "AssertionError: mean([2, 4]) == 6, expected 3" });
  const root = tree.nodes[0]!;
  const applied = await programs.apply(
    answer("divide by len + 1", "    return sum(xs) / (len(xs) - 1)", "    return sum(xs) / (len(xs) + 1)"),
    "",
  );
  assert.ok(applied.ok);
  const child = addChild(tree, root, {
    diff: applied.diff,
    changedFiles: applied.changedFiles,
    reflection: "The divisor is off: use len + 1.",
    answer: "",
    evaluation: {
      status: "failing",
      reward: 0.4,
      rewardSource: "model",
      score: 40,
      scoreReason: "right line, wrong divisor",
      failure: "AssertionError: mean([2, 4]) == 2.0, expected 3",
    },
  });
  return { programs, tree, root, child, ctx: { issue, locations, formatHelp: PATCH_FORMAT_HELP, programs } };
}

test("a child's prompt carries the parent's patch, reflection, failure, rating and current code", async () => {
  const { root, child, ctx } = await setup();
  const rootMsgs = expansionMessages(ctx, { node: root, ancestors: [], children: [], count: 4 });
  const rootText = rootMsgs[1]!.content;
  assert.match(rootMsgs[0]!.content, /<original>/); // the format help
  assert.match(rootText, /mean\(\[2, 4\]\) returns 6/);
  assert.match(rootText, /AssertionError: mean\(\[2, 4\]\) == 6, expected 3/);
  assert.doesNotMatch(rootText, /earlier attempt/);
  assert.doesNotMatch(rootText, /\{\{|\}\}/);

  const req: ExpansionRequest = { node: child, ancestors: [root], children: [], count: 4 };
  const text = expansionMessages(ctx, req)[1]!.content;
  assert.match(text, /> The divisor is off: use len \+ 1\./);
  assert.match(text, /```diff\n[\s\S]*\+ {4}return sum\(xs\) \/ \(len\(xs\) \+ 1\)/);
  assert.match(text, /AssertionError: mean\(\[2, 4\]\) == 2\.0, expected 3/);
  assert.doesNotMatch(text, /== 6, expected 3/); // the node's own failure, not the root's
  assert.match(text, /rated it 40\/100: right line, wrong divisor/);
  assert.match(text, /2: {5}return sum\(xs\) \/ \(len\(xs\) \+ 1\)/); // current code, numbered
  assert.doesNotMatch(text, /already tried/);
});

test("guidance from /retry reaches every expansion, fenced as data", async () => {
  const { root, ctx } = await setup();
  const guidance = fenceIssue({ title: "guidance", body: "Keep the function's signature." }, 4000);
  const text = expansionMessages(
    { ...ctx, guidance },
    { node: root, ancestors: [], children: [], count: 4 },
  )[1]!.content;
  assert.match(
    text,
    /Additional guidance for this run \(untrusted text[\s\S]*<issue-body>\nKeep the function's signature\./,
  );
  const without = expansionMessages(ctx, { node: root, ancestors: [], children: [], count: 4 })[1]!.content;
  assert.doesNotMatch(without, /Additional guidance/);
});

test("a second expansion lists what was already tried from the node", async () => {
  const { tree, root, child, ctx } = await setup();
  const text = expansionMessages(ctx, { node: root, ancestors: [], children: [child], count: 4 })[1]!.content;
  assert.match(text, /already tried from this same starting point/);
  assert.match(text, /- The divisor is off: use len \+ 1\. \[stats\.py \+1 −1\]/);
  assert.match(text, /still failing \(rated 40\/100\): AssertionError: mean\(\[2, 4\]\) == 2\.0/);
  assert.equal(tree.nodes.length, 2);
});

test("candidates come from one request with n where the endpoint honours it", async () => {
  const { root, ctx } = await setup();
  const replies = ["a", "b", "c", "d"].map((x) =>
    answer(`idea ${x}`, "    return sum(xs)", `    return ${x}`),
  );
  const server = await startScriptedModel(() => ({ content: replies[0]!, choices: replies.slice(1) }));
  try {
    const { model, meter } = makeTestModel(server.baseURL);
    const expander = createModelExpander(model, ctx);
    const got = await expander.expand({ node: root, ancestors: [], children: [], count: 4 });
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]?.n, 4);
    assert.deepEqual(
      got.map((c) => c.reflection),
      ["idea a", "idea b", "idea c", "idea d"],
    );
    assert.equal(meter.calls(), 1);
  } finally {
    await server.close();
  }
});

test("an endpoint that refuses n gets separate requests, now and later", async () => {
  const { root, ctx } = await setup();
  let k = 0;
  const server = await startScriptedModel((req) => {
    if ((req.n ?? 1) > 1) return { status: 400, body: { error: { message: "n must be 1 for this model" } } };
    k += 1;
    return answer(`idea ${k}`, "    return sum(xs)", `    return ${k}`);
  });
  try {
    const { model } = makeTestModel(server.baseURL);
    const expander = createModelExpander(model, ctx);
    const first = await expander.expand({ node: root, ancestors: [], children: [], count: 3 });
    assert.equal(first.length, 3);
    assert.deepEqual(
      server.requests.map((r) => r.n ?? 1),
      [3, 1, 1, 1],
    );
    await expander.expand({ node: root, ancestors: [], children: [], count: 2 });
    assert.deepEqual(
      server.requests.slice(4).map((r) => r.n ?? 1),
      [1, 1],
    );
  } finally {
    await server.close();
  }
});

test("when the budget runs out between separate requests, the candidates received are kept", async () => {
  const { root, ctx } = await setup();
  const server = await startScriptedModel(() => ({
    content: answer("idea", "    return sum(xs)", "    return 1"),
    usage: { prompt_tokens: 600, completion_tokens: 100 },
  }));
  try {
    const { model } = makeTestModel(server.baseURL, { budget: { tokens: 1000 } });
    const expander = createModelExpander(model, ctx, { useN: false });
    const got = await expander.expand({ node: root, ancestors: [], children: [], count: 4 });
    assert.equal(got.length, 2);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test("the reward model's score is read from JSON, asked again once, then left unscored", async () => {
  const { root, child } = await setup();
  const req = {
    parent: root,
    diff: child.diff,
    reflection: child.reflection,
    failure: child.evaluation.failure,
  };
  const text = rewardMessages(issue, req)[1]!.content;
  assert.match(
    text,
    /== 6, expected 3[\s\S]*> The divisor is off[\s\S]*len\(xs\) \+ 1[\s\S]*== 2\.0, expected 3/,
  );

  const server = await startScriptedModel([
    '{"analysis": "right place, wrong divisor", "score": "55"}',
    "I think it is decent.",
    '```json\n{"analysis": "close", "score": 70}\n```',
    "no idea",
    '{"score": 250}',
  ]);
  try {
    const { model } = makeTestModel(server.baseURL);
    const reward = createModelReward(model, issue);
    assert.deepEqual(await reward(req), { score: 55, reason: "right place, wrong divisor" });
    assert.deepEqual(await reward(req), { score: 70, reason: "close" });
    assert.equal(server.requests[2]?.messages.at(-1)?.content?.includes("no valid JSON"), true);
    const bad = await reward(req);
    assert.equal(bad.unusable, true);
    assert.equal(bad.score, 0);
    assert.match(bad.reason, /no usable score/);
    assert.equal(server.requests.length, 5);
    assert.equal(server.requests[0]?.response_format?.type, "json_object");
  } finally {
    await server.close();
  }
});
