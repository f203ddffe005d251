/** A small repository on disk, opened as a tree, and the canary rules of a runner (for runner part tests). */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openTree, type TreeFs } from "../../../src/core/tree-fs.ts";
import { type RunnerName, runnerFor } from "../../../src/runners/index.ts";
import type { CanaryRules, SourceInput } from "../../../src/runners/parts/canaries.ts";

const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder holding `files` (path → text), opened as a tree. */
export function treeOf(files: Record<string, string>): { tree: TreeFs; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "runner-part-"));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return { tree: openTree(dir), dir };
}

/** The check-test rules of `name`, which must place check tests. */
export function rulesOf(name: RunnerName): CanaryRules {
  const rules = runnerFor(name).canaries;
  assert.ok(rules.placed, `${name} places check tests`);
  return rules;
}

/** A source input for a check-test file in `dir`, with fixed words so the text can be read back. */
export function sourceInput(tree: TreeFs, dir: string, more: Partial<SourceInput> = {}): SourceInput {
  return {
    tree,
    dir,
    token: "kavelomi",
    other: "dapuno",
    spare: "sitere",
    proofName: ".bolame-a1b2c3.tmp",
    proofValue: "f".repeat(64),
    impossible: "0123456789abcdef",
    ...more,
  };
}
