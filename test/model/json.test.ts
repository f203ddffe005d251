import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { extractJson, fencedBlocks, jsonCandidates, MAX_JSON_ANSWER_CHARS } from "../../src/model/json.ts";

// Model answers are untrusted text: the extractors read them in one pass, up to a cap, and say so when
// they had to stop. (Their speed on crafted answers is shown by `npm run bench:hostile`.)

const schema = z.object({ ok: z.boolean() });

test("JSON after prose with stray braces, an unclosed brace and a quote in prose is still found", () => {
  const answer = 'I think {this} is "odd. { Let me answer:\n{"ok": true,}\nand { that is all';
  assert.deepEqual(extractJson(answer, schema), { ok: true, value: { ok: true } });
  // Nested spans inside an unclosed one are candidates too.
  assert.ok(jsonCandidates('{ prose {"ok": false} more').includes('{"ok": false}'));
});

test("an answer past the cap: JSON beyond it is not read, and the message says the answer was cut", () => {
  const padding = "x".repeat(MAX_JSON_ANSWER_CHARS);
  const r = extractJson(`${padding}{"ok": true}`, schema);
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.message, /no valid JSON object.*only the first 1048576 were read/);
  // Within the cap the same JSON is found.
  assert.deepEqual(extractJson(`${"x".repeat(1000)}{"ok": true}`, schema), { ok: true, value: { ok: true } });
});

test("crafted answers: unbalanced brace runs, unclosed fences and a flood of tiny objects give clear results", () => {
  assert.equal(extractJson("{".repeat(200_000), schema).ok, false);
  assert.deepEqual(fencedBlocks(`\`\`\`${"\n".repeat(100_000)}`), [], "a fence never closed holds no block");
  assert.deepEqual(fencedBlocks("``````\ncode\n```"), [{ lang: "", code: "code\n" }]);
  // The last fence on a line opens the block; its language word is kept.
  assert.deepEqual(fencedBlocks("x ```json\n{}\n```"), [{ lang: "json", code: "{}\n" }]);
  const flood = extractJson(`${"{}".repeat(100_000)}`, schema);
  assert.equal(flood.ok, false);
  assert.match(flood.ok ? "" : flood.message, /required shape/);
  // A valid answer after a short run of other objects is still found.
  assert.deepEqual(extractJson(`{"a": 1} {"b": 2} {"ok": true}`, schema), { ok: true, value: { ok: true } });
});

test("trailing commas are dropped outside strings only", () => {
  const s = z.object({ a: z.array(z.string()) });
  assert.deepEqual(extractJson('{"a": ["x,]", "y",  ],}', s), { ok: true, value: { a: ["x,]", "y"] } });
});
