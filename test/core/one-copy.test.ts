/**
 * Each safety rule has one copy, where everything else finds it (issue: copies that disagree). These
 * read the source: a second sanitiser, model port, JSON extractor or schema for `.github/auto-fix.yml`
 * that reappears elsewhere fails here, naming the file. (The rules' behaviour is tested beside them.)
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const ROOT = new URL("../../src/", import.meta.url).pathname;
const SOURCES = readdirSync(ROOT, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts"))
  .map((f) => ({ file: f, text: readFileSync(join(ROOT, f), "utf8") }));

/** The files whose text matches `pattern`. */
const holders = (pattern: RegExp) =>
  SOURCES.filter((s) => pattern.test(s.text))
    .map((s) => s.file)
    .sort();

test("one sanitiser removes what GitHub hides (zero-width, tag and ignorable characters)", () => {
  assert.deepEqual(holders(/Default_Ignorable_Code_Point|\\u200[bB]|\\u\{E00|\\uDB40/), [
    "core/untrusted-text.ts",
  ]);
});

test("one model port: no other interface declares a chat method", () => {
  assert.deepEqual(holders(/^\s*chat\(\s*messages?\b[^)]*\)\s*:\s*Promise</m), ["model/types.ts"]);
  assert.deepEqual(holders(/interface \w*(ChatModel|ChatMessageLike)\b/), []);
});

test("one extractor of JSON from model text: balanced-brace scans live in model/json.ts", () => {
  assert.deepEqual(holders(/function (firstJsonObject|jsonCandidates|extractJson|balancedSpans)\b/), [
    "model/json.ts",
  ]);
  // A model answer is never handed to JSON.parse directly: a `.content` parse would be a second extractor.
  assert.deepEqual(holders(/JSON\.parse\([^)]*\.content\b/), []);
});

test("one schema for .github/auto-fix.yml: its settings are declared in config/schema.ts only", () => {
  assert.deepEqual(holders(/["']runs-per-repo-per-day["']\s*:\s*(count|z\.)/), ["config/schema.ts"]);
  assert.deepEqual(holders(/octokit\.config\.get|config\.get\(\{/), []);
});
