import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { agentScript, roleOf, searchSays } from "../support/agent-script.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { MEDIAN } from "./support/bugs.ts";
import { isExpansion, isReward, stageAgents } from "./support/run-strategy.ts";

// `auto-fix fix --strategy tree` and `strategy: tree` in the repository configuration, through the
// command line, the real openai client and the real sandbox.

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The median repository with a test for the reported case (failing before the fix). */
function repoWithFailingTest(config: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "tree-cli-"));
  dirs.push(dir);
  cpSync(MEDIAN.repo, dir, { recursive: true });
  writeFileSync(
    join(dir, "tests/test_even.py"),
    "import unittest\n\nfrom stats.median import median\n\n\nclass EvenTest(unittest.TestCase):\n    def test_even_length(self):\n        self.assertEqual(median([4, 1, 3, 2]), 2.5)\n",
  );
  if (config) {
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github/auto-fix.yml"), config);
  }
  return dir;
}

async function fixCli(repo: string, extra: string[], envOver: Record<string, string> = {}) {
  const agents = agentScript({
    search: [searchSays("The bug is in median.", { bug_locations: [MEDIAN.location] })],
    patch: [
      MEDIAN.linear[0]!,
      MEDIAN.linear[0]!,
      MEDIAN.linear[0]!,
      MEDIAN.linear[0]!,
      MEDIAN.linear[0]!,
      MEDIAN.linear[0]!,
    ],
  });
  const stages = stageAgents(MEDIAN);
  const server = await startScriptedModel((req, i) => {
    const text = String(req.messages.at(-1)?.content ?? "");
    if (isExpansion(req)) {
      const list = MEDIAN.expand(text);
      return { content: list[0] ?? "", choices: list.slice(1) };
    }
    if (isReward(req)) return JSON.stringify({ analysis: "scripted", score: MEDIAN.score(text) });
    if (roleOf(req) === "other")
      return stages(req) ?? { status: 500, body: { error: { message: "unscripted" } } };
    return agents(req, i);
  });
  const cwd = mkdtempSync(join(tmpdir(), "tree-cli-cwd-"));
  dirs.push(cwd);
  const issue = join(cwd, "issue.md");
  writeFileSync(issue, MEDIAN.issueText);
  const out: string[] = [];
  const err: string[] = [];
  const env = {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: "test",
    AUTO_FIX_MODEL: "gpt-4o-mini",
    AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
    AUTO_FIX_SANDBOX: "bwrap",
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...envOver,
  };
  try {
    const code = await main(["fix", "--repo", repo, "--issue", issue, "--out", "run", "--json", ...extra], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env,
      cwd,
      isTTY: false,
    });
    return {
      code,
      json: JSON.parse(out.join("")) as { status: string; patch: string | null; reason: string },
      dir: join(cwd, "run"),
      err: err.join(""),
      requests: server.requests,
    };
  } finally {
    await server.close();
  }
}

test("fix --strategy tree: the search runs on the repository's failing test and finds the depth-2 fix", async () => {
  const repo = repoWithFailingTest(null);
  const r = await fixCli(repo, ["--strategy", "tree", "--test-cmd", MEDIAN.testCmd]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.json.status, "fixed", r.json.reason);
  assert.match(r.json.patch ?? "", /\+ {4}return \(ordered\[mid\] \+ ordered\[mid - 1\]\) \/ 2\n/);
  assert.ok(r.requests.some(isExpansion));
  const report = readFileSync(join(r.dir, "report.md"), "utf8");
  assert.match(report, /## Tree search/);
  assert.match(report, /\*\*Solved\*\*/);
  assert.ok(readFileSync(join(r.dir, "tree/tree.json"), "utf8").includes('"format": "auto-fix/tree-search"'));
});

test("strategy: tree in .github/auto-fix.yml picks the tree search; --strategy linear overrides it", async () => {
  const config = `test: ${MEDIAN.testCmd}\nstrategy:\n  mode: tree\n  max_rollout: 4\n`;
  const tree = await fixCli(repoWithFailingTest(config), []);
  assert.equal(tree.json.status, "fixed", tree.json.reason);
  assert.match(readFileSync(join(tree.dir, "report.md"), "utf8"), /max_rollout 4/);
  const linear = await fixCli(repoWithFailingTest(config), ["--strategy", "linear"]);
  assert.equal(linear.requests.filter(isExpansion).length, 0);
  assert.doesNotMatch(readFileSync(join(linear.dir, "report.md"), "utf8"), /## Tree search/);
});

test("fix makes the run's one sandbox before the stages: when none can run, reproduce and the tree search both say why", async () => {
  const r = await fixCli(repoWithFailingTest(null), ["--strategy", "tree", "--test-cmd", MEDIAN.testCmd], {
    AUTO_FIX_SANDBOX: "docker",
  });
  // Nothing from the repository ran, but the linear writer still produced the (unchecked) patch.
  assert.equal(r.json.status, "patched", r.json.reason);
  assert.ok(r.json.patch);
  assert.equal(r.requests.some(isExpansion), false, "no tree expansion without checks to judge it");
  const report = readFileSync(join(r.dir, "report.md"), "utf8");
  assert.match(
    report,
    /no sandbox: the docker sandbox needs an image[^\n]*; nothing from the repository was run/,
  );
  assert.match(
    report,
    /tree search not run: no sandbox to run the checks in: the docker sandbox needs an image/,
  );
});
