/** JUnit's tools place no check tests yet: each says so, and its runs read "could not check", never a pass. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RepoConfig } from "../../../src/config/index.ts";
import { runnerChecksLine } from "../../../src/contract/runner-checks.ts";
import { runnerFor } from "../../../src/runners/index.ts";
import { planCanaries } from "../../../src/validate/canaries/index.ts";
import { treeOf } from "../support/canary-tree.ts";

test("Maven, Gradle and plain JUnit say why they place none, and the run reads it as could not check", () => {
  for (const name of ["maven", "gradle", "junit"] as const) {
    const c = runnerFor(name).canaries;
    assert.ok(!c.placed);
    assert.equal(c.why, `check tests are not placed for ${name} runs`);
  }
  const { tree } = treeOf({});
  const config = { test: { command: "mvn -q test", framework: "maven" }, validation: { runner: null } };
  const plan = planCanaries(tree, config as unknown as Pick<RepoConfig, "test" | "validation">);
  assert.ok("unverified" in plan);
  const line = runnerChecksLine({ state: "unverified", detail: plan.unverified });
  assert.equal(
    line,
    "Runner checks: could not check: check tests are not placed for maven runs. Whether the runner reported the tests as they ran is not known.",
  );
});
