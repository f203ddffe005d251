import { readFileSync } from "node:fs";
import type { LanguageId } from "../treesitter/languages.ts";
import { hashBytes, type IndexCache } from "./cache.ts";
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
      /** Null when the content equals `prevHash` (the caller keeps the previous symbols). */
      symbols: SymbolInfo[] | null;
      syntaxErrors: number;
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
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * Reads, hashes and extracts one file, using the content-addressed cache. Runs in parse workers and,
 * for small jobs, in the main thread. Never throws: problems come back as notes.
 */
export async function processFile(
  job: FileJob,
  cache: IndexCache | null,
  maxBytes: number,
): Promise<FileOutcome> {
  const notes: string[] = [];
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
  const hash = hashBytes(bytes);
  if (hash === job.prevHash) {
    return { ok: true, hash, bytes: bytes.length, symbols: null, syntaxErrors: 0, parsed: false, notes };
  }
  const cached = cache?.getObject(hash) ?? null;
  if (cached) {
    return { ok: true, hash, bytes: bytes.length, ...cached, parsed: false, notes };
  }
  try {
    const r = await extractSymbols(job.language, decoder.decode(bytes));
    cache?.putObject(hash, r);
    return { ok: true, hash, bytes: bytes.length, ...r, parsed: true, notes };
  } catch (err) {
    return { ok: false, notes: [`skipped ${job.rel}: the parser failed (${(err as Error).message})`] };
  }
}
