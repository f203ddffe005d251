import assert from "node:assert/strict";
import { test } from "node:test";
import { diffKey, normalizeFailure, sameFailure } from "../../src/strategies/tree/evaluate.ts";

test("failures that differ only in run noise are the same failure", () => {
  assert.ok(
    sameFailure(
      "Traceback at 0x7f3a2b1c9d00\nFile /tmp/af-123/x.py\nAssertionError: 1 != 2\nRan 3 tests in 0.004s",
      "Traceback at 0x7f00aa11bb22\r\nFile /tmp/af-999/x.py\r\nAssertionError:  1 != 2\r\nRan 3 tests in 1.5s\n",
    ),
  );
  assert.ok(!sameFailure("AssertionError: 1 != 2", "AssertionError: 1 != 3"));
  assert.ok(!sameFailure("AssertionError: 1 != 2", "TypeError: bad operand"));
  assert.equal(normalizeFailure("  a \n\n  b  "), "a\nb");
});

test("diffKey ignores index lines and trailing blanks but not content", () => {
  const a = "--- a/x.py\n+++ b/x.py\nindex 1234..5678 100644\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
  const b = "--- a/x.py\n+++ b/x.py\nindex abcd..ef01 100644\n@@ -1 +1 @@\n-x = 1\n+x = 2   \n\n";
  const c = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-x = 1\n+x = 3\n";
  assert.equal(diffKey(a), diffKey(b));
  assert.notEqual(diffKey(a), diffKey(c));
  assert.notEqual(diffKey(""), diffKey(a));
});
