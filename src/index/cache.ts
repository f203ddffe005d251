import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { LANGUAGES } from "../treesitter/languages.ts";
import { querySource } from "./extract.ts";
import { decodeSymbols, encodeSymbols } from "./codec.ts";
import { ObjectStore } from "./object-store.ts";
import type { FileRecord } from "./types.ts";

/** Manifests kept (one per repository root); the oldest beyond this are deleted. */
export const MAX_MANIFESTS = 64;

/** Bumped whenever the extractor's output or the object store's table changes shape or meaning. */
const EXTRACTOR_VERSION = 5;

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
  /** Symbols by content hash, shared by every checkout. */
  readonly objects: ObjectStore;
  private writeFailed = false;
  private readonly madeDirs = new Set<string>();

  /** `repair: false` (parse workers): a corrupt object store is left for the owning thread to rebuild. */
  constructor(cacheDir: string, onNote: (note: string) => void, opts: { repair?: boolean } = {}) {
    this.dir = join(cacheDir, `index-${extractorKey()}`);
    this.onNote = onNote;
    this.objects = new ObjectStore(join(this.dir, "objects.sqlite"), onNote, { repair: opts.repair ?? true });
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

  /**
   * Writes a root's manifest. `rowsOf` gives a file's symbols already encoded (as the object store has
   * them) so that files parsed in this run are not encoded twice; the others are encoded here.
   */
  async saveManifest(
    manifest: Manifest,
    rowsOf: (f: ManifestEntry) => string | Uint8Array | undefined = () => undefined,
  ): Promise<void> {
    const q = JSON.stringify;
    // Written as bytes, piece by piece: rows that came as UTF-8 from a parse worker are not encoded
    // again, and no one string of the whole manifest is built.
    const parts: Uint8Array[] = [
      Buffer.from(`{"root":${q(manifest.root)},"writtenAt":${manifest.writtenAt},"files":[`),
    ];
    manifest.files.forEach((f, i) => {
      const rows = rowsOf(f) ?? q(encodeSymbols(f.symbols));
      const head = `${i > 0 ? "," : ""}{"p":${q(f.path)},"l":${q(f.language)},"b":${f.bytes},"h":${q(f.hash)},"m":${f.mtimeMs},"e":${f.syntaxErrors},"s":`;
      parts.push(
        Buffer.from(typeof rows === "string" ? `${head}${rows}}` : head),
        ...(typeof rows === "string" ? [] : [rows, CLOSE]),
      );
    });
    parts.push(Buffer.from("]}"));
    await this.writeAtomic(this.manifestPath(manifest.root), parts);
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

const CLOSE = Buffer.from("}");

/** The manifest as stored: short keys, symbols encoded by codec.ts. */
interface StoredManifest {
  root: string;
  writtenAt: number;
  files: { p: string; l: string; b: number; h: string; m: number; e: number; s: unknown }[];
}
