/** Small helpers of `bench/repo-bench.ts`. */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  if (v.length === 0) return 0;
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
}

/** The unified diff (as `git diff` writes it) of replacing `original` by `patched` in `file`; the tree is left as it was. */
export function gitDiffOf(repo: string, file: string, original: string, patched: string): string {
  const path = join(repo, file);
  const before = readFileSync(path, "utf8");
  if (!before.includes(original)) throw new Error(`${file} does not hold the planted line`);
  writeFileSync(path, before.replace(original, patched));
  try {
    return execFileSync("git", ["diff", "--", file], { cwd: repo, encoding: "utf8" });
  } finally {
    writeFileSync(path, before);
  }
}
