import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseIssueFile } from "../../src/agents/issue-text.ts";
import { loadRepoConfig } from "../../src/config/index.ts";
import { runFix } from "../../src/pipeline/run-fix.ts";
import { createReproduceReviewHooks } from "../../src/pipeline/stage-hooks.ts";
import { createSandbox, openRunSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { runCli } from "../cli/support.ts";
import { agentScript, patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { type ChatRequest, startScriptedModel } from "../support/scripted-model.ts";
import { FIXTURES, fence, promptKind, verdict } from "./helpers.ts";
import { openCodeFor } from "./open-code.ts";

// Whole runs of the pipeline (search → patch → reproduce/review → validation → selection) on fixture
// repositories, with the scripted model playing every agent over HTTP and the real sandbox.

let sandbox: SandboxPort;
const dirs: string[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Reply = string | { status: number; body?: unknown };
interface Script {
  location: { file: string; method: string; intended_behavior: string };
  patches: string[];
  reviewer: (req: ChatRequest, n: number) => Reply;
  reproducer: (kind: string, n: number) => Reply;
}

async function fullRun(repoName: string, script: Script) {
  const agents = agentScript({
    search: [searchSays("The bug is in this function.", { bug_locations: [script.location] })],
    patch: script.patches,
  });
  let reviews = 0;
  let repro = 0;
  const model = await startScriptedModel((req, i) => {
    if (roleOf(req) !== "other") return agents(req, i);
    const kind = promptKind(req);
    if (kind === "review" || kind === "review-retry") return script.reviewer(req, reviews++);
    return script.reproducer(kind, repro++);
  });
  const out = mkdtempSync(join(tmpdir(), "af-fullrun-"));
  dirs.push(out);
  const tm = makeTestModel(model.baseURL, { dir: out });
  const hooks = createReproduceReviewHooks();
  const repo = join(FIXTURES, repoName);
  try {
    const result = await runFix(
      { repo, issue: parseIssueFile(readFileSync(join(repo, "ISSUE.md"), "utf8")), out },
      {
        model: tm.model,
        meter: tm.meter,
        recorder: tm.recorder,
        config: loadRepoConfig(repo),
        sandbox: { port: sandbox, problem: null },
        openCode: openCodeFor,
        hooks,
      },
    );
    return { result, out, requests: model.requests };
  } finally {
    await hooks.dispose();
    await model.close();
  }
}

const PY_LOCATION = {
  file: "shop/pricing.py",
  method: "apply_discount",
  intended_behavior: "reduce the price by percent/100 of itself",
};
const PY_GOOD = patchAnswer(
  "shop/pricing.py",
  "    return price - price * percent",
  "    return price - price * percent / 100",
);
const PY_REPRO =
  "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 90, f'expected 90, got {result}'\n";

test("python: reproduced, then fixed, reviewed and validated", async () => {
  const { result, out, requests } = await fullRun("py-shop", {
    location: PY_LOCATION,
    patches: [PY_GOOD],
    reviewer: () => verdict("yes", "yes"),
    reproducer: (kind) =>
      kind === "has-example" ? '{"has-reproducible-example": true}' : fence("python", PY_REPRO),
  });
  assert.equal(result.status, "fixed", result.reason);
  assert.equal(result.reproduced, true);
  assert.match(result.patch ?? "", /\+ {4}return price - price \* percent \/ 100/);
  const review = result.review as Record<string, unknown>;
  assert.equal(review.approved, true);
  assert.equal(review["patch-correct"], "yes");
  assert.equal(review["test-correct"], "yes");
  assert.equal(review["patch-analysis"], "patch looks right");
  const reproducer = result.reproducer as {
    path: string;
    script: string;
    before: { stderr: string };
    after: { exitCode: number };
  };
  assert.equal(reproducer.path, "reproducer.py");
  assert.match(reproducer.script, /assert result == 90/);
  assert.match(reproducer.before.stderr, /AssertionError/);
  assert.equal(reproducer.after.exitCode, 0);
  assert.match(result.selection ?? "", /approved by the reviewer/);
  const validation = result.validation as { passed: boolean; regressions: string[] };
  assert.equal(validation.passed, true);
  assert.deepEqual(validation.regressions, []);
  assert.match(result.reason, /approved by the reviewer and regression-free/);
  // The reproducer's stderr reached the search agent as a lead.
  const searchFirst = requests.find((r) => roleOf(r) === "search")!;
  assert.match(searchFirst.messages[1]!.content!, /AssertionError: expected 90, got -900/);
  const selection = JSON.parse(readFileSync(join(out, "selection.json"), "utf8")) as { reason: string };
  assert.match(selection.reason, /candidate linear-1 won/);
  const report = readFileSync(join(out, "report.md"), "utf8");
  assert.match(report, /## Reproducer\n\nreproduced on attempt 1/);
  assert.match(report, /<details><summary>Reproducer <code>reproducer\.py<\/code>/);
  assert.match(report, /Before the patch: exit code 1\n\n```\n[\s\S]*AssertionError: expected 90, got -900/);
  assert.match(report, /After the chosen patch: exit code 0/);
  assert.match(
    report,
    /## Review\n\nApproved: yes — accepted in round 1[^\n]*\n\n\*\*Patch correct: yes\.\*\* patch looks right/,
  );
});

test("python: the reviewer finds the test wrong; it is rewritten and the patch accepted", async () => {
  const wrong =
    "from shop.pricing import apply_discount\nresult = apply_discount(100, 10)\nassert result == 10, f'expected 10, got {result}'\n";
  const { result } = await fullRun("py-shop", {
    location: PY_LOCATION,
    patches: [PY_GOOD],
    reviewer: (_req, n) =>
      n === 0 ? verdict("yes", "no", "10% off 100 is 90: assert 90") : verdict("yes", "yes"),
    reproducer: (kind) =>
      kind === "has-example"
        ? '{"has-reproducible-example": true}'
        : kind === "rewrite-test"
          ? fence("python", PY_REPRO)
          : fence("python", wrong),
  });
  assert.equal(result.status, "fixed", result.reason);
  const review = result.review as { approved: boolean; rounds: number };
  assert.equal(review.approved, true);
  assert.equal(review.rounds, 2);
  assert.match((result.reproducer as { script: string }).script, /result == 90/);
});

test("python: the right patch written only in the last review round is reviewed, validated and chosen", async () => {
  // Five wrong (but applicable) patches, then the right one: it is the rewrite asked for in round 5, the
  // loop's last; the run must still evaluate it like every other candidate.
  const wrong = ["10", "1000", "50", "200", "25"].map((d) =>
    patchAnswer(
      "shop/pricing.py",
      "    return price - price * percent",
      `    return price - price * percent / ${d}`,
    ),
  );
  const reviewed: string[] = [];
  const { result, out, requests } = await fullRun("py-shop", {
    location: PY_LOCATION,
    patches: [...wrong, PY_GOOD],
    reviewer: (req) => {
      const prompt = String(req.messages.at(-1)?.content ?? "");
      const divisor = /\+ {4}return price - price \* percent \/ (\d+)/.exec(prompt)?.[1] ?? "?";
      reviewed.push(divisor);
      return divisor === "100" ? verdict("yes", "yes") : verdict("no", "yes", "divide the percent by 100");
    },
    reproducer: (kind) =>
      kind === "has-example" ? '{"has-reproducible-example": true}' : fence("python", PY_REPRO),
  });
  assert.equal(result.status, "fixed", result.reason);
  assert.match(result.patch ?? "", /\+ {4}return price - price \* percent \/ 100\n/);
  // Every patch the model wrote was reviewed, the last one too, and nothing more was asked for.
  assert.equal(requests.filter((r) => roleOf(r) === "patch").length, 6);
  assert.deepEqual(reviewed, ["10", "1000", "50", "200", "25", "100"]);
  const review = result.review as { approved: boolean; rounds: number };
  assert.equal(review.approved, true);
  assert.equal(review.rounds, 6);
  assert.equal((result.validation as { passed: boolean }).passed, true);
  assert.equal((result.reproducer as { after: { exitCode: number } }).after.exitCode, 0);
  const selection = JSON.parse(readFileSync(join(out, "selection.json"), "utf8")) as {
    winner: { id: string };
  };
  assert.equal(selection.winner.id, "linear-1-r5");
  const summary = JSON.parse(readFileSync(join(out, "linear-1/review/summary.json"), "utf8")) as {
    rounds: { round: number; patchId: string; action: string }[];
  };
  assert.deepEqual(
    summary.rounds.map((r) => [r.round, r.patchId, r.action]),
    [
      [1, "linear-1", "rewrite-patch"],
      [2, "linear-1-r1", "rewrite-patch"],
      [3, "linear-1-r2", "rewrite-patch"],
      [4, "linear-1-r3", "rewrite-patch"],
      [5, "linear-1-r4", "rewrite-patch"],
      [6, "linear-1-r5", "accepted"],
    ],
  );
});

test("python: an issue without a reproducible example is patched and validated without review", async () => {
  const { result, requests } = await fullRun("py-shop", {
    location: PY_LOCATION,
    patches: [PY_GOOD],
    reviewer: () => ({ status: 500, body: { error: { message: "the reviewer must not be called" } } }),
    reproducer: (kind) =>
      kind === "has-example"
        ? '{"has-reproducible-example": false}'
        : { status: 500, body: { error: { message: kind } } },
  });
  assert.equal(result.reproduced, false);
  assert.equal(result.review, null);
  const validation = result.validation as { passed: boolean; status: string; before: { passed: number } };
  assert.equal(validation.passed, true);
  assert.equal(validation.status, "passed");
  assert.equal(validation.before.passed, 3);
  assert.notEqual(result.status, "error");
  assert.ok(result.patch);
  assert.equal(requests.filter((r) => promptKind(r) === "review").length, 0);
});

test("js: a regression is caught by validation, the patch rejected and rewritten", async () => {
  const regressing = patchAnswer(
    "src/slug.js",
    '  return text.trim().toLowerCase().replace(" ", "-");',
    '  return text.trim().replace(/ /g, "-");',
  );
  const good = patchAnswer(
    "src/slug.js",
    '  return text.trim().toLowerCase().replace(" ", "-");',
    '  return text.trim().toLowerCase().replace(/\\s+/g, "-");',
  );
  const { result, out, requests } = await fullRun("js-slug", {
    location: { file: "src/slug.js", method: "slugify", intended_behavior: "replace every run of spaces" },
    patches: [regressing, good],
    reviewer: () => verdict("yes", "yes"),
    reproducer: (kind) =>
      kind === "has-example"
        ? '{"has-reproducible-example": true}'
        : fence(
            "javascript",
            'import assert from "node:assert/strict";\nimport { slugify } from "./src/slug.js";\nassert.equal(slugify("a quick brown fox"), "a-quick-brown-fox");\n',
          ),
  });
  // No repository test fails before the patch; `npm test` runs the script's `node --test`, whose tests
  // are named by file: the related test that loads the patched code ran on both trees, and the
  // reproducer shows the fix.
  assert.equal(result.status, "fixed", result.reason);
  assert.match(
    result.reason,
    /the 1 related test that loads the patched code ran before and after the patch with no regression/,
  );
  assert.match(result.patch ?? "", /replace\(\/\\s\+\/g, "-"\)/);
  assert.equal((result.validation as { passed: boolean }).passed, true);
  // The rewrite request carried the regressions as feedback.
  const patchReqs = requests.filter((r) => roleOf(r) === "patch");
  assert.equal(patchReqs.length, 2);
  assert.match(JSON.stringify(patchReqs[1]!.messages), /one word/);
  const selection = JSON.parse(readFileSync(join(out, "selection.json"), "utf8")) as {
    ranking: { id: string; tier: number; why: string }[];
  };
  const first = selection.ranking.find((r) => r.id === "linear-1")!;
  assert.equal(first.tier, 3);
  assert.match(first.why, /regressions: test\/slug\.test\.js > one word, test\/slug\.test\.js > two words/);
  assert.equal(selection.ranking[0]!.id, "linear-1-r1");
  const report = readFileSync(join(out, "report.md"), "utf8");
  assert.match(report, /## Candidates\n\ncandidate linear-1-r1 won/);
  assert.match(
    report,
    /\| linear-1 \| 3 \| status APPLICABLE_PATCH \(regressions: test\/slug\.test\.js > one word, test\/slug\.test\.js > two words\) \|/,
  );
  assert.match(report, /\| 1 \| linear-1 \| v1 \| validation-failed/);
});

test("a bad configuration file stops the command before anything is paid for; an unavailable sandbox is reported, and the run still ends in a result", async () => {
  const { cpSync, existsSync, mkdirSync, writeFileSync } = await import("node:fs");
  const repo = mkdtempSync(join(tmpdir(), "af-badcfg-"));
  dirs.push(repo);
  cpSync(join(FIXTURES, "py-shop"), repo, { recursive: true });
  mkdirSync(join(repo, ".github"));
  writeFileSync(join(repo, ".github", "auto-fix.yml"), "timeouts: { test: soon }\n");
  const agents = agentScript({
    search: [searchSays("The bug is here.", { bug_locations: [PY_LOCATION] })],
    patch: [PY_GOOD],
  });
  const model = await startScriptedModel((req, i) =>
    roleOf(req) !== "other"
      ? agents(req, i)
      : promptKind(req) === "has-example"
        ? '{"has-reproducible-example": true}'
        : fence("python", PY_REPRO),
  );
  const out = mkdtempSync(join(tmpdir(), "af-badcfg-out-"));
  dirs.push(out);
  try {
    const issue = parseIssueFile(readFileSync(join(repo, "ISSUE.md"), "utf8"));
    // The caller reads the configuration once: the command says what is wrong, names the file and the
    // field, and stops (exit 2) before the model is asked anything or a sandbox runs anything.
    const cli = await runCli(
      ["fix", "--repo", repo, "--issue", join(repo, "ISSUE.md"), "--out", join(out, "run"), "--json"],
      { env: { OPENAI_BASE_URL: model.baseURL, AUTO_FIX_MODEL: "gpt-4o-mini" }, cwd: out },
    );
    assert.equal(cli.code, 2, cli.err);
    assert.match(cli.err, /\.github\/auto-fix\.yml is not valid/);
    assert.match(cli.err, /timeouts\.test: expected a number of seconds/);
    assert.doesNotMatch(cli.err, /at .*\.ts:\d+/, "a message, not a stack trace");
    assert.equal(model.requests.length, 0, "nothing was paid for");
    assert.equal(existsSync(join(out, "run", "report.md")), false);

    // No sandbox can be made (docker asked for, without an image): nothing runs, the patch still comes back.
    const out2 = mkdtempSync(join(tmpdir(), "af-nosbx-out-"));
    dirs.push(out2);
    const tm2 = makeTestModel(model.baseURL, { dir: out2 });
    const hooks2 = createReproduceReviewHooks();
    const config2 = loadRepoConfig(join(FIXTURES, "py-shop"));
    const sandbox2 = await openRunSandbox(config2.sandbox, { AUTO_FIX_SANDBOX: "docker" });
    assert.equal(sandbox2.port, null);
    const agents2 = agentScript({
      search: [searchSays("Here.", { bug_locations: [PY_LOCATION] })],
      patch: [PY_GOOD],
    });
    const model2 = await startScriptedModel((req, i) => agents2(req, i));
    try {
      const r2 = await runFix(
        { repo: join(FIXTURES, "py-shop"), issue, out: out2 },
        {
          model: makeTestModel(model2.baseURL, { dir: out2 }).model,
          meter: tm2.meter,
          recorder: tm2.recorder,
          config: config2,
          sandbox: sandbox2,
          openCode: openCodeFor,
          hooks: hooks2,
        },
      );
      await hooks2.dispose();
      assert.notEqual(r2.status, "error");
      assert.ok(r2.patch);
      assert.equal(r2.reproduced, false);
      assert.equal(r2.validation, null);
      assert.match(
        readFileSync(join(out2, "report.md"), "utf8"),
        /no sandbox: the docker sandbox needs an image/,
      );
    } finally {
      await model2.close();
    }
  } finally {
    await model.close();
  }
});
