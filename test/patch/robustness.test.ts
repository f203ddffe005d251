/** Malformed answers never crash the engine: every one ends in a status with a message. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isPatchStatus } from "../../src/patch/index.ts";
import { contentLines, parseAnswer, scanTags } from "../../src/patch/parse.ts";
import { trimEndWs } from "../../src/patch/text.ts";
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

// Hostile answers of about 1 MB: the scanner must read them in one pass and give the exact outcome.
// (Their speed is what `npm run bench:apply` times; here the results are checked.)
const MB = 1 << 20;

test("1 MB of repeated partial tags: no edit, one clear refusal, nothing applied", async () => {
  const unit = `<file ${" ".repeat(40)}<original <patched\t</patched <<file>a.py   \n`;
  const answer = unit.repeat(Math.ceil(MB / unit.length));
  const tags = scanTags(answer);
  // Only the "<file>" of each unit is a tag: the others never reach their ">" before the next "<".
  assert.equal(tags.length, Math.ceil(MB / unit.length));
  assert.ok(tags.every((t) => t.name === "file" && !t.close));
  const result = await apply({ "a.py": "x = 1\n" }, answer);
  assert.notEqual(result.status, "APPLICABLE_PATCH");
  assert.equal(result.changedFiles.length, 0);
});

test("1 MB of <file> and <original> without <patched>: one problem per block, nothing applied", async () => {
  const unit = "<file>a</file><original>";
  const answer = unit.repeat(Math.ceil(MB / unit.length));
  const blocks = Math.ceil(MB / unit.length);
  const parsed = parseAnswer(answer);
  assert.equal(parsed.edits.length, 0);
  // Each block is reported once, none twice as an orphan <file> as well.
  assert.equal(parsed.problems.length, blocks);
  assert.match(parsed.problems[0]!.message, /no <patched>/);
  const result = await apply({ a: "x = 1\n" }, answer);
  assert.equal(result.status, "RAW_PATCH_BUT_UNPARSED");
  assert.equal(result.changedFiles.length, 0);
});

test("1 MB of unclosed <file> tags on one line: each names the text up to the next tag, nothing applied", async () => {
  const answer = "<file>a.py".repeat(Math.ceil(MB / 10));
  const parsed = parseAnswer(answer);
  assert.equal(parsed.edits.length, 0);
  assert.ok(parsed.problems.length > 0);
  assert.ok(parsed.problems.every((p) => p.fileArg === "a.py"));
  const result = await apply({ "a.py": "x = 1\n" }, answer);
  assert.notEqual(result.status, "APPLICABLE_PATCH");
  assert.equal(result.changedFiles.length, 0);
});

test("2,000 edit blocks parse to 2,000 edits, and more than the limit are refused as a whole", async () => {
  const block = (i: number) =>
    `# modification ${i + 1}\n<file>a.py</file>\n<original>\nx = ${i}\n</original>\n<patched>\nx = ${i + 1}\n</patched>\n`;
  const answer = Array.from({ length: 2000 }, (_, i) => block(i)).join("\n");
  const parsed = parseAnswer(answer);
  assert.equal(parsed.edits.length, 2000);
  assert.deepEqual(parsed.edits[1999], {
    index: 2000,
    fileArg: "a.py",
    isNew: false,
    original: ["x = 1999"],
    patched: ["x = 2000"],
  });
  const result = await apply({ "a.py": "x = 0\n" }, answer);
  assert.equal(result.status, "RAW_PATCH_BUT_UNPARSED");
  assert.match(result.feedback, /2000 edits; at most 200/);
});

test("an unclosed <original> with long blank runs is refused as cut off", async () => {
  const answer = `<file>a.py</file>\n<original>\n${`${" ".repeat(5000)}x\n`.repeat(100)}<patched>\n${" ".repeat(100000)}`;
  const result = await apply({ "a.py": "x = 1\n" }, answer);
  assert.equal(result.status, "RAW_PATCH_BUT_UNPARSED");
  assert.match(result.feedback, /not closed/);
});

test("trailing whitespace runs are trimmed without a backtracking pattern", () => {
  const line = `${" ".repeat(200000)}x${" \t".repeat(100000)}`;
  assert.equal(trimEndWs(line), `${" ".repeat(200000)}x`);
  assert.deepEqual(contentLines(`\n${line}\n`), [`${" ".repeat(200000)}x`]);
});
