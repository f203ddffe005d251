import { realpath, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { UserError } from "../core/errors.ts";
import { isTestPath } from "../core/test-files.ts";
import { defaultCacheDir, IndexCache, type Manifest, type ManifestEntry } from "./cache.ts";
import { CodeIndex } from "./code-index.ts";
import { ParsePool } from "./pool.ts";
import { type FileJob, type FileOutcome, processFile } from "./process-file.ts";
import type { CacheState, IndexStats } from "./types.ts";
import { MAX_FILE_BYTES, type SourceCandidate, walkSources } from "./walk.ts";

export { CodeIndex } from "./code-index.ts";
export type { CacheState, FileRecord, IndexStats, SymbolInfo, SymbolKind } from "./types.ts";

export interface BuildIndexOptions {
  /** Cache folder; default from AUTO_FIX_CACHE_DIR / XDG_CACHE_HOME / ~/.cache/auto-fix. `null` disables the cache. */
  cacheDir?: string | null;
  /** Parse worker threads; default: one per core. 0 parses in the calling thread. */
  workers?: number;
  /** Called once per skipped file or cache problem, as it happens. */
  onNote?: (note: string) => void;
  /** Descend into node_modules, dist, vendor, ... as well (benchmarks over dependency trees). */
  includeSkippedDirs?: boolean;
}

/** Below this many files to parse, starting worker threads costs more than it saves. */
const MIN_FILES_FOR_WORKERS = 24;
const MIN_BYTES_FOR_WORKERS = 256 * 1024;
/** Files modified this close to the manifest's writing are re-hashed: their mtime may hide an edit. */
const MTIME_DOUBT_MS = 2000;

/**
 * Indexes every supported source file under `root`: classes, functions and methods with their line
 * ranges, using the content-addressed cache so that an unchanged file is never parsed twice.
 * Throws UserError when `root` is not a readable directory; everything else becomes a note.
 */
export async function buildIndex(root: string, opts: BuildIndexOptions = {}): Promise<CodeIndex> {
  const t0 = performance.now();
  const absRoot = resolve(root);
  const notes: string[] = [];
  const note = (n: string): void => {
    notes.push(n);
    opts.onNote?.(n);
  };
  let realRoot: string;
  try {
    realRoot = await realpath(absRoot);
    if (!(await stat(realRoot)).isDirectory()) throw new UserError(`${root} is not a directory`);
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UserError(`no such directory: ${root}`);
    throw new UserError(`cannot read ${root}: ${code ?? (err as Error).message}`);
  }

  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  const cache = cacheDir === null ? null : new IndexCache(cacheDir, note);
  const manifest = cache ? await cache.loadManifest(realRoot) : null;
  const maxWorkers = opts.workers ?? availableParallelism();
  let pool: ParsePool | null = null;
  const startPool = (n: number): void => {
    if (pool || maxWorkers <= 0) return;
    try {
      pool = new ParsePool(Math.min(maxWorkers, n), {
        cacheDir: cache ? cacheDir : null,
        maxBytes: MAX_FILE_BYTES,
      });
    } catch (err) {
      note(`parse workers could not start (${(err as Error).message}); parsing in one thread`);
    }
  };
  // With no manifest every file must be read: start the workers while the walk goes on.
  let seenFiles = 0;
  let seenBytes = 0;
  let candidates: SourceCandidate[];
  try {
    candidates = await walkSources(realRoot, {
      onNote: note,
      ...(opts.includeSkippedDirs ? { includeSkippedDirs: true } : {}),
      ...(manifest
        ? {}
        : {
            onFile: (c: SourceCandidate) => {
              seenFiles++;
              seenBytes += c.size;
              if (seenFiles >= MIN_FILES_FOR_WORKERS && seenBytes >= MIN_BYTES_FOR_WORKERS)
                startPool(maxWorkers);
            },
          }),
    });
  } catch (err) {
    await (pool as ParsePool | null)?.close();
    throw err;
  }
  const previous = new Map<string, ManifestEntry>();
  for (const f of manifest?.files ?? []) previous.set(f.path, f);

  const entries: (ManifestEntry | null)[] = new Array(candidates.length).fill(null);
  let cached = 0;
  let parsed = 0;
  let changed = !manifest || manifest.files.length !== candidates.length;

  // Files whose size and mtime match the last run (and are not too recent to trust) are not read.
  const jobs: { i: number; job: FileJob; size: number }[] = [];
  candidates.forEach((c, i) => {
    const prev = previous.get(c.rel);
    if (
      prev &&
      manifest &&
      prev.bytes === c.size &&
      prev.mtimeMs === c.mtimeMs &&
      prev.language === c.language &&
      c.mtimeMs < manifest.writtenAt - MTIME_DOUBT_MS
    ) {
      entries[i] = prev;
      cached++;
      return;
    }
    const prevHash = prev && prev.language === c.language ? prev.hash : null;
    jobs.push({ i, job: { abs: c.abs, rel: c.rel, language: c.language, prevHash }, size: c.size });
  });

  const accept = (i: number, r: FileOutcome): void => {
    for (const n of r.notes) note(n);
    if (!r.ok) return;
    const c = candidates[i]!;
    const prev = previous.get(c.rel);
    const symbols = r.symbols ?? prev?.symbols ?? [];
    const syntaxErrors = r.symbols ? r.syntaxErrors : (prev?.syntaxErrors ?? 0);
    if (!prev || prev.hash !== r.hash || prev.mtimeMs !== c.mtimeMs || prev.bytes !== r.bytes) changed = true;
    entries[i] = {
      path: c.rel,
      language: c.language,
      isTest: false,
      bytes: r.bytes,
      hash: r.hash,
      mtimeMs: c.mtimeMs,
      symbols,
      syntaxErrors,
    };
    if (r.parsed) {
      parsedHashes.add(r.hash);
      parsed++;
    } else if (r.symbols) fromObjects.push(r.hash);
    else cached++;
  };
  const parsedHashes = new Set<string>();
  const fromObjects: string[] = [];

  const parsedBytes = jobs.reduce((n, j) => n + j.size, 0);
  if (jobs.length >= MIN_FILES_FOR_WORKERS && parsedBytes >= MIN_BYTES_FOR_WORKERS) startPool(jobs.length);
  try {
    const p = pool as ParsePool | null;
    if (p) {
      // Largest files first, so that no worker is left with a big file at the end while the other idles.
      jobs.sort((a, b) => b.size - a.size);
      await Promise.all(
        jobs.map(({ i, job, size }) =>
          p.run(job, size).then(
            (r) => accept(i, r),
            async (err: Error) => {
              note(`a parse worker failed on ${job.rel} (${err.message}); processed it in the main thread`);
              accept(i, await processFile(job, cache, MAX_FILE_BYTES));
            },
          ),
        ),
      );
    } else {
      for (const { i, job } of jobs) accept(i, await processFile(job, cache, MAX_FILE_BYTES));
    }
  } finally {
    await (pool as ParsePool | null)?.close();
  }
  // A file whose twin (same content) was parsed in this very run was not served by an earlier run.
  for (const h of fromObjects) {
    if (parsedHashes.has(h)) parsed++;
    else cached++;
  }

  const files = entries.filter((e): e is ManifestEntry => e !== null);
  for (const f of files) f.isTest = isTestPath(f.path);
  for (const f of files) {
    if (f.syntaxErrors > 0) note(`${f.path}: ${f.syntaxErrors} syntax error(s); indexed as far as it parses`);
  }
  // Any file read again (changed, or too recent to trust its mtime) refreshes the manifest's time.
  if (files.length !== candidates.length || jobs.length > 0) changed = true;
  if (cache && changed) {
    const m: Manifest = { root: realRoot, writtenAt: Date.now(), files };
    await cache.saveManifest(m);
  }
  if (candidates.length === 0) {
    note("no source files of the supported languages (Python, JavaScript, TypeScript, Java, Go) were found");
  }

  let classes = 0;
  let functions = 0;
  let methods = 0;
  let bytesTotal = 0;
  for (const f of files) {
    bytesTotal += f.bytes;
    for (const s of f.symbols) {
      if (s.kind === "class") classes++;
      else if (s.kind === "function") functions++;
      else methods++;
    }
  }
  const cacheState: CacheState = parsed === 0 ? "hit" : cached === 0 ? "miss" : "partial";
  const stats: IndexStats = {
    files: files.length,
    bytes: bytesTotal,
    classes,
    functions,
    methods,
    seconds: Math.round(performance.now() - t0) / 1000,
    cache: cacheState,
    cachedFiles: cached,
    parsedFiles: parsed,
  };
  return new CodeIndex({ root: absRoot, realRoot, files, notes, stats });
}
