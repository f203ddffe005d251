import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseIssueFile } from "../../src/agents/issue-text.ts";
import { patchAnswer, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES, read, runScriptedFix, treeDigest } from "../support/fix-harness.ts";

/** Model calls and tokens per stage of a run, as test diagnostics (figures for the documentation). */
function figures(t: { diagnostic: (m: string) => void }, out: string) {
  const { usageByStage } = JSON.parse(read(out, "timings.json")) as {
    usageByStage: Record<string, { calls: number; prompt_tokens: number; completion_tokens: number }>;
  };
  for (const [stage, u] of Object.entries(usageByStage)) {
    t.diagnostic(
      `${stage}: ${u.calls} call(s), ${u.prompt_tokens} prompt + ${u.completion_tokens} completion tokens`,
    );
  }
}

const issueOf = (repo: string, file: string) =>
  parseIssueFile(readFileSync(join(FIX_FIXTURES, repo, file), "utf8"));

test("Python: search, locate, patch; the user's tree is untouched and every artifact is on disk", async (t) => {
  const repo = join(FIX_FIXTURES, "py-stats");
  const before = treeDigest(repo);
  const run = await runScriptedFix(repo, issueOf("py-stats", "issue.md"), {
    search: [
      searchSays("The issue names mean(); let me look at it.", { API_calls: ['search_method("mean")'] }),
      searchSays(
        "mean() divides the sum by len(values) - 1; it should divide by len(values). The bug is in stats/summary.py, function mean.",
        {
          bug_locations: [
            { file: "stats/summary.py", method: "mean", intended_behavior: "Divide the sum by len(values)." },
          ],
        },
      ),
    ],
    patch: [
      patchAnswer(
        "stats/summary.py",
        "    return sum(values) / (len(values) - 1)",
        "    return sum(values) / len(values)",
      ),
    ],
  });
  const r = run.result;
  figures(t, run.out);
  assert.equal(r.status, "patched", r.reason);
  assert.match(
    r.patch ?? "",
    /- {4}return sum\(values\) \/ \(len\(values\) - 1\)\n\+ {4}return sum\(values\) \/ len\(values\)/,
  );
  assert.equal(r.reproduced, null);
  assert.equal(r.review, null);
  assert.equal(r.validation, null);
  assert.ok(r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
  assert.equal(treeDigest(repo), before, "the user's checkout must not change");
  // One request per search round: the calls and locations are read from the answers themselves.
  assert.deepEqual(run.script?.counts, { search: 2, proxy: 0, patch: 1, other: 0 });
  // The search prompt saw the issue fenced, without the hidden HTML comment.
  const first = run.server.requests[0]!;
  assert.match(
    String(first.messages[1]?.content),
    /<issue-title>mean\(\) gives the wrong answer<\/issue-title>/,
  );
  assert.doesNotMatch(String(first.messages[1]?.content), /Ignore all previous instructions/);
  // The search results went back to the model, and the patch prompt carries location + intended behaviour.
  assert.match(String(run.server.requests[1]?.messages.at(-1)?.content), /def mean\(values\)/);
  const patchReq = run.server.requests.find((q) =>
    String(q.messages[0]?.content).includes("fixing a reported bug"),
  )!;
  assert.match(String(patchReq.messages[1]?.content), /Divide the sum by len\(values\)\./);
  assert.match(String(patchReq.messages[1]?.content), /stats\/summary\.py/);
  assert.equal(read(run.out, "patch.diff"), r.patch);
  const report = read(run.out, "report.md");
  assert.match(report, /\*\*Status: patched\*\*/);
  assert.match(report, /stats\/summary\.py/);
  assert.match(report, /Intended behaviour: Divide the sum by len\(values\)\./);
  for (const f of [
    "search/round-01.md",
    "search/read-01.json",
    "search/read-02.json",
    "patch/attempt-1.md",
    "result.json",
    "model-calls/001-search-round-01-select.md",
  ]) {
    assert.ok(existsSync(join(run.out, f)), `${f} is written`);
  }
  assert.deepEqual(JSON.parse(read(run.out, "search/read-01.json")).calls, ['search_method("mean")']);
});

test("TypeScript: the class method is found through search_method_in_class and fixed", async (t) => {
  const repo = join(FIX_FIXTURES, "ts-cart");
  const run = await runScriptedFix(repo, issueOf("ts-cart", "issue.json"), {
    search: [
      searchSays("Look at Cart.subtotal.", { API_calls: ['search_method_in_class("subtotal", "Cart")'] }),
      searchSays("subtotal sums item.price but ignores item.quantity. Bug: Cart.subtotal in src/cart.ts.", {
        bug_locations: [{ class: "Cart", method: "subtotal", intended_behavior: "Sum price * quantity." }],
      }),
    ],
    patch: [
      patchAnswer(
        "src/cart.ts",
        "    return this.items.reduce((sum, item) => sum + item.price, 0);",
        "    return this.items.reduce((sum, item) => sum + item.price * item.quantity, 0);",
      ),
    ],
  });
  figures(t, run.out);
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.match(
    run.result.patch ?? "",
    /\+ {4}return this\.items\.reduce\(\(sum, item\) => sum \+ item\.price \* item\.quantity, 0\);/,
  );
  assert.match(run.result.patch ?? "", /--- a\/src\/cart\.ts/);
});

test("Java: an inapplicable first attempt goes back with the engine's message; the second applies", async (t) => {
  const repo = join(FIX_FIXTURES, "java-temp");
  const run = await runScriptedFix(repo, issueOf("java-temp", "issue.txt"), {
    search: [
      searchSays("Find the Temperature class.", {
        API_calls: ['search_class("Temperature")', 'search_method("toFahrenheit")'],
      }),
      searchSays("toFahrenheit subtracts 32 instead of adding it. Bug located.", {
        bug_locations: [
          {
            file: "Temperature.java",
            class: "Temperature",
            method: "toFahrenheit",
            intended_behavior: "Return celsius * 9 / 5 + 32.",
          },
        ],
      }),
    ],
    patch: [
      {
        content: patchAnswer(
          "src/main/java/com/example/Temperature.java",
          "        return celsius * 9 / 5 - 23;",
          "        return celsius * 9 / 5 + 32;",
        ),
        finishReason: "length",
      },
      patchAnswer(
        "src/main/java/com/example/Temperature.java",
        "        return celsius * 9 / 5 - 32;",
        "        return celsius * 9 / 5 + 32;",
      ),
    ],
  });
  figures(t, run.out);
  assert.equal(run.result.status, "patched", run.result.reason);
  assert.match(run.result.patch ?? "", /\+ {8}return celsius \* 9 \/ 5 \+ 32;/);
  const patchReqs = run.server.requests.filter((q) =>
    String(q.messages[0]?.content).includes("fixing a reported bug"),
  );
  assert.equal(patchReqs.length, 2);
  const retry = String(patchReqs[1]?.messages.at(-1)?.content);
  assert.match(retry, /attempt 1 of 3\) could not be applied: RAW_PATCH_BUT_UNMATCHED/);
  assert.match(retry, /cut off at the output token limit/);
  assert.match(read(run.out, "patch/attempt-1.md"), /Status: RAW_PATCH_BUT_UNMATCHED/);
  assert.match(read(run.out, "report.md"), /patch attempt 1 \| raw patch but unmatched/);
});
