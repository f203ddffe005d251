/**
 * How long the host takes to walk crafted work trees through tree-fs: a chain of nested directories as
 * deep as a checkout allows (1,500 levels, a 3 kB path) and a wide tree. Each row walks the tree the way
 * a stage does: project detection, the validation walk that puts test configuration back, and the patch
 * engine's file listing. Target: every row under 1 s.
 *
 *   npm run bench:tree-walk [-- --depth 1500 --width 20000]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mayHoldTestConfig } from "../src/runners/shared/conventions-test-config.ts";
import { detectProject } from "../src/config/detect.ts";
import { openTree } from "../src/core/tree-fs.ts";
import { createDiskRepo } from "../src/patch/index.ts";
import { findTreeFiles } from "../src/validate/run-tests.ts";

const { values } = parseArgs({
  options: { depth: { type: "string", default: "1500" }, width: { type: "string", default: "20000" } },
});
const depth = Number(values.depth);
const width = Number(values.width);

function chain(root: string): void {
  // Built one level at a time relative to the last, as a checkout would, whatever PATH_MAX says.
  let dir = root;
  const made: string[] = [];
  for (let i = 0; i < depth; i++) {
    made.push("a");
    if (made.length === 200) {
      dir = join(dir, ...made);
      mkdirSync(dir, { recursive: true });
      made.length = 0;
    }
  }
  dir = join(dir, ...made);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "conftest.py"), "x = 1\n");
}

function wide(root: string): void {
  for (let i = 0; i < width; i++) {
    const d = join(root, `p${i % 100}`, `q${i}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "m.py"), "x = 1\n");
  }
}

const time = async (f: () => unknown): Promise<string> => {
  const t = process.hrtime.bigint();
  await f();
  return `${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(0)} ms`;
};

const rows: string[][] = [];
for (const [shape, build] of [
  [`chain of ${depth} directories`, chain],
  [`${width} directories, one file each`, wide],
] as const) {
  const root = mkdtempSync(join(tmpdir(), "tree-walk-bench-"));
  try {
    build(root);
    rows.push([shape, "detection", await time(() => detectProject(root))]);
    rows.push([
      shape,
      "validation walk (depth 64)",
      await time(() => findTreeFiles(openTree(root), mayHoldTestConfig, { maxDepth: 64 })),
    ]);
    rows.push([shape, "patch engine listing", await time(() => createDiskRepo(root).listFiles())]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
const w = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(`${r[0]!.padEnd(w[0]!)}  ${r[1]!.padEnd(w[1]!)}  ${r[2]}`);
