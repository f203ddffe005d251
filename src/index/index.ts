import { realpath, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { workerCompileCacheDir, workerEnv } from "../core/compile-cache.ts";
import { UserError } from "../core/errors.ts";
import { isTestPath } from "../core/test-files.ts";
import { defaultCacheDir, IndexCache, type Manifest, type ManifestEntry } from "./cache.ts";
import { CodeIndex } from "./code-index.ts";
import { countKinds, withLazySymbols } from "./codec.ts";
import { newParseSession, type ParsePool, type ParseSession, sharedParsePool } from "./pool.ts";
import { type FileJob, type FileOutcome, processBatch } from "./process-file.ts";
import type { CacheState, IndexStats } from "./types.ts";
import { MAX_FILE_BYTES, type SourceCandidate, walkSources } from "./walk.ts";

export { CodeIndex } from "./code-index.ts";
export type { CacheState, FileRecord, IndexStats, SymbolInfo, SymbolKind } from "./types.ts";

export interface BuildIndexOptions {
  /** Cache folder; default from AUTO_FIX_CACHE_DIR / XDG_CACHE_HOME / ~/.cache/auto-fix. `null` disables the cache. */
  cacheDir?: string | null;
  /**
   * Parse worker threads to start when none are running; default: one per core. 0 parses in the calling
   * thread. The workers are shared by every build in the process: a build uses those already running.
   */
  workers?: number;
  /** Called once per skipped file or cache problem, as it happens. */
  onNote?: (note: string) => void;
  /** Called as files are found and indexed (`done` of `found` so far; `found` is final once the walk ends). */
  onProgress?: (p: { found: number; done: number }) => void;
  /** Descend into node_modules, dist, vendor, ... as well (benchmarks over dependency trees). */
  includeSkippedDirs?: boolean;
}

/**
 * Starts the process's parse workers now, before there is anything to index: a run that first copies or
 * clones its repository (`auto-fix fix`, and so every GitHub App job) has them up when its first build
 * begins, instead of waiting 0.2–0.4 s for two threads to start. These are the workers a build with the
 * same options would start, and it uses them; idle ones hold no reference on the event loop and close
 * after 10 minutes. Workers that cannot start now are left to the build, which says so in a note.
 */
export function startParseWorkers(
  opts: Pick<BuildIndexOptions, "cacheDir" | "workers"> & {
    /**
     * The tree about to be indexed (or the one it is copied from): the workers load the grammars of the
     * languages in its first folders while they wait.
     */
    root?: string;
  } = {},
): void {
  const n = opts.workers ?? availableParallelism();
  if (n <= 0) return;
  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  try {
    const pool = parsePoolFor(n, cacheDir);
    if (opts.root !== undefined) pool.prepare(opts.root);
  } catch {
    // The build starts them again when it needs them, and notes a failure then.
  }
}

/**
 * The shared parse pool with at least `n` workers, given the compile cache that goes with `cacheDir`: one
 * place for both callers, so that workers started ahead of a build are the ones it would start itself.
 */
function parsePoolFor(n: number, cacheDir: string | null): ParsePool {
  return sharedParsePool(n, { env: workerEnv(workerCompileCacheDir(cacheDir)) });
}

/** Below this many files to parse, starting worker threads costs more than it saves. */
const MIN_FILES_FOR_WORKERS = 24;
const MIN_BYTES_FOR_WORKERS = 256 * 1024;
/** Files read per object-store query when the calling thread parses. */
const MAIN_THREAD_BATCH = 32;
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
    if (code === "ENOENT") throw new UserError(`${root} is not a directory`);
    throw new UserError(`cannot read ${root}: ${code ?? (err as Error).message}`);
  }

  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  const cache = cacheDir === null ? null : new IndexCache(cacheDir, note);
  const manifest = cache ? await cache.loadManifest(realRoot) : null;
  const maxWorkers = opts.workers ?? availableParallelism();
  let pool: ParsePool | null = null;
  let session: ParseSession | null = null;
  let poolFailed = false;
  const startPool = (n: number): void => {
    if (pool || poolFailed || maxWorkers <= 0) return;
    // Workers only read the object store: open (and if need be rebuild) it here first. A store that
    // cannot be opened here is not offered to the workers (one note, not one per thread).
    const storeUsable = cache?.objects.open() === true;
    session = newParseSession(storeUsable ? cacheDir : null, MAX_FILE_BYTES);
    try {
      pool = parsePoolFor(Math.min(maxWorkers, n), cacheDir);
    } catch (err) {
      poolFailed = true;
      note(`parse workers could not start (${(err as Error).message}); parsing in one thread`);
    }
  };
  const previous = new Map<string, ManifestEntry>();
  for (const f of manifest?.files ?? []) previous.set(f.path, f);
  const outcomes = new Map<SourceCandidate, ManifestEntry>();
  /** Symbols already encoded by whoever read the file, for the manifest. */
  const rowsOf = new Map<ManifestEntry, string | Uint8Array>();
  let cached = 0;
  let parsed = 0;
  const parsedHashes = new Set<string>();
  const fromObjects: string[] = [];
  let changed = !manifest;

  let found = 0;
  let done = 0;
  const progress = (): void => opts.onProgress?.({ found, done });
  const accept = (c: SourceCandidate, r: FileOutcome): void => {
    done++;
    progress();
    for (const n of r.notes) note(n);
    if (!r.ok) return;
    const prev = previous.get(c.rel);
    const fresh = r.rows !== null;
    const syntaxErrors = fresh ? r.syntaxErrors : (prev?.syntaxErrors ?? 0);
    if (!prev || prev.hash !== r.hash || prev.mtimeMs !== c.mtimeMs || prev.bytes !== r.bytes) changed = true;
    const fields = {
      path: c.rel,
      language: c.language,
      isTest: false,
      bytes: r.bytes,
      hash: r.hash,
      mtimeMs: c.mtimeMs,
      syntaxErrors,
    };
    // Rows from a parse worker are read into symbols when a search first needs them (codec.ts).
    const entry: ManifestEntry =
      r.symbols === null && r.rows !== null
        ? withLazySymbols(fields, r.rows)
        : { ...fields, symbols: r.symbols ?? prev?.symbols ?? [] };
    if (r.kinds) entry.kinds = r.kinds;
    outcomes.set(c, entry);
    if (r.rows !== null) rowsOf.set(entry, r.rowBytes ?? r.rows);
    if (r.parsed && r.rows !== null) cache?.putObject(r.hash, r.rows, r.syntaxErrors);
    if (r.parsed) {
      parsedHashes.add(r.hash);
      parsed++;
    } else if (fresh) fromObjects.push(r.hash);
    else cached++;
  };
  const jobOf = (c: SourceCandidate): FileJob => {
    const prev = previous.get(c.rel);
    return {
      abs: c.abs,
      rel: c.rel,
      language: c.language,
      prevHash: prev?.language === c.language ? prev.hash : null,
    };
  };
  const inMainThread = async (cs: readonly SourceCandidate[]): Promise<void> => {
    // A few files at a time: one object-store query each, and little file content held at once.
    for (let i = 0; i < cs.length; i += MAIN_THREAD_BATCH) {
      const part = cs.slice(i, i + MAIN_THREAD_BATCH);
      const results = await processBatch(part.map(jobOf), cache, MAX_FILE_BYTES);
      part.forEach((c, k) => {
        const r = results[k];
        if (r) accept(c, r);
      });
    }
  };
  // Every file handed to the workers; a worker's failure sends its files to the main thread.
  const running: Promise<void>[] = [];
  let workerFiles = 0;
  const dispatch = (p: ParsePool, c: SourceCandidate): void => {
    running.push(
      p.run(session!, jobOf(c), c.size).then(
        (r) => {
          workerFiles++;
          accept(c, r);
        },
        async (err: Error) => {
          note(`a parse worker failed on ${c.rel} (${err.message}); processed it in the main thread`);
          await inMainThread([c]);
        },
      ),
    );
  };

  // With no manifest every file must be read: the workers start, and take files, while the walk goes on.
  const early: SourceCandidate[] = [];
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
              found++;
              seenBytes += c.size;
              const p = pool as ParsePool | null;
              if (p) return dispatch(p, c);
              early.push(c);
              if (early.length >= MIN_FILES_FOR_WORKERS && seenBytes >= MIN_BYTES_FOR_WORKERS) {
                startPool(maxWorkers);
                const started = pool as ParsePool | null;
                if (started) for (const e of early.splice(0)) dispatch(started, e);
              }
            },
          }),
    });
  } catch (err) {
    await Promise.allSettled(running);
    cache?.close();
    throw err;
  }

  // Files whose size and mtime match the last run (and are not too recent to trust) are not read.
  const rest: SourceCandidate[] = manifest ? [] : early;
  if (manifest) {
    if (manifest.files.length !== candidates.length) changed = true;
    for (const c of candidates) {
      const prev = previous.get(c.rel);
      if (
        prev &&
        prev.bytes === c.size &&
        prev.mtimeMs === c.mtimeMs &&
        prev.language === c.language &&
        c.mtimeMs < manifest.writtenAt - MTIME_DOUBT_MS
      ) {
        outcomes.set(c, prev);
        cached++;
        done++;
      } else rest.push(c);
    }
  }
  const readAgain = rest.length + running.length;
  found = candidates.length;
  progress();

  try {
    const restBytes = rest.reduce((n, c) => n + c.size, 0);
    if (rest.length >= MIN_FILES_FOR_WORKERS && restBytes >= MIN_BYTES_FOR_WORKERS) startPool(rest.length);
    const p = pool as ParsePool | null;
    if (p) {
      // Largest files first, so that no worker is left with a big file at the end while the other idles.
      rest.sort((a, b) => b.size - a.size);
      for (const c of rest) dispatch(p, c);
      p.largestFirst();
      await Promise.all(running);
    } else {
      await inMainThread(rest);
    }
  } finally {
    cache?.close();
  }
  // A file whose twin (same content) was parsed in this very run was not served by an earlier run.
  for (const h of fromObjects) {
    if (parsedHashes.has(h)) parsed++;
    else cached++;
  }

  const files = candidates.map((c) => outcomes.get(c)).filter((e): e is ManifestEntry => e !== undefined);
  for (const f of files) f.isTest = isTestPath(f.path);
  for (const f of files) {
    if (f.syntaxErrors > 0) note(`${f.path}: ${f.syntaxErrors} syntax error(s); indexed as far as it parses`);
  }
  // Any file read again (changed, or too recent to trust its mtime) refreshes the manifest's time.
  if (files.length !== candidates.length || readAgain > 0) changed = true;
  if (cache && changed) {
    const m: Manifest = { root: realRoot, writtenAt: Date.now(), files };
    await cache.saveManifest(m, (f) => rowsOf.get(f));
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
    const [c, fn, m] = f.kinds ?? countKinds(f.symbols);
    classes += c;
    functions += fn;
    methods += m;
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
    workerFiles,
  };
  return new CodeIndex({ root: absRoot, realRoot, files, notes, stats });
}
