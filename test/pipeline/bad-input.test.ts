import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { renderStatus } from "../../src/github/render/status-comment.ts";
import { pipelineStages } from "../../src/issue-run/run-report.ts";
import { roleOf, patchAnswer, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES, read, runScriptedFix } from "../support/fix-harness.ts";

const repo = join(FIX_FIXTURES, "py-stats");
const issue = { title: "mean() is wrong", body: "mean([2, 4, 6]) returns 6.0 instead of 4.0" };
const goodPatch = patchAnswer(
  "stats/summary.py",
  "    return sum(values) / (len(values) - 1)",
  "    return sum(values) / len(values)",
);
const locate = searchSays("Bug in mean.", {
  bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len(values)." }],
});

test("an empty issue ends in no-patch without calling the model", async () => {
  const run = await runScriptedFix(
    repo,
    { title: "  ", body: "<!-- only a comment -->\u200B" },
    { search: [], patch: [] },
  );
  assert.equal(run.result.status, "no-patch");
  assert.match(run.result.reason, /issue is empty/);
  assert.equal(run.server.requests.length, 0);
  assert.match(read(run.out, "report.md"), /Status: no-patch/);
  // No stage started: the status comment says "not tried" for each, never a failure.
  assert.deepEqual(run.result.stages_tried, []);
  const lines = pipelineStages(run.result);
  assert.equal(lines.length, 7);
  for (const [stage, line] of lines) assert.deepEqual(line, { status: "skipped", note: "not tried" }, stage);
  const comment = renderStatus({
    state: { runs: 1 },
    run: 1,
    maxRuns: 3,
    trigger: "labelled by @a",
    phase: "finished",
    stages: { cloned: { status: "done" }, ...Object.fromEntries(lines) },
    final: { ok: false, headline: run.result.reason, details: [], next: [] },
  });
  assert.doesNotMatch(comment, /❌/);
  assert.match(comment, /- ➖ Indexed the code — not tried/);
  assert.match(comment, /- ➖ Wrote a patch — not tried/);
});

test("a 200 KB issue is cut to a bounded prompt and the run completes", async () => {
  const big = {
    title: "mean() is wrong",
    body: `mean([2, 4, 6]) returns 6.0.\n${"log line 1234567890\n".repeat(10_500)}`,
  };
  assert.ok(big.body.length > 200_000);
  const run = await runScriptedFix(repo, big, { search: [locate], patch: [goodPatch] });
  assert.equal(run.result.status, "patched", run.result.reason);
  const firstPrompt = String(run.server.requests[0]?.messages[1]?.content);
  assert.ok(firstPrompt.length < 40_000, `prompt is ${firstPrompt.length} chars`);
  assert.match(firstPrompt, /characters of the issue omitted/);
  // An ordinary run lists the stages it started (this one has no reproducer, review or test stage).
  assert.deepEqual(run.result.stages_tried, ["index", "search", "patch"]);
  const shown = Object.fromEntries(pipelineStages(run.result));
  assert.deepEqual(
    [shown.indexed?.status, shown.located?.status, shown.patched?.status],
    ["done", "done", "done"],
  );
  assert.equal(shown.reviewed?.note, "not tried");
});

test("garbage and empty answers: the search retries, runs out of rounds, the patch falls back to history, no crash", async () => {
  const run = await runScriptedFix(
    repo,
    issue,
    {
      search: ["", "%%%% garbage ####", "still nothing useful"],
      patch: ["", "no patch here", "\u0000\u0001"],
    },
    // More unusable answers in a row than a run normally takes (AUTO_FIX_MAX_UNUSABLE_ANSWERS), to see
    // every later stage cope with them.
    { options: { roundLimit: 3 }, maxUnusable: 100 },
  );
  assert.equal(run.result.status, "no-patch");
  assert.match(run.result.reason, /round limit \(3 rounds\)/);
  assert.match(run.result.reason, /3 patch attempt\(s\), none applicable/);
  const searchReqs = run.server.requests.filter((q) => roleOf(q) === "search");
  assert.match(
    String(searchReqs[1]?.messages.at(-1)?.content),
    /could not be turned into search calls or bug locations/,
  );
  const patchReq = run.server.requests.find((q) => roleOf(q) === "patch")!;
  assert.match(String(patchReq.messages[1]?.content), /did not pin down exact bug locations/);
  assert.match(read(run.out, "report.md"), /NO_PATCH/);
  assert.ok(existsSync(join(run.out, "search/round-03.md")));
});

