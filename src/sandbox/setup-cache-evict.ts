import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * The setup cache's size cap (AUTO_FIX_SETUP_CACHE_MAX_MB): after an entry is written and the cache is
 * past the cap, the least recently used entries go first, until it is under three quarters of the cap.
 * An entry's manifest is touched whenever the entry is restored, so its modification time is its last
 * use. An entry larger than the cap is never written.
 */
export const SETUP_CACHE_CAP_ENV = "AUTO_FIX_SETUP_CACHE_MAX_MB";
export const DEFAULT_SETUP_CACHE_MB = 4096;
const TRIM_TO = 0.75;
const MB = 1024 * 1024;

/** The operator's cap in bytes; a bad value is named in a note and the default applies. */
export function setupCacheCapBytes(
  env: NodeJS.ProcessEnv = process.env,
  onNote: (note: string) => void = () => {},
): number {
  const raw = env[SETUP_CACHE_CAP_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_SETUP_CACHE_MB * MB;
  const mb = Number(raw.trim());
  if (!Number.isFinite(mb) || mb <= 0) {
    onNote(
      `${SETUP_CACHE_CAP_ENV} must be a positive number of megabytes, not ${JSON.stringify(raw.slice(0, 40))}; the setup cache is capped at the default ${DEFAULT_SETUP_CACHE_MB} MB`,
    );
    return DEFAULT_SETUP_CACHE_MB * MB;
  }
  return Math.floor(mb * MB);
}

interface Held {
  key: string;
  bytes: number;
  lastUse: number;
}

/** The cache's entries: each manifest with its archive, their bytes on disk, and the last use. */
async function entries(dir: string): Promise<Held[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: Held[] = [];
  for (const name of names) {
    const m = /^([0-9a-f]{64})\.json$/.exec(name);
    if (!m) continue;
    const manifest = await stat(join(dir, name)).catch(() => null);
    if (!manifest?.isFile()) continue;
    const archive = await stat(join(dir, `${m[1]}.tar`)).catch(() => null);
    const bytes = manifest.size + (archive?.isFile() ? Math.max(archive.size, archive.blocks * 512) : 0);
    out.push({ key: m[1]!, bytes, lastUse: manifest.mtimeMs });
  }
  return out;
}

/**
 * Evicts least recently used entries (never `keep`) while the cache is over `capBytes`, down to three
 * quarters of it. Returns the keys evicted, oldest first.
 */
export async function evictSetupCache(dir: string, capBytes: number, keep: string | null): Promise<string[]> {
  const held = await entries(dir);
  let total = held.reduce((n, e) => n + e.bytes, 0);
  if (total <= capBytes) return [];
  const target = capBytes * TRIM_TO;
  const evicted: string[] = [];
  for (const e of held.sort((a, b) => a.lastUse - b.lastUse || a.key.localeCompare(b.key))) {
    if (total <= target) break;
    if (e.key === keep) continue;
    // The manifest goes first: a reader that finds no manifest has a miss, never half an entry.
    await rm(join(dir, `${e.key}.json`), { force: true });
    await rm(join(dir, `${e.key}.tar`), { force: true });
    total -= e.bytes;
    evicted.push(e.key);
  }
  return evicted;
}
