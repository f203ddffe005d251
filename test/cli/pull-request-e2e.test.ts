/**
 * The pull request a maintainer merges, end to end through `auto-fix issue --dry-run` (real git, git over
 * HTTP on 127.0.0.1, the real pipeline in its child process and sandbox, the scripted model), in Python,
 * JavaScript (node --test) and Go repositories:
 *
 * - the diff holds a new regression test in the repository's framework and place, and the test really
 *   fails on the unfixed code and passes on the fixed branch (run here, outside the pipeline);
 * - no internal name reaches any posted text, and model prose is shown as escaped text, not code;
 * - the status comment's writes are at least a second apart and each changes its text;
 * - a retry that writes the same patch says so; a model that writes no usable test costs the test, not
 *   the pull request; a repository can turn the test off.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { fence, promptKind, verdict } from "../review/helpers.ts";
import { agentScript, patchAnswer, searchSays } from "../support/agent-script.ts";
import { liveEffects } from "../support/github-markdown.ts";
import { plainWordProblems } from "../support/plain-words.ts";
import { type ScriptedModel, type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { tempDir } from "../support/temp.ts";

interface Fixture {
  name: string;
  files: Record<string, string>;
  source: string;
  method: string;
  buggy: string;
  fixed: string;
  repro: { lang: string; code: string };
  test: { lang: string; code: string };
  /** Where the regression test must land, by the repository's conventions. */
  testPath: RegExp;
  /** Runs the test file alone from the repository root. */
  run: (path: string) => [string, string[]];
}

const PYTHON: Fixture = {
  name: "python",
  files: {
    "stats/__init__.py": "",
    "stats/summary.py":
      'def mean(values):\n    """Arithmetic mean of a non-empty list."""\n    return sum(values) / (len(values) - 1)\n\n\ndef total(values):\n    return sum(values)\n',
    "tests/test_total.py":
      "from stats.summary import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
  },
  source: "stats/summary.py",
  method: "mean",
  buggy: "    return sum(values) / (len(values) - 1)",
  fixed: "    return sum(values) / len(values)",
  repro: {
    lang: "python",
    code: "from stats.summary import mean\nresult = mean([2, 4])\nassert result == 3, f'expected 3, got {result}'\n",
  },
  test: {
    lang: "python",
    code: "from stats.summary import mean\n\n\ndef test_mean_divides_by_the_count():\n    assert mean([2, 4]) == 3\n",
  },
  testPath: /^tests\/test_summary_regression\.py$/,
  run: (path) => ["python3", ["-m", "pytest", "-q", "-p", "no:cacheprovider", path]],
};

