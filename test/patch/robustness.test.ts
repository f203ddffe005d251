/** Malformed answers never crash the engine: every one ends in a status with a message. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isPatchStatus } from "../../src/patch/index.ts";
import { apply } from "./helpers.ts";

const PIECES = [
  "<file>",
  "</file>",
  '<file new="true">',
  "<original>",
  "</original>",
  "<patched>",
  "</patched>",
  "a.py",
  "../a.py",
  "/abs/a.py",
  "def f():",
  "    return 1",
  "    return 2",
  "\n",
  "\r\n",
  "\t",
  "```",
  "# ... rest of code ...",
  "12: ",
  "",
  "\u0000",
  "é",
];

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1103515245 + 12345) % 2147483648;
    return a / 2147483648;
  };
}

test("random fragments of the format always give a status and, unless applicable, a reason", async () => {
  const r = rng(7);
  const files = { "a.py": "def f():\n    return 1\n", "b.py": "x = 1\n" };
  for (let i = 0; i < 300; i++) {
    let answer = "";
    const n = 1 + Math.floor(r() * 24);
    for (let k = 0; k < n; k++) answer += PIECES[Math.floor(r() * PIECES.length)];
    const result = await apply(files, answer);
    assert.ok(isPatchStatus(result.status), answer);
    if (result.status !== "APPLICABLE_PATCH") {
      assert.equal(result.changedFiles.length, 0);
      assert.ok(result.feedback.length > 10, answer);
    }
  }
});
