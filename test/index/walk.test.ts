import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { walkSources } from "../../src/index/walk.ts";
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
