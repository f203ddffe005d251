import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FixResultSchema } from "../../src/contract/result.ts";
import { pipelineStages } from "../../src/issue-run/run-report.ts";
import { main } from "../../src/cli/main.ts";
import { agentScript, patchAnswer, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES, tmp, treeDigest } from "../support/fix-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

function io(env: NodeJS.ProcessEnv, cwd: string, isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env, cwd, isTTY },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

const repo = join(FIX_FIXTURES, "py-stats");
const issueFile = join(FIX_FIXTURES, "py-stats", "issue.md");

test("fix without a model configured says which variable to set and exits 2", async () => {
  const c = io({}, tmp("auto-fix-cwd-"));
  const code = await main(["fix", "--repo", repo, "--issue", issueFile], c.io);
  assert.equal(code, 2);
  assert.match(c.err(), /auto-fix fix: no model configured: set AUTO_FIX_MODEL .* and OPENAI_API_KEY/);
});

test("fix rejects missing or unreadable arguments with exit 2", async () => {
  const env = { AUTO_FIX_MODEL: "m", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
  const cwd = tmp("auto-fix-cwd-");
  const a = io(env, cwd);
  assert.equal(await main(["fix", "--issue", issueFile], a.io), 2);
  assert.match(a.err(), /--repo <dir> is required/);
  const b = io(env, cwd);
  assert.equal(await main(["fix", "--repo", repo, "--issue", join(cwd, "nope.md")], b.io), 2);
  assert.match(b.err(), /is not a readable file/);
  const d = io(env, cwd);
  assert.equal(await main(["fix", "--repo", join(cwd, "missing"), "--issue", issueFile], d.io), 2);
  assert.match(d.err(), /is not a directory/);
  const e = io(env, cwd);
  assert.equal(await main(["fix", "--repo", repo, "--issue", issueFile, "--strategy", "magic"], e.io), 2);
  assert.match(e.err(), /unknown --strategy 'magic'; available: linear/);
});

/** The scripted model's answers for the mean bug: two search rounds, then the patch. */
function meanScript() {
  return agentScript({
    search: [
      searchSays("Look at mean.", { API_calls: ['search_method("mean")'] }),
      searchSays("Found it.", {
        bug_locations: [
          { file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len(values)." },
        ],
      }),
    ],
    patch: [
      patchAnswer(
        "stats/summary.py",
        "    return sum(values) / (len(values) - 1)",
        "    return sum(values) / len(values)",
      ),
    ],
  });
}

test("fix --json end to end through the real client (streaming): contract fields, files under --out, plain progress", async () => {
  const script = meanScript();
  const server = await startScriptedModel(script);
  try {
    const cwd = tmp("auto-fix-cwd-");
    const before = treeDigest(repo);
    const env = {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
      AUTO_FIX_MODEL_STREAM: "1",
    };
    const c = io(env, cwd);
    const code = await main(["fix", "--repo", repo, "--issue", issueFile, "--out", "run1", "--json"], c.io);
    assert.equal(code, 0, c.err());
    const result = JSON.parse(c.out());
    // The contract's fields (fixed names), plus extras the GitHub App shows.
    for (const key of ["status", "patch", "reproduced", "review", "validation", "usage", "out"]) {
      assert.ok(key in result, `result has ${key}`);
    }
    assert.ok(Array.isArray(result.locations) && typeof result.seconds === "number");
    const app = FixResultSchema.parse(result);
    assert.deepEqual(
      app.locations.map((l) => l.file),
      ["stats/summary.py"],
    );
    assert.deepEqual(
      pipelineStages(app).map(([stage, line]) => `${stage}:${line.status}`),
      [
        "indexed:done",
        "reproduced:skipped",
        "located:done",
        "patched:done",
        "reviewed:skipped",
        "validated:done",
        // The scripted model writes no regression test: the patch goes on without one, with a warning.
        "tested:warning",
      ],
    );
    assert.equal(result.regression_test?.status, "left-out");
    // No reproducible example in the issue; the repository's tests ran in the sandbox before and after
    // the patch and pass. They only test median, so they show no regression, not the fix: "patched".
    assert.equal(result.reproducer.status, "no-example");
    assert.equal(result.validation.passed, true);
    assert.equal(result.validation.shows_fix, false);
    assert.equal(result.status, "patched");
    assert.deepEqual(Object.keys(result.usage).sort(), ["completion_tokens", "cost_usd", "prompt_tokens"]);
    assert.ok(result.usage.cost_usd > 0);
    assert.equal(result.out, join(cwd, "run1"));
    assert.equal(readFileSync(join(cwd, "run1", "patch.diff"), "utf8"), result.patch);
    assert.ok(existsSync(join(cwd, "run1", "report.md")));
    assert.match(readFileSync(join(cwd, "run1", "settings.json"), "utf8"), /"model": "gpt-4o-mini"/);
    assert.doesNotMatch(c.err(), /\r/);
    // Plain progress: stage starts and finished stages, the lines the GitHub App follows.
    const err = c.err();
    assert.match(
      err,
      /^auto-fix: workspace\nauto-fix: index\nauto-fix: indexed \(4 files\)\nauto-fix: reproduce\n[\s\S]*\nauto-fix: search\n/,
    );
    assert.match(err, /\nauto-fix: search: round 2\/15\n/);
    assert.match(err, /\nauto-fix: located \(stats\/summary\.py\)\nauto-fix: patch \(linear\)\n/);
    assert.match(err, /\nauto-fix: patched \(linear attempt 1\)\n/);
    // Between them, the command running in the sandbox, named as it starts.
    assert.match(
      err,
      /\nauto-fix: validate\n(?:auto-fix: validate: running `[^\n]+`[^\n]*\n)+auto-fix: validated \(/,
    );
    assert.equal(treeDigest(repo), before);
    assert.equal(server.requests[0]?.model, "gpt-4o-mini");
    assert.equal(server.requests[0]?.stream, true, "the whole run went through streaming responses");
    // A second run into the same folder is refused instead of overwriting the first one's artifacts.
    const again = io(env, cwd);
    assert.equal(await main(["fix", "--repo", repo, "--issue", issueFile, "--out", "run1"], again.io), 2);
    assert.match(again.err(), /already holds the artifacts of a run; choose another folder/);
  } finally {
    await server.close();
  }
});

test("fix says 'fixed' without a reviewer only when a test that failed before the patch passes after it", async () => {
  const server = await startScriptedModel(meanScript());
  try {
    const cwd = tmp("auto-fix-cwd-");
    const covered = join(tmp("auto-fix-repo-"), "py-stats");
    cpSync(repo, covered, { recursive: true });
    writeFileSync(
      join(covered, "tests", "test_mean.py"),
      "import unittest\n\nfrom stats.summary import mean\n\n\nclass MeanTest(unittest.TestCase):\n    def test_mean(self):\n        self.assertEqual(mean([2, 4, 6]), 4)\n",
    );
    const env = {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
    };
    const c = io(env, cwd);
    const code = await main(["fix", "--repo", covered, "--issue", issueFile, "--out", "run", "--json"], c.io);
    assert.equal(code, 0, c.err());
    const result = JSON.parse(c.out());
    assert.equal(result.validation.shows_fix, true, JSON.stringify(result.validation));
    assert.equal(result.validation.fixed.length, 1);
    assert.match(result.validation.fixed[0], /test_mean/);
    assert.equal(result.status, "fixed", result.reason);
    assert.match(readFileSync(join(cwd, "run", "report.md"), "utf8"), /Shows the fix \(.*\): yes/);
  } finally {
    await server.close();
  }
});

test("fix on a terminal rewrites one status line with stage, round and tokens; default --out is under cwd", async () => {
  const server = await startScriptedModel(() => "nothing useful");
  try {
    const cwd = tmp("auto-fix-cwd-");
    writeFileSync(join(cwd, "issue.txt"), "mean is wrong\nIt divides by the wrong count.");
    const env = {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "local",
      AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
      AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
    };
    const c = io(env, cwd, true);
    const code = await main(
      ["fix", "--repo", repo, "--issue", "issue.txt", "--rounds", "1", "--patch-attempts", "1"],
      c.io,
    );
    assert.equal(code, 1);
    assert.match(c.out(), /status: no-patch/);
    assert.match(
      c.out(),
      new RegExp(`report: ${cwd.replaceAll("/", "\\/")}\\/\\.auto-fix\\/runs\\/[^/]+\\/report\\.md`),
    );
    assert.match(
      c.err(),
      /\r\x1b\[Kauto-fix: search · round 1\/1 · \d+ model calls · \d+ tokens · \$0\.0000/,
    );
  } finally {
    await server.close();
  }
});

test("fix protects the globs of AUTO_FIX_PROTECTED_PATHS besides the configuration's (the app's run on another ref)", async () => {
  const work = tmp("auto-fix-repo-");
  cpSync(repo, work, { recursive: true });
  mkdirSync(join(work, ".github"), { recursive: true });
  writeFileSync(join(work, ".github", "auto-fix.yml"), "budgets:\n  search-rounds: 1\n");
  const server = await startScriptedModel(
    agentScript({
      search: ["I do not know where to look."],
      patch: [
        patchAnswer(
          "stats/summary.py",
          "    return sum(values) / (len(values) - 1)",
          "    return sum(values) / len(values)",
        ),
        "no",
        "no",
      ],
    }),
  );
  try {
    const cwd = tmp("auto-fix-cwd-");
    const env = {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_MAX_UNUSABLE_ANSWERS: "10",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
      AUTO_FIX_PROTECTED_PATHS: "\n  stats/**  \ndocs/**\n",
    };
    const c = io(env, cwd);
    const code = await main(["fix", "--repo", work, "--issue", issueFile, "--out", "o", "--json"], c.io);
    assert.equal(code, 1, c.err());
    const settings = JSON.parse(readFileSync(join(cwd, "o", "settings.json"), "utf8"));
    assert.ok(settings.protectedPaths.includes("stats/**") && settings.protectedPaths.includes("docs/**"));
    assert.match(
      readFileSync(join(cwd, "o", "patch", "attempt-1.md"), "utf8"),
      /Status: RAW_PATCH_BUT_UNSAFE_PATH/,
    );
    // A value that cannot be a list of globs stops the command before anything is paid for.
    const bad = io({ ...env, AUTO_FIX_PROTECTED_PATHS: "x".repeat(1001) }, cwd);
    const refused = await main(
      ["fix", "--repo", work, "--issue", issueFile, "--out", "o2", "--json"],
      bad.io,
    );
    assert.equal(refused, 2);
    assert.match(bad.err(), /AUTO_FIX_PROTECTED_PATHS: a glob may be at most 1000 characters/);
  } finally {
    await server.close();
  }
});

test("fix honours the repository configuration: search rounds, protected paths, budget", async () => {
  const work = tmp("auto-fix-repo-");
  cpSync(repo, work, { recursive: true });
  mkdirSync(join(work, ".github"), { recursive: true });
  writeFileSync(
    join(work, ".github", "auto-fix.yml"),
    "budgets:\n  search-rounds: 1\n  cost-usd: 0.5\nprotected-paths:\n  - stats/**\n",
  );
  const server = await startScriptedModel(
    agentScript({
      search: ["I do not know where to look."],
      patch: [
        patchAnswer(
          "stats/summary.py",
          "    return sum(values) / (len(values) - 1)",
          "    return sum(values) / len(values)",
        ),
        "no",
        "no",
      ],
    }),
  );
  try {
    const cwd = tmp("auto-fix-cwd-");
    const env = {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      // The proxy answers garbage here on purpose; the patch writer still gets its turn.
      AUTO_FIX_MAX_UNUSABLE_ANSWERS: "10",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
    };
    const c = io(env, cwd);
    const code = await main(["fix", "--repo", work, "--issue", issueFile, "--out", "o", "--json"], c.io);
    assert.equal(code, 1, c.err());
    const settings = JSON.parse(readFileSync(join(cwd, "o", "settings.json"), "utf8"));
    assert.equal(settings.roundLimit, 1);
    assert.deepEqual(settings.budget, { usd: 0.5 });
    assert.ok(settings.protectedPaths.includes("stats/**"));
    assert.match(
      readFileSync(join(cwd, "o", "patch", "attempt-1.md"), "utf8"),
      /Status: RAW_PATCH_BUT_UNSAFE_PATH/,
    );
    assert.match(JSON.parse(c.out()).reason, /round limit \(1 rounds\)/);
  } finally {
    await server.close();
  }
});
