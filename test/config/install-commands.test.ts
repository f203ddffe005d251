import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRepoConfig } from "../../src/config/index.ts";

test("an install chained into the test command runs in the setup step; the tests run without it", () => {
  const c = parseRepoConfig(
    [
      "setup:",
      "  - python3 -m pip install --user -r requirements.txt",
      "test: pip install -e . && python3 -m pytest -q",
      "validation:",
      '  command: "npm ci && npx jest {tests}"',
    ].join("\n"),
  );
  assert.deepEqual(c.setup, [
    "python3 -m pip install --user -r requirements.txt",
    "pip install -e .",
    "npm ci",
  ]);
  assert.equal(c.test.command, "python3 -m pytest -q");
  assert.equal(c.validation.command, "npx jest {tests}");
  assert.ok(
    c.notes.some((n) =>
      /The test command's dependency install \(`pip install -e \.`\) runs in the setup step/.test(n),
    ),
  );
  assert.ok(c.notes.some((n) => /The validation command's dependency install \(`npm ci`\)/.test(n)));
  // An ordinary test command is left alone.
  const plain = parseRepoConfig("test: python3 -m pytest -q\n");
  assert.equal(plain.test.command, "python3 -m pytest -q");
  assert.deepEqual(plain.setup, []);
});
