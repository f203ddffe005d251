import { readFileSync } from "node:fs";
import { type LanguageId, ParseTimeLimitError } from "../languages/index.ts";
import { hashBytes, type IndexCache } from "./cache.ts";
import { countKinds, encodeSymbols, type KindCounts } from "./codec.ts";
import { extractSymbols } from "./extract.ts";
import type { SymbolInfo } from "./types.ts";

/** One file to read, hash and (unless the cache knows it) parse. */
export interface FileJob {
  abs: string;
  rel: string;
  language: LanguageId;
  /** Hash recorded by the last run for this path: equal content needs no lookup at all. */
  prevHash: string | null;
}

export type FileOutcome =
  | {
      ok: true;
      hash: string;
      bytes: number;
      /**
       * Null when the content equals `prevHash` (the caller keeps the previous symbols), or when the
       * outcome crossed from a parse worker with only `rows` (the caller decodes them).
       */
      symbols: SymbolInfo[] | null;
      /** The symbols as the cache stores them (JSON of codec.ts rows); null when the content is unchanged. */
      rows: string | null;
      /**
       * `rows` as UTF-8, when they crossed from a parse worker that way (pool.ts): the manifest writes
       * these bytes as they are.
       */
      rowBytes?: Uint8Array;
      syntaxErrors: number;
      /**
       * What the symbols are (when there are symbols or rows): a parse worker sends rows only, and the
       * build's figures are counted without reading them.
       */
      kinds?: KindCounts;
      /** Parsed in this run (not found in the object store): the caller stores `rows`. */
      parsed: boolean;
      notes: string[];
    }
  | { ok: false; notes: string[] };

const decoder = new TextDecoder("utf-8");

const READ_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOENT: "vanished while indexing",
  EISDIR: "is a directory",
  EIO: "input/output error",
};

/** A NUL byte in the first 8 KiB: not a text file. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).indexOf(0) !== -1;
}

/**
 * Reads, hashes and extracts a batch of files: every file is read and hashed first, the object store
 * is asked for all the hashes at once, and only the unknown ones are parsed. Runs in parse workers and,
 * for small jobs, in the main thread. Never throws: problems come back as notes, one outcome per job.
 * Nothing is written here; the caller stores what was parsed.
 */
export async function processBatch(
  jobs: readonly FileJob[],
  cache: IndexCache | null,
  maxBytes: number,
): Promise<FileOutcome[]> {
  const read = jobs.map((job) => readJob(job, maxBytes));
  const unknown = read.flatMap((r) => (r.ok && r.hash !== r.job.prevHash ? [r.hash] : []));
  const stored = cache && unknown.length > 0 ? cache.objects.getMany(unknown) : new Map();
  const out: FileOutcome[] = [];
  for (const r of read) {
    if (!r.ok) {
      out.push({ ok: false, notes: r.notes });
      continue;
    }
    const { job, hash, bytes } = r;
    const size = bytes.length;
    if (hash === job.prevHash) {
      out.push({
        ok: true,
        hash,
        bytes: size,
        symbols: null,
        rows: null,
        syntaxErrors: 0,
        parsed: false,
        notes: [],
      });
      continue;
    }
    const hit = stored.get(hash);
    if (hit) {
      out.push({
        ok: true,
        hash,
        bytes: size,
        ...hit,
        kinds: countKinds(hit.symbols),
        parsed: false,
        notes: [],
      });
      continue;
    }
    try {
      const x = await extractSymbols(job.language, decoder.decode(bytes));
      const rows = JSON.stringify(encodeSymbols(x.symbols));
      out.push({
        ok: true,
        hash,
        bytes: size,
        ...x,
        rows,
        kinds: countKinds(x.symbols),
        parsed: true,
        notes: [],
      });
    } catch (err) {
      const why =
        err instanceof ParseTimeLimitError ? err.message : `the parser failed (${(err as Error).message})`;
      out.push({ ok: false, notes: [`skipped ${job.rel}: ${why}`] });
    }
  }
  return out;
}

type ReadResult = { ok: true; job: FileJob; bytes: Buffer; hash: string } | { ok: false; notes: string[] };

function readJob(job: FileJob, maxBytes: number): ReadResult {
  let bytes: Buffer;
  try {
    bytes = readFileSync(job.abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    const why = READ_ERRORS[code] ?? `cannot be read (${code || String(err)})`;
    return { ok: false, notes: [`skipped ${job.rel}: ${why}`] };
  }
  if (bytes.length > maxBytes)
    return { ok: false, notes: [`skipped ${job.rel}: grew over the size limit while indexing`] };
  if (looksBinary(bytes)) return { ok: false, notes: [`skipped ${job.rel}: binary content`] };
  return { ok: true, job, bytes, hash: hashBytes(bytes) };
}
