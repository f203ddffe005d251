import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readSearchAnswer } from "../../src/agents/answer-read.ts";
import { runSearch } from "../../src/agents/search-agent.ts";
import { openCode } from "../../src/pipeline/open-code.ts";
import { agentScript, roleOf, searchSays } from "../support/agent-script.ts";
import { TEST_API_SPECS } from "../support/api-specs.ts";
import { FIX_FIXTURES } from "../support/fix-harness.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

const repo = join(FIX_FIXTURES, "py-stats");
const issue = { title: "mean() gives the wrong answer", body: "mean([1, 2, 3]) returns 3.0, not 2.0" };
const meanLocation = {
  file: "stats/summary.py",
  method: "mean",
  intended_behavior: "Divide by len(values).",
};

async function search(script: Parameters<typeof agentScript>[0]["search"], proxy?: (n: string) => string) {
  const agents = agentScript({ search: script, patch: [], ...(proxy ? { proxy } : {}) });
  const server = await startScriptedModel(agents);
  try {
    const t = makeTestModel(server.baseURL, { maxUnusable: 100 });
    const code = await openCode(repo, { cacheDir: null });
    const outcome = await runSearch(t.model, code.search, issue, { recorder: t.recorder, roundLimit: 4 });
    return { outcome, agents, requests: server.requests, dir: t.dir, usage: t.meter };
  } finally {
    await server.close();
  }
}

test("a bug located in one search round takes two requests: no proxy, no separate analysis turn", async () => {
  const r = await search([
    searchSays("The issue names mean().", { API_calls: ['search_method("mean")'] }),
    searchSays("mean divides by len - 1; it should divide by len.", { bug_locations: [meanLocation] }),
  ]);
  assert.equal(r.outcome.status, "located");
  assert.equal(r.outcome.locations[0]?.file, "stats/summary.py");
  assert.deepEqual(r.agents.counts, { search: 2, proxy: 0, patch: 0, other: 0 });
  // The one turn after the results carries the code found and asks to analyse and choose at once.
  const second = String(r.requests[1]?.messages.at(-1)?.content);
  assert.match(
    second,
    /Result of search_method\("mean"\):[\s\S]*return sum\(values\) \/ \(len\(values\) - 1\)/,
  );
  assert.match(second, /analyse these results[\s\S]*If you are confident where the bug is/);
  assert.equal(r.outcome.rounds[0]?.readFrom, "json");
  const read = JSON.parse(readFileSync(join(r.dir, "search/read-01.json"), "utf8"));
  assert.deepEqual(read.calls, ['search_method("mean")']);
});

test("calls written in the APIs' own syntax in prose are read as written, backslashes kept", async () => {
  const r = await search([
    'I will read search_method("mean") and look for comments with search_code_in_file("/\\*", "stats/summary.py").',
    searchSays("Found it.", { bug_locations: [meanLocation] }),
  ]);
  assert.equal(r.outcome.status, "located");
  assert.equal(r.agents.counts.proxy, 0);
  assert.equal(r.outcome.rounds[0]?.readFrom, "calls");
  assert.deepEqual(
    r.outcome.rounds[0]?.calls.map((c) => c.call),
    ['search_method("mean")', 'search_code_in_file("/\\*", "stats/summary.py")'],
  );
});

test("an answer with neither a JSON block nor calls goes to the proxy, once", async () => {
  const r = await search(
    ["Look at the mean function please.", searchSays("Found it.", { bug_locations: [meanLocation] })],
    () => JSON.stringify({ API_calls: ['search_method("mean")'], bug_locations: [] }),
  );
  assert.equal(r.outcome.status, "located");
  assert.deepEqual(r.agents.counts, { search: 2, proxy: 1, patch: 0, other: 0 });
  assert.equal(r.outcome.rounds[0]?.readFrom, "proxy");
  const proxyReq = r.requests.find((q) => roleOf(q) === "proxy")!;
  assert.match(String(proxyReq.messages[1]?.content), /Look at the mean function please/);
});

test("the JSON block decides: calls quoted in the prose are not run again, its locations end the search", async () => {
  const r = await search([
    searchSays("Start with mean.", { API_calls: ['search_method("mean")'] }),
    searchSays('search_method("mean") showed the division; search_method("median") is fine.', {
      bug_locations: [meanLocation],
    }),
  ]);
  assert.equal(r.outcome.status, "located");
  assert.equal(r.outcome.rounds.length, 2);
  assert.deepEqual(r.outcome.rounds[1]?.calls, []);
});

test("reading an answer: invalid calls in the block are named, a list of calls is read in order once", () => {
  const block = readSearchAnswer(
    'Text.\n```json\n{"API_calls": ["search_everything(\\"x\\")", "search_class(\\"A\\")"], "bug_locations": []}\n```',
    TEST_API_SPECS,
  );
  assert.deepEqual(
    block?.calls.map((c) => c.text),
    ['search_class("A")'],
  );
  assert.match(block?.dropped[0] ?? "", /'search_everything' is not one of the search APIs/);
  const prose = readSearchAnswer(
    "1. `search_class('Model')`\n2. search_method_in_class(\"save\", class_name=\"Model\")\n3. search_class('Model') again",
    TEST_API_SPECS,
  );
  assert.deepEqual(
    prose?.calls.map((c) => c.text),
    ['search_class("Model")', 'search_method_in_class("save", "Model")'],
  );
  // Code blocks of the repository's code are not a JSON block; an API name without a call is not a call.
  assert.equal(
    readSearchAnswer("```python\nx = {'a': 1}\n```\nI would use search_class next.", TEST_API_SPECS),
    null,
  );
});

test("a location for new code keeps its `add` and `after` keys", () => {
  const r = readSearchAnswer(
    '```json\n{"API_calls": [], "bug_locations": [{"file": "a.py", "class": "Model", "add": "to_dict", "after": "save", "intended_behavior": "serialise"}]}\n```',
    TEST_API_SPECS,
  );
  assert.deepEqual(r?.locations, [
    { file: "a.py", class: "Model", add: "to_dict", after: "save", intended_behavior: "serialise" },
  ]);
});

test("answers read directly are judged: JSON blocks with only invalid calls count as unusable", async () => {
  const bad = searchSays("Look.", { API_calls: ['search_everything("mean")'] });
  const agents = agentScript({ search: [bad, bad, bad, bad], patch: [] });
  const server = await startScriptedModel(agents);
  try {
    const t = makeTestModel(server.baseURL, { maxUnusable: 2 });
    const code = await openCode(repo, { cacheDir: null });
    await assert.rejects(
      runSearch(t.model, code.search, issue, { roundLimit: 4 }),
      /2 unusable answers in a row/,
    );
    assert.equal(agents.counts.search, 2, "no request after the limit");
    assert.equal(agents.counts.proxy, 0);
  } finally {
    await server.close();
  }
});
