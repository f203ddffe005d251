import { mkdirSync, rmSync } from "node:fs";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname } from "node:path";
import { decodeSymbols } from "./codec.ts";
import type { SymbolInfo } from "./types.ts";

/** What the store holds for one content hash. */
export interface StoredObject {
  symbols: SymbolInfo[];
  /** The symbols as stored: JSON of codec.ts rows (reused for the manifest, never encoded twice). */
  rows: string;
  syntaxErrors: number;
}

/** What a stored object costs besides its rows (hash, row header, index entry), for eviction's sums. */
export const ROW_OVERHEAD_BYTES = 160;

/** Queued objects written per transaction. */
const FLUSH_EVERY = 1024;

/**
 * The content-addressed object store: symbols by the SHA-256 of a file's content, in one SQLite file
 * (WAL mode) shared by every checkout, thread and process. Parse workers only read it; the thread that
 * builds the index queues what was parsed and writes it in large transactions, so writers never wait
 * for each other's locks. A file that is not a database any more is deleted and rebuilt (by the owner
 * that may `repair`); a malformed row is a miss; any other failure becomes one note and the run goes
 * on without the store.
 */
export class ObjectStore {
  private readonly path: string;
  private readonly onNote: (note: string) => void;
  private readonly repair: boolean;
  /** undefined: not opened yet; null: unusable for this run. */
  private db: DatabaseSync | null | undefined = undefined;
  private selectStmt: StatementSync | undefined;
  private insertStmt: StatementSync | undefined;
  private readonly pending: [string, string, number][] = [];

  constructor(path: string, onNote: (note: string) => void, opts: { repair: boolean }) {
    this.path = path;
    this.onNote = onNote;
    this.repair = opts.repair;
  }

  /** Opens the store now (repairing it where allowed); false when it cannot be used this run. */
  open(): boolean {
    return this.connection() !== null;
  }

