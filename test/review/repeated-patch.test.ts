import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseIssueFile } from "../../src/agents/issue-text.ts";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import { renderPullBody } from "../../src/github/render/pr-body.ts";
import { runFix } from "../../src/pipeline/run-fix.ts";
import { createReproduceReviewHooks } from "../../src/pipeline/stage-hooks.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { agentScript, patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { type ChatRequest, startScriptedModel } from "../support/scripted-model.ts";
import { FIXTURES, fence, promptKind, verdict } from "./helpers.ts";
import { openCodeFor } from "./open-code.ts";

// A correct fix that changes behaviour one of the repository's own tests pins: the advice carries that
// test's failure message, and a patch the writer sends back unchanged is recognised before it is run or
// reviewed again, told so, and asked for another, within the review rounds.

let sandbox: SandboxPort;
const dirs: string[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const repo = join(FIXTURES, "py-pinned");
const LOCATION = {
  file: "shop/pricing.py",
  method: "apply_discount",
  intended_behavior: "reduce the price by percent/100 of itself",
};
const BUGGY = "    return price - price * percent";
/** Fixes the issue, and breaks `test_fraction_discount`, which pins the old behaviour. */
const CORRECT = patchAnswer("shop/pricing.py", BUGGY, "    return price - price * percent / 100");
/** Fixes the issue and keeps what the test pins. */
const COMPATIBLE = patchAnswer(
  "shop/pricing.py",
  BUGGY,
  "    return price - price * (percent if percent < 1 else percent / 100)",
);
const REPRO =
  "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";

async function pinnedRun(patches: string[], tune: (c: RepoConfig) => void = () => {}) {
  const agents = agentScript({
    search: [searchSays("The bug is in apply_discount.", { bug_locations: [LOCATION] })],
    patch: patches,
  });
  const reviewed: string[] = [];
  const model = await startScriptedModel((req: ChatRequest, i) => {
    if (roleOf(req) !== "other") return agents(req, i);
    const kind = promptKind(req);
    if (kind === "review") {
      reviewed.push(/\+ {4}(return .*)/.exec(String(req.messages.at(-1)?.content))?.[1] ?? "?");
      return verdict("yes", "yes");
    }
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (String(req.messages[0]?.content ?? "").startsWith("You write regression tests")) return "No test.";
    return fence("python", REPRO);
  });
  const out = mkdtempSync(join(tmpdir(), "af-pinned-"));
  dirs.push(out);
  const tm = makeTestModel(model.baseURL, { dir: out });
  const hooks = createReproduceReviewHooks();
  // Every test run in the sandbox, with the line of the patched function it ran on.
  const testRuns: string[] = [];
  const box: SandboxPort = {
    kind: sandbox.kind,
    run: (req) => {
      const cmd = Array.isArray(req.command) ? req.command.join(" ") : req.command;
      if (/pytest/.test(cmd)) {
        const code = readFileSync(join(req.workdir, "shop/pricing.py"), "utf8");
        testRuns.push(/ {4}(return price - .*)/.exec(code)?.[1] ?? "?");
      }
      return sandbox.run(req);
    },
    capabilities: () => sandbox.capabilities(),
    ...(sandbox.adoptTree ? { adoptTree: (d: string) => sandbox.adoptTree!(d) } : {}),
  };
  const config = loadRepoConfig(repo);
  tune(config);
  try {
    const result = await runFix(
      { repo, issue: parseIssueFile(readFileSync(join(repo, "ISSUE.md"), "utf8")), out },
      {
        model: tm.model,
        meter: tm.meter,
        recorder: tm.recorder,
        config,
        sandbox: { port: box, problem: null },
        openCode: openCodeFor,
        hooks,
      },
    );
    return { result, out, requests: model.requests, reviewed, testRuns };
  } finally {
    await hooks.dispose();
    await model.close();
  }
}

const patchRequests = (requests: ChatRequest[]) => requests.filter((r) => roleOf(r) === "patch");
const lastText = (r: ChatRequest) => String(r.messages.at(-1)?.content ?? "");

test("a resent patch is not validated or reviewed again; the advice carries the pinned test's message", async () => {
  const { result, out, requests, reviewed, testRuns } = await pinnedRun([
    CORRECT,
    CORRECT,
    CORRECT,
    COMPATIBLE,
  ]);
  assert.equal(result.status, "fixed", result.reason);
  assert.match(result.patch ?? "", /percent if percent < 1 else percent \/ 100/);

  // Reviewed once each: the correct patch, then the compatible one; the two resends never reached the reviewer.
  assert.deepEqual(reviewed, [
    "return price - price * percent / 100",
    "return price - price * (percent if percent < 1 else percent / 100)",
  ]);
  // The tests ran on the resent patch's program only for its first validation.
  const correctRuns = testRuns.filter((l) => l === "return price - price * percent / 100").length;
  assert.equal(correctRuns, 1, testRuns.join("\n"));

  // The advice after validation names the failing test and carries its failure message.
  const patches = patchRequests(requests);
  assert.equal(patches.length, 4);
  const advice = lastText(patches[1]!);
  assert.match(advice, /test_fraction_discount/);
  assert.match(advice, /legacy callers pass the discount as a fraction of 1/);
  assert.match(advice, /assert 99\.9 == 90/);
  // The resend is told in one sentence what happened to that patch, with the evidence again.
  for (const p of [patches[2]!, patches[3]!]) {
    const text = lastText(p);
    assert.match(
      text,
      /^This exact patch was already tried \(as linear-1\) and was not run or reviewed again: the reviewer accepted it, but the repository's tests reject it: [^\n]*test_fraction_discount[^\n]*; write a different patch\./m,
    );
    assert.match(text, /legacy callers pass the discount as a fraction of 1/);
  }

  // The loop's record: the resends took rounds of their own and ran nothing.
  const summary = JSON.parse(readFileSync(join(out, "linear-1/review/summary.json"), "utf8")) as {
    rounds: { round: number; patchId: string; action: string; after: unknown; note: string }[];
  };
  assert.deepEqual(
    summary.rounds.map((r) => [r.round, r.patchId, r.action]),
    [
      [1, "linear-1", "validation-failed"],
      [2, "linear-1-r1", "duplicate"],
      [3, "linear-1-r2", "duplicate"],
      [4, "linear-1-r3", "accepted"],
    ],
  );
  assert.equal(summary.rounds[1]!.after, null);
  // The resends are not candidates of the run.
  const selection = JSON.parse(readFileSync(join(out, "selection.json"), "utf8")) as {
    ranking: { id: string }[];
  };
  assert.deepEqual(selection.ranking.map((c) => c.id).sort(), ["linear-1", "linear-1-r3"]);

  const calls = requests.length;
  console.log(`model calls for the fixed bug (py-pinned, two resends): ${calls}`);
  // search 1 (its locations read from the answer, no proxy) + patch 4 + has-example 1 + reproducer 1 +
  // review 2 + regression test 2 (asked again when the answer holds no test). Without the check, each
  // resend cost a review too (13).
  assert.equal(calls, 11);
});

test("a writer that keeps resending the same patch ends the loop within the review rounds", async () => {
  const { result, requests, reviewed } = await pinnedRun(
    [CORRECT, CORRECT, CORRECT, CORRECT, CORRECT, CORRECT],
    (c) => {
      c.budgets.reviewRounds = 3;
    },
  );
  // One review; the initial patch and three asks (rounds 1, 2 and 3), each answered with the same patch.
  assert.equal(reviewed.length, 1);
  assert.equal(patchRequests(requests).length, 4);
  const review = result.review as { summary?: string; approved: boolean } | null;
  assert.equal(review?.approved, false);
  assert.match(
    JSON.stringify(result),
    /the patch writer kept sending the patch already tried as linear-1, and no review rounds are left/,
  );
  assert.notEqual(result.status, "fixed");
});

test("a patch resent with a claim that a failing test pins the old behaviour is judged in the open and ends patched", async () => {
  const claim = (id: string) =>
    `The failing test asserts the old behaviour.\nPINNED TEST: ${id} | "should return \`90\` (10% off)"\n\n`;
  const { result, out, requests, reviewed } = await pinnedRun([
    CORRECT,
    claim("tests/test_pricing.py::test_fraction_discount") + CORRECT,
  ]);
  // The resend with the claim reached the reviewer, with the failing test and the claim in view.
  assert.equal(reviewed.length, 2, reviewed.join("\n"));
  const reviews = requests.filter((r) => roleOf(r) === "other" && promptKind(r) === "review");
  const seen = lastText(reviews[1]!);
  assert.match(
    seen,
    /The repository's tests fail with this patch: tests\/test_pricing\.py::test_fraction_discount\. The patch writer claims each of these tests asserts the behaviour the issue asks to change/,
  );
  assert.match(
    seen,
    /tests\/test_pricing\.py::test_fraction_discount: asserts the old behaviour; the issue says "should return `90` \(10% off\)"/,
  );
  assert.doesNotMatch(lastText(reviews[0]!), /claims/);
  // The rewrite request kept what the writer said with its previous patch... and offered the fixed form.
  const patches = patchRequests(requests);
  assert.match(lastText(patches[1]!), /PINNED TEST: \[test id\] \| "\[words of the issue\]"/);
  // Never "fixed" with a failing test; the test that pins the old behaviour is named for the maintainer.
  assert.equal(result.status, "patched", result.reason);
  assert.match(result.patch ?? "", /percent \/ 100/);
  const summary = JSON.parse(readFileSync(join(out, "linear-1/review/summary.json"), "utf8")) as {
    approved: boolean;
    summary: string;
  };
  assert.equal(summary.approved, true);
  assert.match(
    summary.summary,
    /test_fraction_discount fails with the patch; the patch writer claims it pins/,
  );
  // The pull request names the test that pins the old behaviour, for the maintainer to update.
  const body = renderPullBody({
    issueNumber: 1,
    issueTitle: "apply_discount gives negative prices",
    result,
    run: 1,
    seconds: 1,
    model: "scripted",
    files: ["shop/pricing.py"],
    artifactsPath: out,
  }).full;
  assert.match(
    body,
    /\*\*A test pins the old behaviour\?\*\* tests\/test\\?_pricing\.py::test\\?_fraction\\?_discount fails with the patch/,
  );
});
