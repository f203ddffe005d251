/**
 * Configuration errors that say how to fix them: a value outside the allowed ones lists them (also
 * through a union such as `strategy`), an unknown key names the closest known one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRepoConfig, RepoConfigError } from "../../src/config/index.ts";
import { closestKey, editDistance } from "../../src/config/messages.ts";

function problems(yaml: string): string[] {
  try {
    parseRepoConfig(yaml);
  } catch (err) {
    assert.ok(err instanceof RepoConfigError, String(err));
    return err.problems;
  }
  assert.fail(`expected ${JSON.stringify(yaml)} to be refused`);
}

test("strategy outside its allowed values lists them instead of 'Invalid input'", () => {
  for (const [yaml, expected] of [
    [
      "strategy: fast",
      "strategy: 'fast' is not allowed: expected one of linear, tree, or a mapping of settings",
    ],
    ["strategy: 3", "strategy: 3 is not allowed: expected one of linear, tree, or a mapping of settings"],
    ["strategy: { mode: wide }", "strategy.mode: expected linear or tree"],
  ] as const) {
    const found = problems(yaml);
    assert.deepEqual(found, [expected]);
    assert.ok(found.every((p) => !/Invalid input/.test(p)));
  }
  // The allowed values themselves are taken.
  assert.equal(parseRepoConfig("strategy: tree").strategy.mode, "tree");
  assert.equal(parseRepoConfig("strategy: { mode: tree, branch: 3 }").strategy.mode, "tree");
});

test("an unknown setting names the closest known key, at the top level and inside a section", () => {
  assert.deepEqual(problems("test_command: pytest -x"), [
    "(top level): unknown setting(s) 'test_command' (did you mean 'test'?)",
  ]);
  assert.deepEqual(problems("protected_paths: [docs/**]"), [
    "(top level): unknown setting(s) 'protected_paths' (did you mean 'protected-paths'?)",
  ]);
  assert.deepEqual(problems("timeouts: { tset: 30 }"), [
    "timeouts: unknown setting(s) 'tset' (did you mean 'test'?)",
  ]);
  assert.deepEqual(problems("strategy: { mode: tree, brnach: 3 }"), [
    "strategy: unknown setting(s) 'brnach' (did you mean 'branch'?)",
  ]);
  // Nothing close: no guess; several keys: each guess names its key.
  assert.deepEqual(problems("colour: blue"), ["(top level): unknown setting(s) 'colour'"]);
  assert.deepEqual(problems("colour: blue\nlable: fix-me"), [
    "(top level): unknown setting(s) 'colour', 'lable' ('lable': did you mean 'label'?)",
  ]);
  // The suggested key is the one a corrected file uses.
  assert.equal(parseRepoConfig("test: pytest -x").test.command, "pytest -x");
});

test("closest key: separators and case, then edit distance, then a whole word", () => {
  assert.equal(editDistance("test_command", "test"), 8);
  assert.equal(editDistance("tset", "test"), 1);
  assert.equal(editDistance("", "abc"), 3);
  const known = ["test", "test-reports", "setup", "timeouts", "label"];
  assert.equal(closestKey("testReports", known), "test-reports");
  assert.equal(closestKey("timeout", known), "timeouts");
  assert.equal(closestKey("test_command", known), "test");
  assert.equal(closestKey("unrelated", known), null);
  assert.equal(closestKey("x".repeat(5000), known), null);
});