test("unknown APIs and nonexistent files: the model is told precisely and the search continues", async () => {
  const run = await runScriptedFix(repo, issue, {
    search: [
      searchSays("Find it.", { API_calls: ['search_everything("mean")'] }),
      searchSays("The bug is in a file.", {
        bug_locations: [{ file: "src/does_not_exist.py", method: "nothing_here", intended_behavior: "x" }],
      }),
      searchSays("Then search.", { API_calls: ['search_method("mean")'] }),
      locate,
    ],
    patch: [goodPatch],
  });
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.equal(run.script?.counts.proxy, 0, "every answer was read from its own JSON block");
  const searchReqs = run.server.requests.filter((q) => roleOf(q) === "search");
  assert.match(
    String(searchReqs[1]?.messages.at(-1)?.content),
    /None of your API calls can be run:\n- 'search_everything' is not one of the search APIs/,
  );
  assert.match(
    String(searchReqs[2]?.messages.at(-1)?.content),
    /None of the bug locations you gave matches code in the repository \(file src\/does_not_exist\.py, method nothing_here: .*No file src\/does_not_exist\.py in the repository/,
  );
});

test("an invalid call next to valid ones is reported back with the results", async () => {
  const run = await runScriptedFix(repo, issue, {
    search: [
      searchSays("Two calls.", { API_calls: ['search_method("mean")', 'search_method_in_class("mean")'] }),
      locate,
    ],
    patch: [goodPatch],
  });
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.equal(run.script?.counts.proxy, 0, "both answers were read from their own JSON blocks");
  const analyze = run.server.requests.filter((q) => roleOf(q) === "search")[1]!;
  const results = String(analyze.messages.at(-1)?.content);
  assert.match(results, /Result of search_method\("mean"\):[\s\S]*def mean/);
  assert.match(results, /These calls could not be run:\n- search_method_in_class takes 2 argument/);
  assert.match(read(run.out, "search/round-01.md"), /These calls could not be run/);
});

test("a model that repeats the same search is told so and stopped", async () => {
  const same = searchSays("Search mean again.", { API_calls: ['search_method("mean")'] });
  const run = await runScriptedFix(repo, issue, {
    search: [same, same, same, same],
    patch: [goodPatch],
  });
  const searchReqs = run.server.requests.filter((q) => roleOf(q) === "search");
  assert.match(String(searchReqs[2]?.messages.at(-1)?.content), /already made this call in round 1/);
  assert.equal(run.result.status, "patched");
  assert.match(read(run.out, "report.md"), /Search: repeating after 4 round/);
});

test("a conversation that outgrows the context window is trimmed and the run goes on", async () => {
  let trimmedSeen = false;
  const steps = [
    searchSays("Look.", { API_calls: ['search_method("mean")'] }),
    searchSays("More.", { API_calls: ['search_method("median")'] }),
    searchSays("More.", { API_calls: ['search_class("Summary")'] }),
    locate,
  ];
  let i = 0;
  const handler = (req: Parameters<typeof roleOf>[0]) => {
    const role = roleOf(req);
    if (role === "proxy") {
      const notes = String(req.messages[1]?.content);
      return (
        notes
          .split("\n")
          .find((l) => l.startsWith("JSON:"))
          ?.slice(5) ?? "{}"
      );
    }
    if (role === "patch") return goodPatch;
    if (req.messages.length > 7) {
      return {
        status: 400,
        body: { error: { message: "maximum context length exceeded", code: "context_length_exceeded" } },
      };
    }
    if (req.messages.some((m) => String(m.content).includes("removed to fit the context window")))
      trimmedSeen = true;
    return steps[i++] ?? "nothing";
  };
  const run = await runScriptedFix(repo, issue, handler);
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.ok(trimmedSeen, "a trimmed conversation reached the model");
});

test("an endpoint that times out and returns 500s ends in a clear error, with the report on disk", async () => {
  const run = await runScriptedFix(
    repo,
    issue,
    () => ({ status: 500, body: { error: { message: "upstream exploded" } } }),
    {
      config: { maxRetries: 2 },
    },
  );
  assert.equal(run.result.status, "error");
  assert.match(run.result.reason, /model endpoint is unavailable: .*failed 3 time.*upstream exploded/);
  assert.match(read(run.out, "report.md"), /Status: error/);
  assert.ok(existsSync(join(run.out, "model-calls/001-search-round-01-select.json")));
  assert.ok(existsSync(join(run.out, "error.txt")));

  const slow = await runScriptedFix(repo, issue, () => ({ content: "late", delayMs: 1000 }), {
    config: { maxRetries: 1, timeoutMs: 100 },
  });
  assert.equal(slow.result.status, "error");
  assert.match(slow.result.reason, /timed out/);
});

test("the budget stops the run cleanly, keeping the report and the rounds so far", async () => {
  const run = await runScriptedFix(
    repo,
    issue,
    {
      search: [searchSays("Look.", { API_calls: ['search_method("mean")'] }), locate],
      patch: [goodPatch],
    },
    { budget: { tokens: 1500 } },
  );
  assert.equal(run.result.status, "no-patch");
  assert.match(run.result.reason, /model budget reached: \d+ of 1500 tokens spent/);
  assert.match(read(run.out, "report.md"), /Stopped by: model budget reached/);
  assert.ok(existsSync(join(run.out, "model-calls/001-search-round-01-select.md")));
});

test("locations named together with more searches do not end the search, but are used when rounds run out", async () => {
  const both = searchSays("Maybe mean; let me also check median.", {
    API_calls: ['search_method("median")'],
    bug_locations: [
      { file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len(values)." },
    ],
  });
  const run = await runScriptedFix(
    repo,
    issue,
    { search: [both, "I am not sure what to do."], patch: [goodPatch] },
    // The last round's proxy answers are garbage five times: more than a run normally tolerates.
    { options: { roundLimit: 2 }, maxUnusable: 100 },
  );
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.equal(run.script?.counts.search, 2, "the first round's locations did not stop the search");
  const outcome = JSON.parse(read(run.out, "search/outcome.json"));
  assert.equal(outcome.status, "located");
  assert.equal(outcome.locations[0].file, "stats/summary.py");
});
