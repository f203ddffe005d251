/**
 * One test run with its check tests, through validation's `runTestSuite` in the real sandbox, for the
 * runner folders' end-to-end tests: the run's files are checked to leave nothing behind.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { loadRepoConfig, type RepoConfig } from "../../../src/config/index.ts";
import type { SandboxPort } from "../../../src/sandbox/index.ts";
import { runTestSuite, type TestRun } from "../../../src/validate/index.ts";
import { targetedCommand } from "../../../src/validate/targets/runner-command.ts";

export const ids = (r: TestRun): Record<string, string> => Object.fromEntries(r.tests ?? []);
export const detail = (r: TestRun): string => r.integrity?.detail ?? "";

/** The tree's files, caches and dependency folders left out. */
function listing(dir: string): Set<string> {
  return new Set(
    readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
      (f) => !/(^|\/)(node_modules|__pycache__|\.pytest_cache|\.benchmarks|\.hypothesis)(\/|$)/.test(f),
    ),
  );
}

/** No file the run added is left: the planted tests and their proof leave with the run. */
function noneLeft(dir: string, before: Set<string>): void {
  assert.deepEqual(
    [...listing(dir)].filter((f) => !before.has(f)),
    [],
  );
}

/** Runs the suite of the repository at `dir` (its targets only, when given) with its check tests. */
export async function runIn(
  sandbox: SandboxPort,
  dir: string,
  opts: { targets?: string[]; tweak?: (c: RepoConfig) => RepoConfig } = {},
): Promise<{ run: TestRun; config: RepoConfig }> {
  const config = (opts.tweak ?? ((c) => c))(loadRepoConfig(dir));
  let extra: Parameters<typeof runTestSuite>[4] = {};
  if (opts.targets) {
    const cmd = targetedCommand(config, opts.targets);
    assert.ok(!("reason" in cmd), "reason" in cmd ? cmd.reason : "");
    extra = { targeted: cmd };
  }
  const before = listing(dir);
  const r = await runTestSuite(sandbox, dir, config, undefined, extra);
  assert.ok(r);
  noneLeft(dir, before);
  return { run: r, config };
}
