/**
 * Node's compile cache for worker threads. A thread that loads the TypeScript sources strips their
 * types first (Node starts its TypeScript transformer, a WebAssembly module, once per thread) and
 * compiles the result; with the compile cache both are read back from disk on the next start, which
 * makes a new parse worker ready several times sooner. Worker threads do not inherit the cache that
 * `module.enableCompileCache()` enabled in the main thread, so they are given its folder through their
 * environment.
 *
 * The folder must be private to the user that runs auto-fix (a cached entry is trusted code): it lives
 * in auto-fix's own cache folder, never in a shared temporary folder, and repository code (which runs
 * only in the sandbox) never sees it.
 */
import { enableCompileCache, getCompileCacheDir } from "node:module";
import { basename, dirname, join } from "node:path";

/** The compile cache's folder name inside auto-fix's cache folder (bin/auto-fix.js uses the same). */
export const COMPILE_CACHE_FOLDER = "node-compile-cache";

/**
 * The folder worker threads should keep compiled code in: the main thread's when it has one, else one
 * inside `cacheDir` (auto-fix's cache folder), else none.
 */
export function workerCompileCacheDir(cacheDir: string | null): string | null {
  const current = getCompileCacheDir();
  // Node keeps its entries in a sub-folder per Node version, which the worker's Node adds again.
  if (current) return basename(current).startsWith(`v${process.versions.node}-`) ? dirname(current) : current;
  return cacheDir === null ? null : join(cacheDir, COMPILE_CACHE_FOLDER);
}

/** The environment of a worker thread that keeps compiled code in `dir` (the process's own when null). */
export function workerEnv(dir: string | null): NodeJS.ProcessEnv {
  return dir === null ? process.env : { ...process.env, NODE_COMPILE_CACHE: dir };
}

/**
 * Turns on the compile cache for this process in `cacheHome` (auto-fix's cache folder), as
 * bin/auto-fix.js does for every command: for entry points other than the command line (benchmarks).
 */
export function enableProcessCompileCache(cacheHome: string): void {
  enableCompileCache(join(cacheHome, COMPILE_CACHE_FOLDER));
}
