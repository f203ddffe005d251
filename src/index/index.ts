import { readFile, realpath, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { UserError } from "../core/errors.ts";
import { isTestPath } from "../core/test-files.ts";
import { defaultCacheDir, hashBytes, IndexCache, type Manifest, type ManifestEntry } from "./cache.ts";
import { CodeIndex } from "./code-index.ts";
import { extractSymbols } from "./extract.ts";
import { ParsePool } from "./pool.ts";
import type { CacheState, ExtractResult, IndexStats } from "./types.ts";
import { type SourceCandidate, walkSources } from "./walk.ts";

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
/** Files modified this close to the manifest's writing are re-hashed: their mtime may hide an edit. */
const MTIME_DOUBT_MS = 2000;
const READ_CONCURRENCY = 16;

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

  const candidates = await walkSources(realRoot, {
    onNote: note,
    ...(opts.includeSkippedDirs ? { includeSkippedDirs: true } : {}),
  });
  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  const cache = cacheDir === null ? null : new IndexCache(cacheDir, note);
  const manifest = cache ? await cache.loadManifest(realRoot) : null;
  const previous = new Map<string, ManifestEntry>();
  for (const f of manifest?.files ?? []) previous.set(f.path, f);

  const entries: (ManifestEntry | null)[] = new Array(candidates.length).fill(null);
  const texts = new Map<string, string>();
  let cached = 0;
  let parsed = 0;
  let changed = !manifest || manifest.files.length !== candidates.length;

  const maxWorkers = opts.workers ?? availableParallelism();
  let pool: ParsePool | null = null;
  const waiting: { text: string; language: SourceCandidate["language"]; done: (r: ExtractResult) => void }[] =
    [];
  const parseJobs: Promise<void>[] = [];
  const objectWrites: Promise<void>[] = [];

  const parseInMain = async (language: SourceCandidate["language"], text: string): Promise<ExtractResult> =>
    extractSymbols(language, text);

  const schedule = (c: SourceCandidate, text: string, onDone: (r: ExtractResult) => void): void => {
    if (!pool && maxWorkers > 0 && waiting.length + 1 >= MIN_FILES_FOR_WORKERS) {
      try {
        pool = new ParsePool(maxWorkers);
      } catch (err) {
        note(`parse workers could not start (${(err as Error).message}); parsing in one thread`);
      }
      if (pool) for (const w of waiting.splice(0)) submit(w.language, w.text, w.done, c.rel);
    }
    if (pool) submit(c.language, text, onDone, c.rel);
    else waiting.push({ text, language: c.language, done: onDone });
  };

  const submit = (
    language: SourceCandidate["language"],
    text: string,
    done: (r: ExtractResult) => void,
    rel: string,
  ): void => {
    const p = pool!
      .parse({ language, text })
      .catch(async (err: Error) => {
        note(`a parse worker failed on ${rel} (${err.message}); parsed it in the main thread`);
        return parseInMain(language, text);
      })
      .then(done);
    parseJobs.push(p);
  };

  const processOne = async (i: number): Promise<void> => {
    const c = candidates[i]!;
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
    let bytes: Buffer;
    try {
      bytes = await readFile(c.abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      note(
        `skipped ${c.rel}: ${code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? String(err))}`,
      );
      return;
    }
    if (bytes.length > c.size && bytes.length > 1024 * 1024) {
      note(`skipped ${c.rel}: grew over the size limit while indexing`);
      return;
    }
    if (looksBinary(bytes)) {
      note(`skipped ${c.rel}: binary content`);
      return;
    }
    changed = true;
    const hash = hashBytes(bytes);
    const base = {
      path: c.rel,
      language: c.language,
      isTest: isTestPath(c.rel),
      bytes: bytes.length,
      hash,
      mtimeMs: c.mtimeMs,
    };
    if (prev && prev.hash === hash && prev.language === c.language) {
      entries[i] = { ...prev, ...base };
      cached++;
      return;
    }
    const obj = cache ? await cache.getObject(hash) : null;
    const text = decoder.decode(bytes);
    texts.set(c.rel, text);
    if (obj) {
      entries[i] = { ...base, symbols: obj.symbols, syntaxErrors: obj.syntaxErrors };
      cached++;
      return;
    }
    parsed++;
    schedule(c, text, (r) => {
      entries[i] = { ...base, symbols: r.symbols, syntaxErrors: r.syntaxErrors };
      if (cache) objectWrites.push(cache.putObject(hash, r));
    });
  };

  try {
    let next = 0;
    const readers = Array.from({ length: Math.min(READ_CONCURRENCY, candidates.length) }, async () => {
      while (next < candidates.length) await processOne(next++);
    });
    await Promise.all(readers);
    for (const w of waiting.splice(0)) {
      try {
        w.done(await parseInMain(w.language, w.text));
      } catch (err) {
        note(`could not parse a file: ${(err as Error).message}`);
      }
    }
    await Promise.all(parseJobs);
  } finally {
    if (pool) await (pool as ParsePool).close();
  }
  await Promise.all(objectWrites);

  const files = entries.filter((e): e is ManifestEntry => e !== null);
  for (const f of files) {
    if (f.syntaxErrors > 0) note(`${f.path}: ${f.syntaxErrors} syntax error(s); indexed as far as it parses`);
  }
  if (files.length !== candidates.length) changed = true;
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
  const records = files.map(({ mtimeMs: _m, ...rest }) => ({ ...rest, isTest: isTestPath(rest.path) }));
  return new CodeIndex({ root: absRoot, realRoot, files: records, notes, stats, texts });
}

const decoder = new TextDecoder("utf-8");

/** A NUL byte in the first 8 KiB: not a text file. */
function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
