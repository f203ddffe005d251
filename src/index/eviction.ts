/**
 * The index cache's size cap (AUTO_FIX_INDEX_CACHE_MB): when a build's write takes the cache past it, the
 * least recently used repository roots go first. A root's manifest is touched whenever it is read, so its
 * modification time is its last use; the objects a kept manifest names stay, every other object goes (an
 * object is shared by content, and a manifest holds its own copy of every file's symbols, so an evicted
 * object is at worst a cache miss). Folders of earlier extractor versions go first of all.
 *
 * Concurrent jobs share the cache safely: the choice and the deletion run inside one write transaction of
 * the object store (two evictions take turns, and a reader sees the store before or after, never half of
 * it); manifests are replaced by rename and read with a checksum, so a manifest deleted under a reader is
 * a miss, never a wrong answer.
 */
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { ObjectStore } from "./object-store.ts";

export const INDEX_CACHE_CAP_ENV = "AUTO_FIX_INDEX_CACHE_MB";
export const DEFAULT_INDEX_CACHE_MB = 2048;
/** Eviction trims to this share of the cap, so that the next few builds do not trim again at once. */
const TRIM_TO = 0.75;

const MB = 1024 * 1024;

/** The operator's cap in bytes; a bad value is named in a note and the default applies. */
export function indexCacheCapBytes(
  env: NodeJS.ProcessEnv = process.env,
  onNote: (note: string) => void = () => {},
): number {
  const raw = env[INDEX_CACHE_CAP_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_INDEX_CACHE_MB * MB;
  const mb = Number(raw.trim());
  if (!Number.isFinite(mb) || mb <= 0) {
    onNote(
      `${INDEX_CACHE_CAP_ENV} must be a positive number of megabytes, not ${JSON.stringify(raw.slice(0, 40))}; the index cache is capped at the default ${DEFAULT_INDEX_CACHE_MB} MB`,
    );
    return DEFAULT_INDEX_CACHE_MB * MB;
  }
  return Math.floor(mb * MB);
}

/** Bytes of the regular files under `dir` (links not followed; anything gone meanwhile counts 0). */
function treeBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (st.isDirectory()) total += treeBytes(path);
      else if (st.isFile()) total += st.size;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The index folders (`index-<key>`) of every extractor version under the cache folder. */
function indexDirs(cacheDir: string): string[] {
  try {
    return readdirSync(cacheDir)
      .filter((n) => /^index-[0-9a-f]{12}$/.test(n))
      .map((n) => join(cacheDir, n));
  } catch {
    return [];
  }
}

/** What the index cache takes on disk: every version's folder (object store, its log, manifests). */
export function indexCacheBytes(cacheDir: string): number {
  return indexDirs(cacheDir).reduce((n, d) => n + treeBytes(d), 0);
}

interface RootFile {
  path: string;
  bytes: number;
  usedMs: number;
}

function manifestsByUse(rootsDir: string, ext: string): RootFile[] {
  let names: string[];
  try {
    names = readdirSync(rootsDir).filter((n) => n.endsWith(ext));
  } catch {
    return [];
  }
  const files: RootFile[] = [];
  for (const n of names) {
    try {
      const st = statSync(join(rootsDir, n));
      files.push({ path: join(rootsDir, n), bytes: st.size, usedMs: st.mtimeMs });
    } catch {
      // replaced or removed meanwhile
    }
  }
  return files.sort((a, b) => b.usedMs - a.usedMs || a.path.localeCompare(b.path));
}

export interface CapOptions {
  cacheDir: string;
  /** This version's folder (`index-<key>`). */
  indexDir: string;
  objects: ObjectStore;
  capBytes: number;
  manifestExt: string;
  /** The content hashes a manifest file names, or null when it is not a sound manifest. */
  manifestHashes: (data: Buffer) => string[] | null;
}

export interface CapOutcome {
  /** Bytes before and after. */
  before: number;
  after: number;
  manifestsEvicted: number;
  objectsEvicted: number;
}

/** Trims the cache under its cap when it is over it; null when it was not (nothing was done). */
export function enforceCacheCap(o: CapOptions): CapOutcome | null {
  const before = indexCacheBytes(o.cacheDir);
  if (before <= o.capBytes) return null;
  // Earlier extractor versions are never read again by this one.
  for (const d of indexDirs(o.cacheDir)) {
    if (basename(d) !== basename(o.indexDir)) rmSync(d, { recursive: true, force: true });
  }
  let manifestsEvicted = 0;
  let objectsEvicted = 0;
  let target = o.capBytes * TRIM_TO;
  // The sums are estimates (pages are not full): trim further while the files are still over the cap.
  for (let round = 0; round < 4 && indexCacheBytes(o.cacheDir) > o.capBytes; round++) {
    const budget = target;
    objectsEvicted += o.objects.evict((sizes) => {
      const keep = new Set<string>();
      let used = 0;
      let full = false;
      for (const m of manifestsByUse(join(o.indexDir, "roots"), o.manifestExt)) {
        let hashes: string[] | null = null;
        if (!full) {
          try {
            hashes = o.manifestHashes(readFileSync(m.path));
          } catch {
            hashes = null;
          }
        }
        let cost = m.bytes;
        const fresh = new Set<string>();
        for (const h of hashes ?? []) {
          if (keep.has(h) || fresh.has(h)) continue;
          fresh.add(h);
          cost += sizes.get(h) ?? 0;
        }
        // Least recently used last: once one root does not fit, it and every older one go.
        if (full || hashes === null || used + cost > budget) {
          full = full || hashes !== null;
          rmSync(m.path, { force: true });
          manifestsEvicted++;
          continue;
        }
        used += cost;
        for (const h of fresh) keep.add(h);
      }
      return keep;
    });
    target *= TRIM_TO;
  }
  return { before, after: indexCacheBytes(o.cacheDir), manifestsEvicted, objectsEvicted };
}
