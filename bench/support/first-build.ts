/**
 * One first index build in a fresh process: `node bench/support/first-build.ts <dir> <index cache folder>
 * [--all] [--job]`. The compile cache is auto-fix's own, as for the command line (bin/auto-fix.js); the
 * index cache folder should be empty.
 *
 * With `--job` it runs as `auto-fix fix` (and so every GitHub App job) does: the parse workers start when
 * the run begins, the tree is copied into a private work tree (`createWorkspace`), and that copy is
 * indexed. Without it, the build starts its own workers, as on a local checkout with nothing before it.
 *
 * Prints one JSON line: the build's wall and CPU seconds (all threads), from the call to buildIndex to its
 * return, the seconds the copy took (0 without `--job`), the files indexed, and the seconds the first
 * lookup by name then takes (it reads every file's symbols and makes the name tables).
 */
import { enableProcessCompileCache } from "../../src/core/compile-cache.ts";
import { defaultCacheDir } from "../../src/index/cache.ts";
import { buildIndex, startParseWorkers } from "../../src/index/index.ts";
import { closeParsePool } from "../../src/index/pool.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";

const [dir, cacheDir, ...flags] = process.argv.slice(2);
if (!dir || !cacheDir) {
  console.error("usage: node bench/support/first-build.ts <dir> <index cache folder> [--all] [--job]");
  process.exit(2);
}
enableProcessCompileCache(defaultCacheDir());
const job = flags.includes("--job");
let root = dir;
let copyS = 0;
let dispose = async (): Promise<void> => {};
if (job) {
  startParseWorkers({ cacheDir, root: dir });
  const t = performance.now();
  const ws = await createWorkspace(dir);
  copyS = (performance.now() - t) / 1000;
  root = ws.root;
  dispose = ws.dispose;
}
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const index = await buildIndex(root, {
  cacheDir,
  ...(flags.includes("--all") ? { includeSkippedDirs: true } : {}),
});
const s = (performance.now() - t0) / 1000;
const used = process.cpuUsage(cpu0);
const t1 = performance.now();
index.symbolsNamed("__init__");
const lookupS = (performance.now() - t1) / 1000;
console.log(
  JSON.stringify({ s, cpu: (used.user + used.system) / 1e6, copyS, files: index.stats.files, lookupS }),
);
await closeParsePool();
await dispose();
