import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { crc32 } from "node:zlib";
import { LANGUAGES } from "../languages/index.ts";
import { querySource } from "./extract.ts";
import { countKinds, encodeSymbols, type KindCounts, rowsOfLazy, withLazySymbols } from "./codec.ts";
import { type CapOutcome, enforceCacheCap, indexCacheCapBytes } from "./eviction.ts";
import { ObjectStore } from "./object-store.ts";
import type { FileRecord } from "./types.ts";

/** Manifests kept (one per repository root); the oldest beyond this are deleted. */
export const MAX_MANIFESTS = 64;

/** Bumped whenever the extractor's output or the object store's table changes shape or meaning. */
const EXTRACTOR_VERSION = 7;

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
  /** How many classes, functions and methods `symbols` holds, when known without reading them. */
  kinds?: KindCounts;
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
  /** Symbols by content hash, shared by every checkout. */
  readonly objects: ObjectStore;
  private writeFailed = false;
  private readonly madeDirs = new Set<string>();
  private readonly cacheDir: string;
  private readonly capBytes: number | undefined;
  /** What the last trim did, when a write took the cache past its cap. */
  lastTrim: CapOutcome | null = null;

  /**
   * `repair: false` (parse workers): a corrupt object store is left for the owning thread to rebuild.
   * `capBytes`: the cache's size cap (default: the operator's AUTO_FIX_INDEX_CACHE_MB, eviction.ts).
   */
  constructor(
    cacheDir: string,
    onNote: (note: string) => void,
    opts: { repair?: boolean; capBytes?: number } = {},
  ) {
    this.dir = join(cacheDir, `index-${extractorKey()}`);
    this.cacheDir = cacheDir;
    this.capBytes = opts.capBytes;
    this.onNote = onNote;
    this.objects = new ObjectStore(join(this.dir, "objects.sqlite"), onNote, { repair: opts.repair ?? true });
  }

  private manifestPath(realRoot: string): string {
    return join(
      this.dir,
      "roots",
      `${createHash("sha256").update(realRoot).digest("hex").slice(0, 32)}${MANIFEST_EXT}`,
    );
  }

  /**
   * A root's manifest (see MANIFEST_MAGIC for the layout). The header is checked entry by entry and the
   * rows by their checksum; each file's symbols are read from its rows when first asked for
   * (`withLazySymbols`), so a warm build makes no symbol objects at all.
   */
  async loadManifest(realRoot: string): Promise<Manifest | null> {
    const path = this.manifestPath(realRoot);
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch {
      return null;
    }
    try {
      if (!data.subarray(0, MANIFEST_MAGIC.length).equals(MANIFEST_MAGIC)) throw new Error("bad magic");
      const crcEnd = data.indexOf(10, MANIFEST_MAGIC.length);
      if (crcEnd < 0) throw new Error("no checksum");
      const body = data.subarray(crcEnd + 1);
      if (data.toString("latin1", MANIFEST_MAGIC.length, crcEnd) !== String(crc32(body))) {
        throw new Error("bad checksum");
      }
      const nl = body.indexOf(10);
      if (nl < 0) throw new Error("no header");
      const head = JSON.parse(body.toString("utf8", 0, nl)) as StoredManifest;
      const rows = body.subarray(nl + 1);
      if (
        head.root !== realRoot ||
        typeof head.writtenAt !== "number" ||
        !Array.isArray(head.files) ||
        head.rowsBytes !== rows.length
      ) {
        throw new Error("bad shape");
      }
      let offset = 0;
      const files: ManifestEntry[] = head.files.map((f) => {
        if (
          typeof f.p !== "string" ||
          typeof f.h !== "string" ||
          typeof f.b !== "number" ||
          typeof f.m !== "number" ||
          typeof f.e !== "number" ||
          typeof f.l !== "string" ||
          !Number.isInteger(f.n) ||
          f.n < 2 ||
          offset + f.n > rows.length ||
          !Array.isArray(f.k) ||
          f.k.length !== 3 ||
          !f.k.every((x) => Number.isInteger(x) && x >= 0)
        ) {
          throw new Error("bad entry");
        }
        const [start, end] = [offset, offset + f.n];
        offset = end;
        return withLazySymbols(
          {
            path: f.p,
            language: f.l as ManifestEntry["language"],
            isTest: false,
            bytes: f.b,
            hash: f.h,
            mtimeMs: f.m,
            syntaxErrors: f.e,
            kinds: [f.k[0]!, f.k[1]!, f.k[2]!],
          },
          () => rows.toString("utf8", start, end),
          rows.subarray(start, end),
        );
      });
      if (offset !== rows.length) throw new Error("rows left over");
      // Its last use, for eviction (least recently used roots go first).
      const now = new Date();
      await utimes(path, now, now).catch(() => {});
      return { root: head.root, writtenAt: head.writtenAt, files };
    } catch {
      this.onNote("the index cache manifest for this repository was corrupt; rebuilding it");
      await rm(path, { force: true }).catch(() => {});
      return null;
    }
  }

  /**
   * Writes a root's manifest. `rowsOf` gives a file's symbols already encoded (as the object store has
   * them) so that files parsed in this run are not encoded twice; rows read from the last manifest are
   * written as they were read, and only the others are encoded here.
   */
  async saveManifest(
    manifest: Manifest,
    rowsOf: (f: ManifestEntry) => string | Uint8Array | undefined = () => undefined,
  ): Promise<void> {
    // Written as bytes, piece by piece: rows that came as UTF-8 from a parse worker are not encoded
    // again, and no one buffer of the whole manifest is made.
    const rows = manifest.files.map((f) => {
      const r = rowsOf(f) ?? rowsOfLazy(f) ?? JSON.stringify(encodeSymbols(f.symbols));
      return typeof r === "string" ? Buffer.from(r) : r;
    });
    const head: StoredManifest = {
      root: manifest.root,
      writtenAt: manifest.writtenAt,
      rowsBytes: rows.reduce((n, r) => n + r.length, 0),
      files: manifest.files.map((f, i) => ({
        p: f.path,
        l: f.language,
        b: f.bytes,
        h: f.hash,
        m: f.mtimeMs,
        e: f.syntaxErrors,
        k: f.kinds ?? countKinds(f.symbols),
        n: rows[i]!.length,
      })),
    };
    const header = Buffer.from(`${JSON.stringify(head)}\n`);
    const crc = rows.reduce((c, r) => crc32(r, c), crc32(header));
    const parts = [MANIFEST_MAGIC, Buffer.from(`${crc}\n`), header, ...rows];
    await this.writeAtomic(this.manifestPath(manifest.root), parts);
    await this.pruneManifests();
    this.trim();
  }

  /** Keeps the cache under its size cap (eviction.ts); housekeeping, so a failure is one note. */
  trim(): void {
    if (this.writeFailed) return;
    try {
      this.lastTrim = enforceCacheCap({
        cacheDir: this.cacheDir,
        indexDir: this.dir,
        objects: this.objects,
        capBytes: this.capBytes ?? indexCacheCapBytes(process.env, this.onNote),
        manifestExt: MANIFEST_EXT,
        manifestHashes,
      });
    } catch (err) {
      this.onNote(`the index cache could not be trimmed (${(err as Error).message})`);
    } finally {
      this.objects.close();
    }
  }

  /**
   * Keeps the newest MAX_MANIFESTS manifests (every fresh checkout, e.g. one per repair run, writes
   * one). Objects stay: they are shared by content.
   */
  private async pruneManifests(): Promise<void> {
    const dir = join(this.dir, "roots");
    try {
      const all = await readdir(dir);
      // Manifests of the earlier layout (`.json`) are never read again.
      await Promise.all(all.filter((n) => n.endsWith(".json")).map((n) => rm(join(dir, n), { force: true })));
      const names = all.filter((n) => n.endsWith(MANIFEST_EXT));
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

  /** Queues one parsed file's symbols (as codec rows JSON) for the object store. */
  putObject(hash: string, rows: string, syntaxErrors: number): void {
    if (!this.writeFailed) this.objects.put(hash, rows, syntaxErrors);
  }

  /** Writes what is queued and closes the object store. */
  close(): void {
    this.objects.close();
  }

  /** Writes `parts` one after the other (one gathered write, no copy into one buffer) to `path`, atomically. */
  private async writeAtomic(path: string, parts: Uint8Array[]): Promise<void> {
    if (this.writeFailed) return;
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      const dir = dirname(path);
      if (!this.madeDirs.has(dir)) {
        await mkdir(dir, { recursive: true });
        this.madeDirs.add(dir);
      }
      const file = await open(tmp, "w");
      try {
        await file.writev(parts);
      } finally {
        await file.close();
      }
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

/**
 * A manifest file: this magic line; a line with the CRC-32 (decimal) of everything after it, which tells
 * a torn or damaged file from a sound one; one line of JSON (StoredManifest: every file but its symbols);
 * then the files' symbol rows (codec.ts JSON, UTF-8) one after the other, `n` bytes each, as the parse
 * workers sent them: nothing is escaped or encoded again when it is written, and nothing is read into
 * symbols when it is loaded.
 */
const MANIFEST_MAGIC = Buffer.from("auto-fix index manifest 2\n");
const MANIFEST_EXT = ".manifest";

/** The content hashes a manifest file names (its header only), or null when it is not a sound manifest. */
function manifestHashes(data: Buffer): string[] | null {
  try {
    if (!data.subarray(0, MANIFEST_MAGIC.length).equals(MANIFEST_MAGIC)) return null;
    const crcEnd = data.indexOf(10, MANIFEST_MAGIC.length);
    const nl = crcEnd < 0 ? -1 : data.indexOf(10, crcEnd + 1);
    if (nl < 0) return null;
    const head = JSON.parse(data.toString("utf8", crcEnd + 1, nl)) as StoredManifest;
    if (!Array.isArray(head.files)) return null;
    return head.files.map((f) => String(f.h));
  } catch {
    return null;
  }
}

/** The manifest's header as stored: short keys. */
interface StoredManifest {
  root: string;
  writtenAt: number;
  rowsBytes: number;
  files: {
    p: string;
    l: string;
    b: number;
    h: string;
    m: number;
    e: number;
    k: readonly number[];
    n: number;
  }[];
}
