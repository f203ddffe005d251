import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { LANGUAGES } from "../treesitter/languages.ts";
import { querySource } from "./extract.ts";
import { decodeSymbols, encodeSymbols } from "./codec.ts";
import type { ExtractResult, FileRecord } from "./types.ts";

/** Manifests kept (one per repository root); the oldest beyond this are deleted. */
export const MAX_MANIFESTS = 64;

/** The content-addressed object store: one SQLite file shared by every checkout and thread. */
const OBJECTS_DB = "objects.sqlite";

/** Queued objects written per transaction. */
const FLUSH_EVERY = 512;

/** Opens (creating it when missing) the object store in WAL mode, so threads and processes share it. */
function openObjectStore(path: string): DatabaseSync {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: 10_000 });
  try {
    db.exec("PRAGMA journal_mode = WAL");
    // A cache may lose its last writes on a power cut: no disk flush per commit.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("CREATE TABLE IF NOT EXISTS objects (hash TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID");
    // Reading the schema proves the file is a database at all.
    db.prepare("SELECT count(*) FROM objects WHERE hash = ''").get();
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** SQLite's "not a database" and "malformed" errors: the file must be rebuilt. */
function isCorruption(err: unknown): boolean {
  return /not a database|malformed|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(
    `${(err as Error).message} ${(err as { code?: string }).code ?? ""} ${(err as { errstr?: string }).errstr ?? ""}`,
  );
}

/** Bumped whenever the extractor's output changes shape or meaning. */
const EXTRACTOR_VERSION = 3;

/** The cache folder: AUTO_FIX_CACHE_DIR, else $XDG_CACHE_HOME/auto-fix, else ~/.cache/auto-fix. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AUTO_FIX_CACHE_DIR) return env.AUTO_FIX_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "auto-fix");
  return join(homedir(), ".cache", "auto-fix");
}

let schemaKey: string | null = null;

/** Changes when the extractor version or any query file changes, so old entries are never reused. */
function extractorKey(): string {
  if (!schemaKey) {
    const h = createHash("sha256").update(`v${EXTRACTOR_VERSION}\n`);
    for (const lang of LANGUAGES) h.update(`${lang}\n${querySource(lang)}\n`);
    schemaKey = h.digest("hex").slice(0, 12);
  }
  return schemaKey;
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** One file of a root's manifest: what it was when indexed, so that an unchanged file is not read again. */
export interface ManifestEntry extends FileRecord {
  mtimeMs: number;
}

export interface Manifest {
  root: string;
  /** When the manifest was written (ms since epoch): files modified this close to it are re-hashed. */
  writtenAt: number;
  files: ManifestEntry[];
}

/**
 * Content-addressed cache of extracted symbols (`objects.sqlite`, shared by every checkout) plus a
 * packed manifest per repository root (path, size, mtime, hash and symbols of every file) for the
 * stat-only warm path. A corrupt or unreadable entry is a miss, never an error; write failures become
 * notes.
 */
export class IndexCache {
  readonly dir: string;
  private readonly onNote: (note: string) => void;
  private writeFailed = false;
  private readonly madeDirs = new Set<string>();
  /** undefined: not opened yet; null: unusable for this run. */
  private db: DatabaseSync | null | undefined = undefined;
  private selectStmt: StatementSync | undefined;
  private insertStmt: StatementSync | undefined;
  private readonly pending: [string, string][] = [];

  constructor(cacheDir: string, onNote: (note: string) => void) {
    this.dir = join(cacheDir, `index-${extractorKey()}`);
    this.onNote = onNote;
  }

  private manifestPath(realRoot: string): string {
    return join(
      this.dir,
      "roots",
      `${createHash("sha256").update(realRoot).digest("hex").slice(0, 32)}.json`,
    );
  }

  async loadManifest(realRoot: string): Promise<Manifest | null> {
    const path = this.manifestPath(realRoot);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return null;
    }
    try {
      const data = JSON.parse(text) as StoredManifest;
      if (data.root !== realRoot || typeof data.writtenAt !== "number" || !Array.isArray(data.files)) {
        throw new Error("bad shape");
      }
      const files: ManifestEntry[] = data.files.map((f) => {
        if (
          typeof f.p !== "string" ||
          typeof f.h !== "string" ||
          typeof f.b !== "number" ||
          typeof f.m !== "number" ||
          typeof f.e !== "number" ||
          typeof f.l !== "string"
        ) {
          throw new Error("bad entry");
        }
        return {
          path: f.p,
          language: f.l as ManifestEntry["language"],
          isTest: false,
          bytes: f.b,
          hash: f.h,
          mtimeMs: f.m,
          syntaxErrors: f.e,
          symbols: decodeSymbols(f.s),
        };
      });
      return { root: data.root, writtenAt: data.writtenAt, files };
    } catch {
      this.onNote("the index cache manifest for this repository was corrupt; rebuilding it");
      await rm(path, { force: true }).catch(() => {});
      return null;
    }
  }

  async saveManifest(manifest: Manifest): Promise<void> {
    const stored: StoredManifest = {
      root: manifest.root,
      writtenAt: manifest.writtenAt,
      files: manifest.files.map((f) => ({
        p: f.path,
        l: f.language,
        b: f.bytes,
        h: f.hash,
        m: f.mtimeMs,
        e: f.syntaxErrors,
        s: encodeSymbols(f.symbols),
      })),
    };
    await this.writeAtomic(this.manifestPath(manifest.root), JSON.stringify(stored));
    await this.pruneManifests();
  }

  /**
   * Keeps the newest MAX_MANIFESTS manifests (every fresh checkout, e.g. one per repair run, writes
   * one). Objects stay: they are shared by content.
   */
  private async pruneManifests(): Promise<void> {
    const dir = join(this.dir, "roots");
    try {
      const names = (await readdir(dir)).filter((n) => n.endsWith(".json"));
      if (names.length <= MAX_MANIFESTS) return;
      const aged = await Promise.all(
        names.map(async (n) => ({
          n,
          t: await stat(join(dir, n)).then(
            (st) => st.mtimeMs,
            () => 0,
          ),
        })),
      );
      aged.sort((a, b) => b.t - a.t);
      await Promise.all(aged.slice(MAX_MANIFESTS).map((a) => rm(join(dir, a.n), { force: true })));
    } catch {
      // Pruning is housekeeping: a failure changes nothing for this run.
    }
  }

  /** The object store, opened on first use (one connection per thread). */
  private objects(): DatabaseSync | null {
    if (this.db !== undefined) return this.db;
    this.db = null;
    if (this.writeFailed) return null;
    const path = join(this.dir, OBJECTS_DB);
    try {
      this.db = openObjectStore(path);
    } catch (err) {
      if (!isCorruption(err)) {
        this.writeFailed = true;
        this.onNote(
          `the index cache in ${this.dir} cannot be opened (${(err as Error).message}); continuing without it`,
        );
        return null;
      }
      this.onNote("the index cache's object store was corrupt; rebuilding it");
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      try {
        this.db = openObjectStore(path);
      } catch (again) {
        this.writeFailed = true;
        this.onNote(
          `the index cache in ${this.dir} cannot be opened (${(again as Error).message}); continuing without it`,
        );
      }
    }
    return this.db;
  }

  /** Symbols stored for a content hash, or null (missing or corrupt: a corrupt entry is a miss). */
  getObject(hash: string): ExtractResult | null {
    const db = this.objects();
    if (!db) return null;
    let row: { data?: unknown } | undefined;
    try {
      this.selectStmt ??= db.prepare("SELECT data FROM objects WHERE hash = ?");
      row = this.selectStmt.get(hash) as { data?: unknown } | undefined;
    } catch (err) {
      this.giveUp(err);
      return null;
    }
    if (!row) return null;
    try {
      if (typeof row.data !== "string") throw new Error("bad row");
      const data = JSON.parse(row.data) as { s: unknown; e: unknown };
      if (typeof data.e !== "number") throw new Error("bad shape");
      return { symbols: decodeSymbols(data.s), syntaxErrors: data.e };
    } catch {
      this.onNote(`a corrupt index cache entry (${hash.slice(0, 12)}) was rebuilt`);
      return null;
    }
  }

  /**
   * Queues symbols to store under their content hash; `flush()` writes the queue in one transaction
   * (every writer of a hash writes the same value, so a second writer simply replaces it).
   */
  putObject(hash: string, result: ExtractResult): void {
    if (this.writeFailed) return;
    this.pending.push([hash, JSON.stringify({ s: encodeSymbols(result.symbols), e: result.syntaxErrors })]);
    if (this.pending.length >= FLUSH_EVERY) this.flush();
  }

  /** Writes the queued objects; a failure becomes a note and the cache is left alone for the run. */
  flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending.splice(0);
    const db = this.objects();
    if (!db) return;
    try {
      this.insertStmt ??= db.prepare("INSERT OR REPLACE INTO objects (hash, data) VALUES (?, ?)");
      db.exec("BEGIN IMMEDIATE");
      try {
        for (const [hash, data] of rows) this.insertStmt.run(hash, data);
        db.exec("COMMIT");
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      }
    } catch (err) {
      this.giveUp(err);
    }
  }

  /** Flushes and closes the object store. */
  close(): void {
    this.flush();
    try {
      this.db?.close();
    } catch {
      // Closing twice or after a failure changes nothing.
    }
    this.db = null;
    this.selectStmt = undefined;
    this.insertStmt = undefined;
  }

  private giveUp(err: unknown): void {
    if (this.writeFailed) return;
    this.writeFailed = true;
    this.pending.length = 0;
    this.onNote(
      `the index cache in ${this.dir} cannot be used (${(err as Error).message}); continuing without it`,
    );
    try {
      this.db?.close();
    } catch {
      // already unusable
    }
    this.db = null;
  }

  private async writeAtomic(path: string, text: string): Promise<void> {
    if (this.writeFailed) return;
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      const dir = dirname(path);
      if (!this.madeDirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        this.madeDirs.add(dir);
      }
      await writeFile(tmp, text);
      await rename(tmp, path);
    } catch (err) {
      this.writeFailed = true;
      await rm(tmp, { force: true }).catch(() => {});
      this.onNote(
        `the index cache in ${this.dir} cannot be written (${(err as Error).message}); continuing without it`,
      );
    }
  }
}

/** The manifest as stored: short keys, symbols encoded by codec.ts. */
interface StoredManifest {
  root: string;
  writtenAt: number;
  files: { p: string; l: string; b: number; h: string; m: number; e: number; s: unknown }[];
}
