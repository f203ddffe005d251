import type { CodeIndex } from "../../../src/index/index.ts";

/** An index's files and symbols, as one comparable string (the cache must never change it). */
export function indexShape(index: CodeIndex): string {
  return JSON.stringify(
    [...index.files]
      .sort((a, b) => a.path.localeCompare(b.path))
      .map((f) => [f.path, f.hash, f.syntaxErrors, f.symbols]),
  );
}
