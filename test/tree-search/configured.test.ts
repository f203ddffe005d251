import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { FixHooks } from "../../src/contract/pipeline.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { configuredStrategy } from "../../src/strategies/configured.ts";
import { MEDIAN } from "./support/bugs.ts";
import { runStrategy } from "./support/run-strategy.ts";

// `strategy: tree` in .github/auto-fix.yml and `--strategy` choose the patch strategy; the tree search
// checks candidates with the reproduce stage's script (handed over through the pipeline's state).

let sandbox: SandboxPort;
const dirs: string[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repoWith(config: string | null, opts: { tests?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "tree-configured-"));
  dirs.push(dir);
  cpSync(MEDIAN.repo, dir, { recursive: true });
  if (opts.tests === false) rmSync(join(dir, "tests"), { recursive: true });
  if (config !== null) {
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github/auto-fix.yml"), config);
  }
  return dir;
}

/** The reproduce stage as the pipeline runs it, with the fixture's script already written. */
const reproduced: FixHooks = {
  reproduce: async () => ({
    reproduced: true,
    lead: null,
    summary: "reproduced by the fixture's script",
    data: {
      status: "reproduced",
      summary: "reproduced by the fixture's script",
      path: "reproducer.py",
      command: "python3 reproducer.py",
      script: MEDIAN.reproducer,
      attempts: 1,
      before: null,
      after: null,
    },
  }),
};

test("strategy: tree in the repository configuration runs the tree search with its parameters", async () => {
  const repo = repoWith(
    `test: ${MEDIAN.testCmd}\nstrategy:\n  mode: tree\n  max_expansion: 2\n  max_rollout: 5\n`,
  );
  const run = await runStrategy(MEDIAN, "tree", {
    sandbox,
    repo,
    use: configuredStrategy(),
    hooks: reproduced,
    testCmd: null,
  });
  assert.equal(run.result.status, "fixed", run.result.reason);
  const report = readFileSync(join(run.out, "report.md"), "utf8");
  assert.match(report, /## Tree search/);
  assert.match(report, /max_expansion 2, max_rollout 5/);
  assert.match(
    report,
    /Checks per candidate: reproducer `python3 reproducer.py` \+ tests `python3 -m unittest/,
  );
  // max_expansion 2: the root kept two of the four candidates.
  const tree = JSON.parse(readFileSync(join(run.out, "tree/tree.json"), "utf8"));
  assert.equal(tree.nodes[0].childIds.length, 2);
});

test("linear stays the default; --strategy wins over the configuration", async () => {
  const plain = await runStrategy(MEDIAN, "linear", {
    sandbox,
    repo: repoWith(null),
    use: configuredStrategy(),
    hooks: reproduced,
  });
  assert.doesNotMatch(readFileSync(join(plain.out, "report.md"), "utf8"), /## Tree search/);
  assert.equal(plain.byStage["tree-expand"], undefined);

  const forced = await runStrategy(MEDIAN, "linear", {
    sandbox,
    repo: repoWith("strategy: tree\n"),
    use: configuredStrategy({ name: "linear" }),
    hooks: reproduced,
  });
  assert.equal(forced.byStage["tree-expand"], undefined);
});

test("with nothing failing to search against, the tree search says why it did not run and the linear writer runs", async () => {
  const run = await runStrategy(MEDIAN, "tree", {
    sandbox,
    repo: repoWith(null),
    use: configuredStrategy({ name: "tree" }),
    testCmd: null,
  });
  assert.equal(run.byStage["tree-expand"], undefined);
  assert.equal(run.byStage.patch?.calls, 1);
  const report = readFileSync(join(run.out, "report.md"), "utf8");
  // No reproducer ran, and the detected tests pass before any patch: no evidence to search against.
  assert.match(
    report,
    /tree search not run: tests `python3 -m unittest discover -v` already pass on the unpatched program/,
  );
});

test("with no reproducer and no test command at all, the tree search says so", async () => {
  const run = await runStrategy(MEDIAN, "tree", {
    sandbox,
    repo: repoWith(null, { tests: false }),
    use: configuredStrategy({ name: "tree" }),
    testCmd: null,
  });
  assert.equal(run.byStage["tree-expand"], undefined);
  assert.match(
    readFileSync(join(run.out, "report.md"), "utf8"),
    /tree search not run: no reproducer reproduced the issue and the repository has no test command/,
  );
});
