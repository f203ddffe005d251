/**
 * One first index build in a fresh process, as a job makes it: `node bench/support/first-build.ts
 * <dir> <index cache folder> [--all]`. The compile cache is auto-fix's own, as for the command line
 * (bin/auto-fix.js); the index cache folder should be empty. Prints one JSON line: the build's wall and
 * CPU seconds (all threads), from the call to buildIndex to its return, and the files indexed.
 */
import { enableProcessCompileCache } from "../../src/core/compile-cache.ts";
import { defaultCacheDir } from "../../src/index/cache.ts";
import { buildIndex } from "../../src/index/index.ts";
import { closeParsePool } from "../../src/index/pool.ts";

const [dir, cacheDir, all] = process.argv.slice(2);
if (!dir || !cacheDir) {
  console.error("usage: node bench/support/first-build.ts <dir> <index cache folder> [--all]");
  process.exit(2);
}
enableProcessCompileCache(defaultCacheDir());
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const index = await buildIndex(dir, { cacheDir, ...(all === "--all" ? { includeSkippedDirs: true } : {}) });
const s = (performance.now() - t0) / 1000;
const used = process.cpuUsage(cpu0);
console.log(JSON.stringify({ s, cpu: (used.user + used.system) / 1e6, files: index.stats.files }));
await closeParsePool();
