import assert from "node:assert/strict";
import { test } from "node:test";
import { runnerChecksLine } from "../../src/contract/runner-checks.ts";

test("the runner checks are said as what they held against, never as a pass or an assurance", () => {
  const held = runnerChecksLine({ state: "intact", detail: "the check tests ran" });
  assert.match(
    held,
    /^Runner checks: two check tests added to the run \(one that must fail, one that must pass and leave a file behind\)/,
  );
  assert.match(held, /not stopped early, replaced or made to report tests that did not run/);
  assert.match(held, /This does not show that the patch is honest\.$/);
  assert.doesNotMatch(held, /\bpassed\b|✅|verified|tamper/i);
  // report.md adds the checks' own words.
  assert.match(runnerChecksLine({ state: "intact", detail: "x y." }, { detail: true }), / \(x y\)$/);

  const unknown = runnerChecksLine({ state: "unverified", detail: "the test command is a script." });
  assert.equal(
    unknown,
    "Runner checks: could not check: the test command is a script. Whether the runner reported the tests as they ran is not known.",
  );
  assert.doesNotMatch(unknown, /\bpass|✅|held/);

  const failed = runnerChecksLine({
    state: "tampered",
    detail: "the runner reported the check test that must fail as passed",
  });
  assert.match(failed, /^Runner checks: failed: .* cannot be trusted\.$/);
});
