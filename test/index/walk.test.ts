import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sniffLanguages, walkSources } from "../../src/index/walk.ts";
import { tempDir } from "./helpers.ts";

/**
 * The walk reads the file system with synchronous calls, and its thread also takes the parse workers'
 * answers: a long walk must give the event loop turns, or the workers sit idle until it ends.
 */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let walking = true;
  const tick = (): void => {
    if (!walking) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  walking = false;
  return { result, turns };
}

function repoOfDirs(dirs: number): string {
  const repo = tempDir();
  for (let i = 0; i < dirs; i++) {
    const dir = join(repo, `d${String(i).padStart(4, "0")}`, "sub");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "m.py"), "x = 1\n");
  }
  return repo;
}

test("the walk gives the event loop a turn whenever it has read for its interval, and finds every file in order", async () => {
  const repo = repoOfDirs(300);
  // An interval of 0: a turn before every directory (600 of them), whatever the machine's speed.
  // What the build sees: each file handed over once, as it is found, in path order (the walk sorts its
  // returned list in any case; the order of the hand-overs is the walk's own).
  const handed: string[] = [];
  const { result: files, turns } = await turnsDuring(() =>
    walkSources(repo, { onNote: () => {}, yieldEveryMs: 0, onFile: (c) => handed.push(c.rel) }),
  );
  assert.equal(files.length, 300);
  assert.deepEqual(
    files.map((f) => f.rel),
    files.map((f) => f.rel).sort(),
  );
  assert.deepEqual(
    handed,
    files.map((f) => f.rel),
  );
  assert.ok(turns >= 600, `${turns} turns for 601 directories and 600 entries`);
  // The default interval: far fewer turns, the same files.
  const again = await turnsDuring(() => walkSources(repo, { onNote: () => {} }));
  assert.deepEqual(again.result, files);
  assert.ok(again.turns < turns);
});

test("the first look at a tree names its languages, most files first, without following links or skipped folders", () => {
  const repo = tempDir();
  const put = (rel: string) => {
    mkdirSync(join(repo, rel, ".."), { recursive: true });
    writeFileSync(join(repo, rel), "x\n");
  };
  for (const f of ["a.py", "pkg/b.py", "pkg/deep/c.py", "web/app.ts", "web/main.ts", "tool/main.go"]) put(f);
  for (let i = 0; i < 5; i++) put(`node_modules/lib/f${i}.js`);
  put(".git/hooks/x.java");
  // A link to a folder full of Java: not followed.
  const elsewhere = tempDir();
  for (let i = 0; i < 5; i++) writeFileSync(join(elsewhere, `J${i}.java`), "class J {}\n");
  symlinkSync(elsewhere, join(repo, "linked"));
  assert.deepEqual(sniffLanguages(repo), ["python", "typescript", "go"]);
  // Only as far as it is allowed to look: the root's own listing.
  assert.deepEqual(sniffLanguages(repo, { maxDirs: 1 }), ["python"]);
  // A folder that cannot be listed: nothing, and no throw.
  assert.deepEqual(sniffLanguages(join(repo, "missing")), []);
});
