import { DatabaseSync } from "node:sqlite";

/**
 * Opens (and creates or migrates) the job database in WAL mode. Job connections sync every commit to disk
 * (a stored job survives a power cut); counters (`durable: false`) survive a crash of the process but may
 * lose their last second on a power cut, and cost no disk flush per write.
 */
export function openJobDatabase(path: string, options: { durable?: boolean } = {}): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: 10_000 });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`PRAGMA synchronous = ${options.durable === false ? "NORMAL" : "FULL"}`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS jobs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      delivery_id TEXT NOT NULL,
      issue_key TEXT NOT NULL,
      spec TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),
      attempts INTEGER NOT NULL DEFAULT 0,
      stage TEXT,
      checkpoint TEXT NOT NULL DEFAULT '{}',
      error TEXT,
      reason TEXT,
      lease_owner TEXT,
      lease_until INTEGER NOT NULL DEFAULT 0,
      run_after INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS jobs_one_active ON jobs (issue_key) WHERE state IN ('queued','running');
    CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, run_after);
    CREATE TABLE IF NOT EXISTS deliveries (
      delivery_id TEXT PRIMARY KEY,
      job_id TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS run_ledger (
      repo_key TEXT NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS run_ledger_by_repo ON run_ledger (repo_key, at);
    CREATE TABLE IF NOT EXISTS held_deliveries (
      delivery_id TEXT PRIMARY KEY,
      event TEXT NOT NULL,
      payload TEXT NOT NULL,
      held_at INTEGER NOT NULL,
      owner TEXT
    );
    CREATE TABLE IF NOT EXISTS limits (
      key TEXT PRIMARY KEY,
      value REAL NOT NULL,
      expires_at INTEGER NOT NULL
    );
  `);
  // Stores made before held deliveries named their holder gain the column (NULL: resumed by age only).
  const heldColumns = db.prepare("PRAGMA table_info(held_deliveries)").all() as Array<{ name: string }>;
  if (!heldColumns.some((c) => c.name === "owner"))
    db.exec("ALTER TABLE held_deliveries ADD COLUMN owner TEXT");
  return db;
}
