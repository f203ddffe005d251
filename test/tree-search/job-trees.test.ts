import assert from "node:assert/strict";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createReproduceReviewHooks } from "../../src/pipeline/stage-hooks.ts";
import { createSandbox, type RunRequest, type SandboxPort } from "../../src/sandbox/index.ts";
import { configuredStrategy } from "../../src/strategies/configured.ts";
import { tempDir } from "../support/temp.ts";
import { SLUG } from "./support/bugs.ts";
import { runStrategy, stageAgents } from "./support/run-strategy.ts";

// Tree mode with the reproduce, review and validation stages prepares the job's trees once: the setup
// step runs once per job (not once per stage, strategy or candidate), the unpatched test run is shared,
// and the review and validation of the patch the search checked use the search's own runs of it.

let real: SandboxPort;
let repo: string;
const SETUP = "echo prepared > .setup-marker";

before(async () => {
  real = await createSandbox("bwrap");
  repo = tempDir("af-job-trees-");
  cpSync(SLUG.repo, repo, { recursive: true });
  mkdirSync(join(repo, ".github"), { recursive: true });
  writeFileSync(
    join(repo, ".github", "auto-fix.yml"),
    `setup:\n  - ${SETUP}\ntest: ${SLUG.testCmd}\nreproducer:\n  command: python3 reproducer.py\n  file: reproducer.py\ntimeouts:\n  test: 30\n  reproducer: 30\n`,
  );
});
after(() => rmSync(repo, { recursive: true, force: true }));

/** The real sandbox, with every command it ran written down (and whether its tree had been set up). */
function recording(): { sandbox: SandboxPort; runs: { command: string; setUp: boolean }[] } {
  const runs: { command: string; setUp: boolean }[] = [];
  const sandbox: SandboxPort = {
    kind: real.kind,
    capabilities: () => real.capabilities(),
    adoptTree: (dir) => real.adoptTree?.(dir) ?? Promise.resolve(),
    async run(req: RunRequest) {
      const command = Array.isArray(req.command) ? req.command.join(" ") : req.command;
      const mark = "test -f .setup-marker && echo SET-UP >&2";
      const r = await real.run({
        ...req,
        // An argv keeps its words as they are (a test command's targets, the canaries' own files).
        command: Array.isArray(req.command)
          ? ["/bin/sh", "-c", `${mark}; exec "$@"`, "sh", ...req.command]
          : command === SETUP
            ? command
            : `${mark}; ${command}`,
      });
      runs.push({ command, setUp: command === SETUP || r.stderr.includes("SET-UP") });
      return r;
    },
  };
  return { sandbox, runs };
}

const count = (runs: { command: string }[], command: string) =>
  runs.filter((r) => r.command === command).length;

for (const strategy of ["tree", "linear"] as const) {
  test(`${strategy} with the stages: setup once per job, every run on the set-up tree, no run repeated`, async () => {
    const { sandbox, runs } = recording();
    const hooks = createReproduceReviewHooks();
    try {
      const r = await runStrategy(SLUG, strategy, {
        sandbox,
        repo,
        hooks,
        others: stageAgents(SLUG),
        use: configuredStrategy({ name: strategy }),
      });
      assert.equal(r.result.status, "fixed", r.result.reason);
      assert.equal(count(runs, SETUP), 1, JSON.stringify(runs));
      assert.ok(
        runs.every((x) => x.setUp),
        `a run on a tree that was not set up: ${JSON.stringify(runs)}`,
      );
      // The reproducer before any patch and after the chosen one; the tests before and after: in tree
      // mode the search's check of the patch is the run the reviewer sees and validation uses.
      // (It runs under the launcher that records how it ended: `python3 .af-<nonce>.py <record> reproducer.py`.)
      assert.equal(
        runs.filter((x) => /^python3 \.af-[\w-]+\.py \.af-[\w-]+-r\.json reproducer\.py$/.test(x.command))
          .length,
        2,
        JSON.stringify(runs),
      );
      // The tests related to the change (targeted validation), once unpatched and once patched.
      assert.equal(
        runs.filter((x) => / sh tests\.test_slug( tests\.test_slug_[a-z]+)?$/.test(x.command)).length,
        2,
        JSON.stringify(runs),
      );
      if (strategy === "tree") assert.equal(r.treeFile?.stop, "solved");
      rmSync(r.out, { recursive: true, force: true });
    } finally {
      await hooks.dispose();
    }
  });
}
