import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { type FileArgResolution, resolveFileArg } from "../core/file-arg.ts";
import type { FileRecord, IndexStats, SymbolInfo } from "./types.ts";

/** A symbol together with the file it is in. */
export interface SymbolHit {
  file: FileRecord;
  sym: SymbolInfo;
}

export interface CodeIndexInit {
  root: string;
  realRoot: string;
  files: FileRecord[];
  notes: string[];
  stats: IndexStats;
  texts?: Map<string, string>;
}

const MAX_TEXT_BYTES = 1024 * 1024;

/**
 * The indexed repository: files with their symbols, lookups by name, and file text on demand (kept in
 * memory once read, so literal code search over the repository is a scan of strings).
 */
export class CodeIndex {
  /** Absolute root as given. */
  readonly root: string;
  /** Root with symlinks resolved. */
  readonly realRoot: string;
  /** Every indexed file, sorted by path. */
  readonly files: readonly FileRecord[];
  /** Skipped files and other things worth telling the user. */
  readonly notes: readonly string[];
  readonly stats: IndexStats;
  private readonly byPath = new Map<string, FileRecord>();
  private readonly texts: Map<string, string>;
  private byName: Map<string, SymbolHit[]> | null = null;
  private byQualName: Map<string, SymbolHit[]> | null = null;

  constructor(init: CodeIndexInit) {
    this.root = init.root;
    this.realRoot = init.realRoot;
    this.files = init.files;
    this.notes = init.notes;
    this.stats = init.stats;
    this.texts = init.texts ?? new Map();
    for (const f of init.files) this.byPath.set(f.path, f);
  }

  file(path: string): FileRecord | undefined {
    return this.byPath.get(path);
  }

  /** Repo-relative paths of the indexed files (tests too unless `includeTests` is false). */
  paths(includeTests = true): string[] {
    return this.files.filter((f) => includeTests || !f.isTest).map((f) => f.path);
  }

  /**
   * Resolves a file argument (relative path, `./path`, absolute, unique suffix or basename) to an indexed
   * file. Non-test files are tried first, so `models.py` means the source file, not `tests/models.py`.
   */
  resolveFile(arg: string): FileArgResolution {
    // An absolute path may name the root as given or with its symlinks resolved.
    const base =
      isAbsolute(arg.trim()) && !this.isUnder(arg.trim(), this.realRoot) ? this.root : this.realRoot;
    const nonTest = resolveFileArg(arg, this.paths(false), base);
    if (nonTest.ok || nonTest.reason !== "not-found") return nonTest;
    return resolveFileArg(arg, this.paths(true), base);
  }

  private isUnder(path: string, dir: string): boolean {
    return path === dir || path.startsWith(dir + sep);
  }

  /** All symbols with that simple name. */
  symbolsNamed(name: string): SymbolHit[] {
    if (!this.byName) this.buildMaps();
    return this.byName!.get(name) ?? [];
  }

  /** All symbols with that qualified name (`Outer.Inner`, `Model.save`). */
  symbolsQualified(qualName: string): SymbolHit[] {
    if (!this.byQualName) this.buildMaps();
    return this.byQualName!.get(qualName) ?? [];
  }

  private buildMaps(): void {
    const byName = new Map<string, SymbolHit[]>();
    const byQual = new Map<string, SymbolHit[]>();
    for (const file of this.files) addFile(file, byName, byQual);
    this.byName = byName;
    this.byQualName = byQual;
  }

  /**
   * Makes the name tables now, a slice at a time, giving the event loop a turn every few milliseconds:
   * for a caller that has a wait ahead of it (a model call) before its first search. A first build
   * leaves the symbols its parse workers sent as rows, read on first use (codec.ts), and the tables are
   * made on the first lookup: for a large repository a few hundred milliseconds that need not be
   * spent on the first search. A lookup before this is done makes the tables itself, at once.
   */
  async prepareLookups(sliceMs = 5): Promise<void> {
    const byName = new Map<string, SymbolHit[]>();
    const byQual = new Map<string, SymbolHit[]>();
    let sliceStart = performance.now();
    for (const file of this.files) {
      if (this.byName) return;
      addFile(file, byName, byQual);
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    if (this.byName) return;
    this.byName = byName;
    this.byQualName = byQual;
  }

  /** The text of an indexed file (or of any other text file inside the root), read once and kept. */
  async readText(path: string): Promise<string | null> {
    const known = this.texts.get(path);
    if (known !== undefined) return known;
    const abs = join(this.realRoot, ...path.split("/"));
    try {
      const real = await realpath(abs);
      if (real !== this.realRoot && !real.startsWith(this.realRoot + sep)) return null;
      const st = await stat(real);
      if (!st.isFile() || st.size > MAX_TEXT_BYTES) return null;
      const bytes = await readFile(real);
      if (bytes.subarray(0, 8192).includes(0)) return null;
      const text = new TextDecoder("utf-8").decode(bytes);
      if (this.byPath.has(path)) this.texts.set(path, text);
      return text;
    } catch {
      return null;
    }
  }

  /** The lines of a file (1-based access: `lines[n - 1]`), or null when it cannot be read. */
  async readLines(path: string): Promise<string[] | null> {
    const text = await this.readText(path);
    return text === null ? null : splitLines(text);
  }

  /** Reads every indexed file not yet in memory (before a repository-wide literal scan). */
  async loadAllTexts(includeTests: boolean): Promise<void> {
    const todo = this.files.filter((f) => (includeTests || !f.isTest) && !this.texts.has(f.path));
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(16, todo.length) }, async () => {
        while (next < todo.length) await this.readText(todo[next++]!.path);
      }),
    );
  }

  /** Forgets cached file text (after files changed on disk). */
  dropTexts(): void {
    this.texts.clear();
  }
}

/** Splits on \n (dropping a \r before it), as tree-sitter counts rows; a final newline adds no line. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith("\r")) lines[i] = l.slice(0, -1);
  }
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function addFile(file: FileRecord, byName: Map<string, SymbolHit[]>, byQual: Map<string, SymbolHit[]>): void {
  for (const sym of file.symbols) {
    push(byName, sym.name, { file, sym });
    push(byQual, sym.qualName, { file, sym });
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
