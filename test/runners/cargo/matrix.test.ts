import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../../src/sandbox/index.ts";
import { assertFixed, runMatrixCase, writeProject } from "../support/matrix.ts";
import { noCargo, SHOP, SHOP_BUG } from "./crate.ts";

// cargo test in the runner matrix: the small crate validated through the validate stage in the real
// sandbox before and after a real one-line fix, under each spelling of its command. Every test is named
// on both trees, the failing one turns green and nothing else changes, and the check tests are proven.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

for (const command of ["cargo test --offline", "cargo t --offline", "cargo test --offline -p shop"]) {
  test(`cargo test as \`${command}\`: per-test results before and after, the failing test fixed, canaries proven`, {
    skip: noCargo,
  }, async () => {
    const repo = writeProject({
      ...SHOP,
      ".github/auto-fix.yml": `test: ${command}\ntimeouts:\n  test: 300\n`,
    });
    const r = await runMatrixCase(sandbox, repo, SHOP_BUG);
    assertFixed(r, {
      runner: "cargo",
      fixed: "tests/slug.rs::many_words",
      others: ["tests/slug.rs::one_space", "src/lib.rs::tests::adds"],
      // `-p` names the package: a selection the check tests cannot be shown to be in.
      ...(command.includes(" -p ") ? { canaries: false } : {}),
    });
  });
}