const JAVASCRIPT: Fixture = {
  name: "javascript",
  files: {
    "package.json": `${JSON.stringify({ name: "stats", version: "1.0.0", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
    "src/stats.js":
      "export function total(values) {\n  return values.reduce((a, b) => a + b, 0);\n}\n\nexport function mean(values) {\n  return total(values) / (values.length - 1);\n}\n",
    "test/total.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { total } from "../src/stats.js";\n\ntest("total adds", () => {\n  assert.equal(total([1, 2]), 3);\n});\n',
  },
  source: "src/stats.js",
  method: "mean",
  buggy: "  return total(values) / (values.length - 1);",
  fixed: "  return total(values) / values.length;",
  repro: {
    lang: "javascript",
    code: 'import assert from "node:assert/strict";\nimport { mean } from "./src/stats.js";\nassert.equal(mean([2, 4]), 3);\n',
  },
  test: {
    lang: "javascript",
    code: 'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { mean } from "../src/stats.js";\n\ntest("mean divides by the count", () => {\n  assert.equal(mean([2, 4]), 3);\n});\n',
  },
  testPath: /^test\/stats-regression\.test\.js$/,
  run: (path) => ["node", ["--test", path]],
};

const GO: Fixture = {
  name: "go",
  files: {
    "go.mod": "module example.com/stats\n\ngo 1.21\n",
    "stats/stats.go":
      "package stats\n\n// Mean is the arithmetic mean of a non-empty slice.\nfunc Mean(values []float64) float64 {\n\treturn Sum(values) / float64(len(values)-1)\n}\n\n// Sum adds the values.\nfunc Sum(values []float64) float64 {\n\ts := 0.0\n\tfor _, v := range values {\n\t\ts += v\n\t}\n\treturn s\n}\n",
    "stats/stats_test.go":
      'package stats\n\nimport "testing"\n\nfunc TestSum(t *testing.T) {\n\tif got := Sum([]float64{1, 2}); got != 3 {\n\t\tt.Fatalf("Sum = %v", got)\n\t}\n}\n',
  },
  source: "stats/stats.go",
  method: "Mean",
  buggy: "\treturn Sum(values) / float64(len(values)-1)",
  fixed: "\treturn Sum(values) / float64(len(values))",
  repro: {
    lang: "go",
    code: 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/stats/stats"\n)\n\nfunc main() {\n\tif got := stats.Mean([]float64{2, 4}); got != 3 {\n\t\tpanic(fmt.Sprintf("AssertionError: expected 3, got %v", got))\n\t}\n}\n',
  },
  test: {
    lang: "go",
    code: 'package stats\n\nimport "testing"\n\nfunc TestMeanDividesByTheCount(t *testing.T) {\n\tif got := Mean([]float64{2, 4}); got != 3 {\n\t\tt.Fatalf("Mean([2 4]) = %v, want 3", got)\n\t}\n}\n',
  },
  testPath: /^stats\/stats_regression_test\.go$/,
  run: (path) => ["go", ["test", "-count=1", `./${dirname(path)}`]],
};

/** Internal names that must stay in logs and artifacts. */
const INTERNAL =
  /linear attempt|tree attempt|APPLICABLE_PATCH|RAW_PATCH|NO_PATCH|preparing trees|candidate [\w -]+ won|reproduce · |Command: /;
/** Model prose planted in the reviewer's analysis: it must read as text, with nothing live in it. */
const ANALYSIS =
  "The fix divides by len(values) as **intended**; @octocat see https://evil.example and fixes #9 <b>x</b>";

let model: ScriptedModel;
let work: string;
let env: NodeJS.ProcessEnv;
let testAnswer: (f: Fixture) => string = (f) => fence(f.test.lang, f.test.code);
let current: Fixture = PYTHON;

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Dev",
  GIT_AUTHOR_EMAIL: "dev@example.com",
  GIT_COMMITTER_NAME: "Dev",
  GIT_COMMITTER_EMAIL: "dev@example.com",
};
const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: gitEnv });

let agents: ScriptHandler = () => "no script";
const agentsFor = (f: Fixture) =>
  agentScript({
    search: [
      searchSays(`The mean looks wrong; let me read ${f.method}.`, {
        API_calls: [`search_method("${f.method}")`],
      }),
      searchSays(`${f.method} divides by the count minus one, which is wrong for an arithmetic mean.`, {
        bug_locations: [
          { file: f.source, method: f.method, intended_behavior: "Divide by the number of values." },
        ],
      }),
    ],
    patch: [patchAnswer(f.source, f.buggy, f.fixed)],
  });

const script: ScriptHandler = (req, i) => {
  const system = String(req.messages[0]?.content ?? "");
  if (system.startsWith("You write regression tests")) return testAnswer(current);
  const kind = promptKind(req);
  if (kind === "has-example") return '{"has-reproducible-example": true}';
  if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
    return fence(current.repro.lang, current.repro.code);
  if (kind === "review" || kind === "review-retry")
    return JSON.stringify({ ...JSON.parse(verdict("yes", "yes")), "patch-analysis": ANALYSIS });
  return agents(req, i);
};

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    cwd: work,
    isTTY: false,
  });
  return { code, stdout, stderr };
}

function makeRepo(f: Fixture, extra: Record<string, string> = {}, name = f.name): string {
  const repo = join(work, name);
  for (const [path, text] of Object.entries({ ...f.files, ...extra })) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  writeFileSync(join(repo, "README.md"), "# stats\n");
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "-m", "Initial commit"]);
  return repo;
}

interface DryRun {
  body: string;
  diff: string;
  status: string;
  githubDir: string;
  remote: string;
  pull: number;
  statusId: number;
}

async function dryRun(f: Fixture, repo: string, out: string, more: string[] = []): Promise<DryRun> {
  current = f;
  agents = agentsFor(f);
  const issueFile = join(work, `${f.name}-issue.md`);
  writeFileSync(
    issueFile,
    "# mean() is off by one\n\nmean([2, 4]) returns 6 instead of 3: it should divide by the count.\n",
  );
  const r = await cli(["issue", repo, "--issue", issueFile, "--dry-run", out, "--json", ...more]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const result = JSON.parse(r.stdout) as {
    outcome: { status: string; pull: number };
    pullBody: string;
    pullDiff: string;
    statusComment: string;
    githubDir: string;
    remote: string;
  };
  assert.match(result.outcome.status, /^pull-(opened|updated)$/);
  const statusId = Number(/comment-(\d+)\.md$/.exec(result.statusComment)?.[1]);
  return {
    body: readFileSync(result.pullBody, "utf8"),
    diff: readFileSync(result.pullDiff, "utf8"),
    status: readFileSync(result.statusComment, "utf8"),
    githubDir: result.githubDir,
    remote: result.remote,
    pull: result.outcome.pull,
    statusId,
  };
}

/** Every text the run would have posted: comments and pull request bodies. */
function postedTexts(githubDir: string): string[] {
  const state = JSON.parse(readFileSync(join(githubDir, "state.json"), "utf8")) as {
    comments: { body: string }[];
    pulls: { body: string }[];
  };
  return [...state.comments.map((c) => c.body), ...state.pulls.map((p) => p.body)];
}

/**
 * The status comment's writes during the folder's last run (which starts with its 👀 reaction), in
 * order: none within a second of the one before, each a change.
 */
function assertCalmStatus(githubDir: string, statusId: number): number {
  const events = readFileSync(join(githubDir, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { at: string; action: string; id?: number; digest?: string });
  let start = 0;
  events.forEach((e, i) => {
    if (e.action === "reaction") start = i;
  });
  const writes = events
    .slice(Math.max(0, start))
    .filter((e) => (e.action === "comment-created" || e.action === "comment-updated") && e.id === statusId);
  assert.ok(writes.length >= 2, "the status comment was posted and edited");
  for (let i = 1; i < writes.length; i++) {
    const gap = Date.parse(writes[i]!.at) - Date.parse(writes[i - 1]!.at);
    assert.ok(gap >= 1000, `status writes ${i - 1} and ${i} are ${gap} ms apart`);
    assert.notEqual(writes[i]!.digest, writes[i - 1]!.digest, `status write ${i} changed nothing`);
  }
  return writes.length;
}

/** Runs the regression test from the pushed branch on the unfixed main and on the fixed branch. */
function assertTestFailsThenPasses(f: Fixture, remote: string, path: string): void {
  const outcome = (ref: string) => {
    const dir = join(work, `check-${f.name}-${ref.replace(/\W/g, "-")}`);
    git(work, ["clone", "-q", "-b", ref, remote, dir]);
    writeFileSync(join(dir, path), git(remote, ["show", `auto-fix/issue-1:${path}`]));
    const [cmd, args] = f.run(path);
    return spawnSync(cmd, args, {
      cwd: dir,
      encoding: "utf8",
      // The test runner's own variables stay out: the checked test runs as a fresh process would.
      env: {
        PATH: process.env.PATH,
        HOME: work,
        GOFLAGS: "-mod=mod",
        GOCACHE: join(work, "gocache"),
        GOPATH: join(work, "gopath"),
      },
    });
  };
  const unfixed = outcome("main");
  assert.notEqual(unfixed.status, 0, `the test fails without the fix:\n${unfixed.stdout}${unfixed.stderr}`);
  const fixed = outcome("auto-fix/issue-1");
  assert.equal(fixed.status, 0, `the test passes with the fix:\n${fixed.stdout}${fixed.stderr}`);
}

before(async () => {
  work = tempDir("auto-fix-pr-e2e-");
  model = await startScriptedModel((req, i) => script(req, i));
  env = {
    PATH: process.env.PATH,
    HOME: work,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: "test-key",
    AUTO_FIX_MODEL: "scripted-model",
    AUTO_FIX_PRICE_INPUT_PER_MTOK: "0.1",
    AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0.4",
    AUTO_FIX_CACHE_DIR: join(work, "cache"),
  };
});

after(async () => {
  await model?.close();
});

for (const f of [PYTHON, JAVASCRIPT, GO]) {
  test(`${f.name}: the pull request carries a regression test that fails without the fix and passes with it, in plain words, with a calm status comment`, async () => {
    testAnswer = (x) => fence(x.test.lang, x.test.code);
    const repo = makeRepo(f);
    const run = await dryRun(f, repo, join(work, `${f.name}-dry`));

    // The diff adds the test as a new file where the repository keeps its tests.
    const added = [...run.diff.matchAll(/^diff --git a\/(\S+) b\/\S+\nnew file mode/gm)].map((m) => m[1]!);
    const testFile = added.find((p) => f.testPath.test(p));
    assert.ok(testFile, `a new test file in the diff:\n${run.diff}`);
    assert.ok(run.diff.includes(`+${f.fixed}`), "the fix is in the diff too");
    assertTestFailsThenPasses(f, run.remote, testFile);
    // The test's prompt states what the reproducer did with this very fix: it ran, and passed.
    const ask = [...model.requests]
      .reverse()
      .find((q) => String(q.messages[0]?.content ?? "").startsWith("You write regression tests"));
    assert.match(
      String(ask?.messages[1]?.content ?? ""),
      /This script failed on the code without the fix and passes with this fix\./,
    );

    // The body says so, in words, and ends with the reviewer's checklist.
    assert.match(run.body, /## Regression test\n\nThe patch adds `[^`]+`/);
    assert.match(run.body, /it fails without the fix and passes with it/);
    const checklist = run.body.slice(run.body.indexOf("## Before you merge"));
    assert.match(checklist, /^## Before you merge\n\n- \[ \] The change does what the issue asks/);
    assert.match(checklist, /- \[ \] The regression test `[^`]+` checks the behaviour the issue describes\./);

    // Model prose is text, escaped: no code span around it, nothing live in it.
    assert.ok(run.body.includes("\\*\\*intended\\*\\*"), "markdown in the analysis is escaped");
    assert.ok(!run.body.includes("`The fix divides"), "the analysis is not shown as code");
    const live = liveEffects(run.body);
    assert.deepEqual(live.mentions, [], run.body);
    assert.deepEqual(live.closing, ["Fixes #1"], run.body);
    assert.deepEqual(
      [live.links, live.images, live.html.filter((t) => t !== "details" && t !== "summary")],
      [[], [], []],
    );

    // Each fact once, in plain words: no sentence twice, no prose in code spans, no internal term.
    assert.deepEqual(plainWordProblems(run.body), [], run.body);
    assert.deepEqual(plainWordProblems(run.status), [], run.status);
    // The reproducer reduced to what matters: its failure in view, the script collapsed.
    const reproducer = run.body.slice(
      run.body.indexOf("## Reproducer"),
      run.body.indexOf("## Regression test"),
    );
    assert.match(reproducer, /^## Reproducer\n\nBefore the patch, `[^`]+` ended with exit code [1-9]/);
    assert.ok(
      reproducer.indexOf("<details>") < reproducer.indexOf(f.repro.code.split("\n")[0]!),
      `the script is in the collapsed part:\n${reproducer}`,
    );

    // No internal name in anything posted.
    for (const text of postedTexts(run.githubDir)) assert.doesNotMatch(text, INTERNAL, text);
    assertCalmStatus(run.githubDir, run.statusId);
  });
}

test("a retry that writes the same patch says so, and what its guidance changed", async () => {
  testAnswer = (x) => fence(x.test.lang, x.test.code);
  const repo = makeRepo(PYTHON, {}, "python-retry");
  const out = join(work, "retry-dry");
  await dryRun(PYTHON, repo, out);
  const again = await dryRun(PYTHON, repo, out, ["--guidance", "keep it small"]);
  assert.match(
    again.body,
    /## Since the previous run\n\nThe patch is unchanged: run 2 wrote the same patch as run 1\./,
  );
  assert.match(again.body, /The previous run had no guidance; this run followed the guidance above\./);
  const state = JSON.parse(readFileSync(join(again.githubDir, "state.json"), "utf8")) as {
    comments: { issue: number; body: string }[];
  };
  const note = state.comments.find((c) => c.issue === again.pull);
  assert.ok(note, "a note on the pull request");
  assert.match(note.body, /The patch is unchanged: run 2 wrote the same patch as run 1\./);
  for (const text of postedTexts(again.githubDir)) assert.doesNotMatch(text, INTERNAL, text);
  assertCalmStatus(again.githubDir, again.statusId);
});

test("a model that writes no usable test costs the test, not the pull request; a repository can turn the test off", async () => {
  testAnswer = () => "I would rather not write a test.";
  const repo = makeRepo(PYTHON, {}, "python-no-test");
  const run = await dryRun(PYTHON, repo, join(work, "no-test-dry"));
  assert.doesNotMatch(run.diff, /new file mode/);
  assert.ok(run.diff.includes(`+${PYTHON.fixed}`));
  assert.match(
    run.body,
    /## Regression test\n\nNo regression test was added: after 2 tries, the model gave no test file\./,
  );
  assert.match(run.body, /- \[ \] No regression test came with the fix/);

  // A test that passes on the unfixed code would catch nothing: left out, with the reason.
  testAnswer = () => fence("python", "def test_nothing():\n    assert True\n");
  const weak = await dryRun(PYTHON, makeRepo(PYTHON, {}, "python-weak-test"), join(work, "weak-dry"));
  assert.doesNotMatch(weak.diff, /new file mode/);
  assert.match(
    weak.body,
    /this test passes on the code without the fix, so it would not catch the bug: \\`tests\/test\\_summary\\_regression\.py::test\\_nothing\\`/,
  );

  testAnswer = (x) => fence(x.test.lang, x.test.code);
  const asked = () =>
    model.requests.filter((q) =>
      String(q.messages[0]?.content ?? "").startsWith("You write regression tests"),
    ).length;
  const askedBefore = asked();
  const off = makeRepo(PYTHON, { ".github/auto-fix.yml": "regression-test: false\n" }, "python-off");
  const quiet = await dryRun(PYTHON, off, join(work, "off-dry"));
  assert.doesNotMatch(quiet.diff, /new file mode/);
  assert.match(
    quiet.body,
    /No regression test was written: the repository turned it off \(regression-test: false\)\./,
  );
  assert.equal(asked(), askedBefore, "the model was not asked for a test");
});
