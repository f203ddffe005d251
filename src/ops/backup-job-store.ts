/**
 * A consistent copy of the embedded job store while the app runs: `VACUUM INTO` reads one snapshot of
 * the database (committed jobs, the WAL included) and writes a compact file. Copying `jobs.sqlite` alone
 * with `cp` misses what is still in `jobs.sqlite-wal`.
 *
 *   node src/ops/backup-job-store.ts <AUTO_FIX_DATA_DIR> <backup file>
 */
import { existsSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";

export function backupJobStore(dataDir: string, dest: string): { jobs: number; file: string } {
  const source = join(resolve(dataDir), "jobs.sqlite");
  if (!existsSync(source)) throw new Error(`no job store at ${source} (AUTO_FIX_DATA_DIR)`);
  const file = resolve(dest);
  if (existsSync(file)) throw new Error(`${file} exists: a backup never overwrites a file`);
  if (!existsSync(dirname(file))) throw new Error(`the folder ${dirname(file)} does not exist`);
  const partial = `${file}.partial`;
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("VACUUM INTO ?").run(partial);
  } finally {
    db.close();
  }
  const copy = new DatabaseSync(partial, { readOnly: true });
  let jobs: number;
  try {
    const check = copy.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
    if (check.integrity_check !== "ok")
      throw new Error(`the copy fails its integrity check: ${check.integrity_check}`);
    jobs = (copy.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
  } finally {
    copy.close();
  }
  renameSync(partial, file);
  return { jobs, file };
}

if (import.meta.main) {
  const [dataDir, dest] = process.argv.slice(2);
  if (!dataDir || !dest) {
    process.stderr.write("usage: node src/ops/backup-job-store.ts <AUTO_FIX_DATA_DIR> <backup file>\n");
    process.exit(2);
  }
  try {
    const { jobs, file } = backupJobStore(dataDir, dest);
    process.stdout.write(`backed up ${jobs} jobs to ${file}\n`);
  } catch (err) {
    process.stderr.write(`backup failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