  private connection(): DatabaseSync | null {
    if (this.db !== undefined) return this.db;
    this.db = null;
    try {
      this.db = openDatabase(this.path);
    } catch (err) {
      if (!isCorruption(err) || !this.repair) {
        this.onNote(
          `the index cache's object store cannot be opened (${(err as Error).message}); continuing without it`,
        );
        return null;
      }
      this.onNote("the index cache's object store was corrupt; rebuilding it");
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${this.path}${suffix}`, { force: true });
      try {
        this.db = openDatabase(this.path);
      } catch (again) {
        this.onNote(
          `the index cache's object store cannot be opened (${(again as Error).message}); continuing without it`,
        );
      }
    }
    return this.db;
  }

  /** The stored objects among `hashes` (one query); a malformed row is left out with a note. */
  getMany(hashes: readonly string[]): Map<string, StoredObject> {
    const found = new Map<string, StoredObject>();
    const db = this.connection();
    if (!db || hashes.length === 0) return found;
    let rows: Record<string, unknown>[];
    try {
      this.selectStmt ??= db.prepare(
        "SELECT hash, rows, errors FROM objects WHERE hash IN (SELECT value FROM json_each(?))",
      );
      rows = this.selectStmt.all(JSON.stringify(hashes)) as Record<string, unknown>[];
    } catch (err) {
      this.giveUp(err);
      return found;
    }
    for (const row of rows) {
      const hash = String(row.hash);
      try {
        if (typeof row.rows !== "string" || typeof row.errors !== "number") throw new Error("bad row");
        found.set(hash, {
          symbols: decodeSymbols(JSON.parse(row.rows)),
          rows: row.rows,
          syntaxErrors: row.errors,
        });
      } catch {
        this.onNote(`a corrupt index cache entry (${hash.slice(0, 12)}) was rebuilt`);
      }
    }
    return found;
  }

  /** Queues one object; written by `flush()` (or once enough have queued). */
  put(hash: string, rows: string, syntaxErrors: number): void {
    if (this.db === null) return;
    this.pending.push([hash, rows, syntaxErrors]);
    if (this.pending.length >= FLUSH_EVERY) this.flush();
  }

  /** Writes the queued objects in one transaction. Every writer of a hash writes the same value. */
  flush(): void {
    if (this.pending.length === 0) return;
    const queued = this.pending.splice(0);
    const db = this.connection();
    if (!db) return;
    try {
      this.insertStmt ??= db.prepare("INSERT OR REPLACE INTO objects (hash, rows, errors) VALUES (?, ?, ?)");
      db.exec("BEGIN IMMEDIATE");
      try {
        for (const [hash, rows, errors] of queued) this.insertStmt.run(hash, rows, errors);
        db.exec("COMMIT");
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      }
    } catch (err) {
      this.giveUp(err);
    }
  }

  /**
   * Eviction, in one write transaction (concurrent evictions and writers take turns; a reader sees the
   * store before or after, never half of it): `choose` gets the size of every object (bytes of its rows)
   * and returns the hashes to keep, or null to keep all; the others are deleted and the freed pages given
   * back to the file system. `choose` runs synchronously inside the transaction. Returns how many objects
   * were deleted; a failure is one note and deletes nothing.
   */
  evict(choose: (sizes: Map<string, number>) => Set<string> | null): number {
    this.flush();
    const db = this.connection();
    if (!db) return 0;
    let deleted = 0;
    try {
      db.exec("BEGIN IMMEDIATE");
      try {
        const sizes = new Map<string, number>();
        for (const row of db.prepare("SELECT hash, length(rows) AS n FROM objects").all()) {
          sizes.set(String(row.hash), Number(row.n) + ROW_OVERHEAD_BYTES);
        }
        const keep = choose(sizes);
        if (keep) {
          const result = db
            .prepare("DELETE FROM objects WHERE hash NOT IN (SELECT value FROM json_each(?))")
            .run(JSON.stringify([...keep]));
          deleted = Number(result.changes);
        }
        db.exec("COMMIT");
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      }
      if (deleted > 0) {
        db.exec("PRAGMA incremental_vacuum");
        // Another connection reading the log may keep it from being cut now: the next checkpoint does.
        db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
      }
    } catch (err) {
      this.onNote(`the index cache could not be trimmed (${(err as Error).message})`);
    }
    return deleted;
  }

  /** Flushes and closes; the next use opens the store again. */
  close(): void {
    this.flush();
    try {
      this.db?.close();
    } catch {
      // Closing after a failure changes nothing.
    }
    this.db = undefined;
    this.selectStmt = undefined;
    this.insertStmt = undefined;
  }

  private giveUp(err: unknown): void {
    this.onNote(
      `the index cache's object store cannot be used (${(err as Error).message}); continuing without it`,
    );
    this.pending.length = 0;
    try {
      this.db?.close();
    } catch {
      // already unusable
    }
    this.db = null;
  }
}

function openDatabase(path: string): DatabaseSync {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: 10_000 });
  try {
    // Rows average a few KiB (a file's symbols): on 16 KiB pages most fit in one, where 4 KiB pages
    // spill them into overflow chains. Takes effect only when the file is created.
    db.exec("PRAGMA page_size = 16384");
    // Pages freed by eviction go back to the file system (`PRAGMA incremental_vacuum`). Takes effect only
    // when the file is created.
    db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    db.exec("PRAGMA journal_mode = WAL");
    // A cache may lose its last writes on a power cut: no disk flush per commit.
    db.exec("PRAGMA synchronous = NORMAL");
    // The write-ahead log is cut back to this size after each checkpoint (it counts toward the cap).
    db.exec("PRAGMA journal_size_limit = 4194304");
    // A rowid table with the hash as a unique key: a table clustered on the hash itself (WITHOUT ROWID)
    // moves these large rows around its B-tree on every insert, which costs several times more.
    db.exec(
      "CREATE TABLE IF NOT EXISTS objects (hash TEXT NOT NULL UNIQUE, rows TEXT NOT NULL, errors INTEGER NOT NULL)",
    );
    // Reading the table proves the file is a database at all.
    db.prepare("SELECT count(*) FROM objects WHERE hash = ''").get();
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** SQLite's "not a database" and "malformed" errors: the file must be rebuilt. */
function isCorruption(err: unknown): boolean {
  const e = err as { message?: string; code?: string; errstr?: string };
  return /not a database|malformed|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(
    `${e.message} ${e.code ?? ""} ${e.errstr ?? ""}`,
  );
}
