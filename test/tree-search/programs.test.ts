import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createDiskRepo, createMemoryRepo } from "../../src/patch/index.ts";
import { changedRanges, renderCurrentCode } from "../../src/strategies/tree/current-code.ts";
import { diffKey } from "../../src/strategies/tree/evaluate.ts";
import { ProgramStore, WorkTreeSync } from "../../src/strategies/tree/programs.ts";

const CALC = [
  "def total(items):",
  "    result = 0",
  "    for i in range(len(items) - 1):",
  "        result += items[i]",
  "    return result",
  "",
].join("\n");

const edit = (file: string, original: string, patched: string) =>
  `Reflection: change it.\n<file>${file}</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;

test("a child applies on top of its parent's program; its diff is taken against the original", async () => {
  const store = new ProgramStore(createMemoryRepo({ "calc.py": CALC, "other.py": "x = 1\n" }));
  const first = await store.apply(edit("calc.py", "    result = 0", "    result = 0.0"), "");
  assert.ok(first.ok);
  assert.deepEqual(first.changedFiles, ["calc.py"]);
  assert.match(first.diff, /- {4}result = 0\n\+ {4}result = 0\.0\n/);

  // The child copies its <original> from the parent's code (result = 0.0), not from the original.
  const child = await store.apply(
    edit("calc.py", "    for i in range(len(items) - 1):", "    for i in range(len(items)):"),
    first.diff,
  );
  assert.ok(child.ok);
  assert.match(child.diff, /\+ {4}result = 0\.0\n/);
  assert.match(child.diff, /\+ {4}for i in range\(len\(items\)\):\n/);
  assert.equal(store.programFor(child.diff).get("calc.py")?.text.includes("result = 0.0"), true);

  // A block that only exists in the original no longer matches at the child.
  const stale = await store.apply(
    edit("calc.py", "    result = 0\n    for i", "    result = 1\n    for i"),
    first.diff,
  );
  assert.equal(stale.ok, false);
  if (!stale.ok) {
    assert.equal(stale.status, "not-applicable");
    assert.match(stale.message, /^RAW_PATCH_BUT_UNMATCHED/);
  }

  // A second file joins the program; the diff lists both, in path order.
  const two = await store.apply(edit("other.py", "x = 1", "x = 2"), child.diff);
  assert.ok(two.ok);
  assert.deepEqual(two.changedFiles, ["calc.py", "other.py"]);
  assert.ok(two.diff.indexOf("calc.py") < two.diff.indexOf("other.py"));
});

test("undoing the parent's change gives the original's diff; a syntax error is reported as such", async () => {
  const store = new ProgramStore(createMemoryRepo({ "calc.py": CALC }));
  const first = await store.apply(edit("calc.py", "    result = 0", "    result = 0.0"), "");
  assert.ok(first.ok);
  const undo = await store.apply(edit("calc.py", "    result = 0.0", "    result = 0"), first.diff);
  assert.ok(undo.ok);
  assert.equal(undo.diff, "");
  assert.equal(diffKey(undo.diff), diffKey(""));
  const broken = await store.apply(edit("calc.py", "    return result", "    return (result"), "");
  assert.equal(broken.ok, false);
  if (!broken.ok) assert.equal(broken.status, "syntax-error");
  const none = await store.apply("I am not sure what to change.", "");
  assert.equal(none.ok, false);
  if (!none.ok) assert.match(none.message, /^NO_PATCH/);
});

test("WorkTreeSync shows one program at a time and puts every other file back", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tree-sync-"));
  try {
    await mkdir(join(dir, "pkg"));
    await writeFile(join(dir, "pkg/calc.py"), CALC);
    await writeFile(join(dir, "other.py"), "x = 1\n");
    const store = new ProgramStore(createDiskRepo(dir));
    const a = await store.apply(edit("pkg/calc.py", "    result = 0", "    result = 0.0"), "");
    const b = await store.apply(
      `<file new="true">pkg/helper.py</file>\n<original>\n</original>\n<patched>\nHELP = 1\n</patched>\n` +
        edit("other.py", "x = 1", "x = 2"),
      "",
    );
    assert.ok(a.ok && b.ok);
    // The store must not write to the repository it reads.
    assert.equal(await readFile(join(dir, "pkg/calc.py"), "utf8"), CALC);
    const work = await mkdtemp(join(tmpdir(), "tree-work-"));
    try {
      await mkdir(join(work, "pkg"));
      await writeFile(join(work, "pkg/calc.py"), CALC);
      await writeFile(join(work, "other.py"), "x = 1\n");
      const sync = new WorkTreeSync(work, store);
      await sync.show(store.programFor(b.diff));
      assert.equal(await readFile(join(work, "pkg/helper.py"), "utf8"), "HELP = 1\n");
      assert.equal(await readFile(join(work, "other.py"), "utf8"), "x = 2\n");
      await sync.show(store.programFor(a.diff));
      await assert.rejects(stat(join(work, "pkg/helper.py")));
      assert.equal(await readFile(join(work, "other.py"), "utf8"), "x = 1\n");
      assert.match(await readFile(join(work, "pkg/calc.py"), "utf8"), /result = 0\.0/);
      await sync.show(store.programFor(""));
      assert.equal(await readFile(join(work, "pkg/calc.py"), "utf8"), CALC);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("current code shows each changed region as it reads now, with line numbers", async () => {
  const long = Array.from({ length: 60 }, (_, i) => `v${i + 1} = ${i + 1}`).join("\n") + "\n";
  const store = new ProgramStore(createMemoryRepo({ "m.py": long }));
  const r = await store.apply(
    edit("m.py", "v5 = 5", "v5 = 500") + edit("m.py", "v50 = 50", "v50 = 5000"),
    "",
  );
  assert.ok(r.ok);
  assert.deepEqual(changedRanges(r.diff).get("m.py"), [
    [2, 8],
    [47, 53],
  ]);
  const text = renderCurrentCode(store.programFor(r.diff), r.diff, 4);
  assert.match(text, /^File m\.py:\nLines 1-12:\n 1: v1 = 1\n/);
  assert.match(text, / 5: v5 = 500\n/);
  assert.match(text, /\nLines 43-57:\n43: v43 = 43\n/);
  assert.match(text, /50: v50 = 5000/);
  assert.doesNotMatch(text, /v30 = 30/);
});

test("protected paths and CI files cannot be patched, at any depth", async () => {
  const store = new ProgramStore(
    createMemoryRepo({
      "calc.py": CALC,
      "docs/notes.py": "x = 1\n",
      ".github/workflows/ci.yml": "on: push\n",
    }),
    { protectedGlobs: ["docs/**"] },
  );
  const first = await store.apply(edit("calc.py", "    result = 0", "    result = 0.0"), "");
  assert.ok(first.ok);
  for (const [file, original] of [
    ["docs/notes.py", "x = 1"],
    [".github/workflows/ci.yml", "on: push"],
  ] as const) {
    const r = await store.apply(edit(file, original, "changed"), first.diff);
    assert.equal(r.ok, false, file);
    if (!r.ok) assert.match(r.message, /^RAW_PATCH_BUT_UNSAFE_PATH/);
  }
});
