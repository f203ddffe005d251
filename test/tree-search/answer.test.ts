import assert from "node:assert/strict";
import { test } from "node:test";
import { extractReflection, MAX_REFLECTION_CHARS } from "../../src/strategies/tree/answer.ts";

test("the reflection is the prose before the first edit block, heading removed", () => {
  const answer = [
    "Reflection: the loop stops one item early because `range(n - 1)` skips the last index.",
    "Using `range(n)` visits every item.",
    "",
    "Patch:",
    "```",
    "<file>src/a.py</file>",
    "<original>",
    "for i in range(n - 1):",
    "</original>",
    "<patched>",
    "for i in range(n):",
    "</patched>",
    "```",
  ].join("\n");
  assert.equal(
    extractReflection(answer),
    "the loop stops one item early because `range(n - 1)` skips the last index.\nUsing `range(n)` visits every item.",
  );
});

test("markdown headings, CRLF and answers without prose", () => {
  assert.equal(extractReflection("## Reflection\r\nOff by one.\r\n\r\n<file>a.py</file>"), "Off by one.");
  assert.equal(extractReflection("**Analysis:** wrong default.\n<file>a.py</file>"), "wrong default.");
  assert.equal(extractReflection("<file>a.py</file><original>x</original><patched>y</patched>"), "");
  assert.equal(extractReflection("Only prose, no patch at all."), "Only prose, no patch at all.");
});

test("a long reflection is capped", () => {
  const r = extractReflection(`${"word ".repeat(2000)}\n<file>a.py</file>`);
  assert.equal(r.length, MAX_REFLECTION_CHARS);
  assert.ok(r.endsWith("…"));
});
