import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isNonSourceDir, isVirtualEnvMarker, type ListedKind, VCS_DIRS } from "../core/path-rules.ts";
import { type LanguageId, languageForPath } from "../languages/index.ts";

/** How long the walk reads the file system before it lets the event loop run. */
const YIELD_EVERY_MS = 10;

/** Files larger than this are skipped (generated bundles, data dumps). */
export const MAX_FILE_BYTES = 1024 * 1024;

/** A source file found by the walk, not yet read. */
export interface SourceCandidate {
  abs: string;
  rel: string;
  language: LanguageId;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  onNote: (note: string) => void;
  /** Also descend into directories that are normally skipped (used by benchmarks over dependency trees). */
  includeSkippedDirs?: boolean;
  /** Called for each file as it is found. */
  onFile?: (c: SourceCandidate) => void;
  /** Reading time after which the walk gives the event loop a turn (default YIELD_EVERY_MS). */
  yieldEveryMs?: number;
}

/**
 * Lists the source files of the supported languages under `root` (sorted by path), skipping what an
 * index should not read. Every skipped file worth knowing about gets a note; nothing here throws for a
 * single bad entry.
 *
 * The file system is read with synchronous calls: a checkout is on a local disk, where a listing or a
 * stat takes microseconds, and each asynchronous call costs the calling thread far more than that in
 * promises and a round trip through libuv's pool. That thread also feeds the parse workers (index.ts),
 * which `onFile` hands files to as they are found: the walk gives the event loop a turn every
 * YIELD_EVERY_MS, so that their answers are taken (and more files sent) during a long walk too.
 */
export async function walkSources(root: string, opts: WalkOptions): Promise<SourceCandidate[]> {
  const realRoot = realpathSync(root);
  const out: SourceCandidate[] = [];
  const visitedDirs = new Set<string>([realRoot]);
  const note = opts.onNote;

  const inside = (real: string): boolean => real === realRoot || real.startsWith(realRoot + sep);

  const yieldEveryMs = opts.yieldEveryMs ?? YIELD_EVERY_MS;
  let lastYield = performance.now();
  /** Time for a turn? (Checked without a promise: most checks say no.) */
  const due = (): boolean => performance.now() - lastYield >= yieldEveryMs;
  const turn = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    lastYield = performance.now();
  };
  async function visit(dirAbs: string): Promise<void> {
    if (due()) await turn();
    let entries: Dirent[];
    try {
      entries = readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      note(`skipped directory ${relPath(dirAbs) || "."}: ${errText(err)}`);
      return;
    }
    // A virtual environment is known by what it holds, read from this very listing (no link followed).
    if (dirAbs !== root && !opts.includeSkippedDirs) {
      const marker = entries.find((e) => isVirtualEnvMarker(e.name, direntKind(e)));
      if (marker) {
        note(`skipped ${relPath(dirAbs)}/: a Python virtual environment (it holds ${marker.name})`);
        return;
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      // A directory may hold many thousands of entries.
      if (due()) await turn();
      const k = examine(dirAbs, e);
      if (k === null) continue;
      if (typeof k === "string") subdirs.push(k);
      else addFile(k.abs, k.rel, k.name, k.st);
    }
    for (const sub of subdirs) {
      let real: string;
      try {
        real = realpathSync(sub);
      } catch (err) {
        note(`skipped directory ${relPath(sub)}: ${errText(err)}`);
        continue;
      }
      if (real !== sub && visitedDirs.has(real)) {
        note(`skipped ${relPath(sub)}: symlink loop (directory already indexed)`);
        continue;
      }
      visitedDirs.add(real);
      await visit(sub);
    }
  }

  /** One directory entry: a subdirectory to visit (its path), a file to add, or null to skip. */
  function examine(
    dirAbs: string,
    e: Dirent,
  ): string | { abs: string; rel: string; name: string; st: Stats } | null {
    const abs = join(dirAbs, e.name);
    if (e.isDirectory()) return isSkippedDir(e.name, opts) ? null : abs;
    const rel = relPath(abs);
    if (e.isSymbolicLink()) {
      let real: string;
      let st: Stats;
      try {
        real = realpathSync(abs);
        st = statSync(real);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ELOOP") note(`skipped ${rel}: symlink loop`);
        else if (languageForPath(e.name) || code !== "ENOENT") note(`skipped ${rel}: broken symlink`);
        return null;
      }
      if (!inside(real)) {
        if (st.isDirectory() || languageForPath(e.name))
          note(`skipped ${rel}: symlink leaves the repository`);
        return null;
      }
      if (st.isDirectory()) {
        if (isSkippedDir(e.name, opts)) return null;
        if (visitedDirs.has(real)) {
          note(`skipped ${rel}: symlink loop (directory already indexed)`);
          return null;
        }
        return abs;
      }
      return st.isFile() ? { abs, rel, name: e.name, st } : null;
    }
    if (!e.isFile() || !languageForPath(e.name)) return null;
    try {
      return { abs, rel, name: e.name, st: statSync(abs) };
    } catch (err) {
      note(`skipped ${rel}: ${errText(err)}`);
      return null;
    }
  }

  function addFile(abs: string, rel: string, name: string, st: Stats): void {
    const lang = languageForPath(name);
    if (!lang || !st.isFile()) return;
    if (st.size > MAX_FILE_BYTES) {
      note(`skipped ${rel}: ${formatBytes(st.size)} is over the ${formatBytes(MAX_FILE_BYTES)} limit`);
      return;
    }
    const c: SourceCandidate = { abs, rel, language: lang, size: st.size, mtimeMs: st.mtimeMs };
    out.push(c);
    opts.onFile?.(c);
  }

  function relPath(abs: string): string {
    return relative(root, abs).split(sep).join("/");
  }

  await visit(root);
  out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return out;
}

/**
 * The languages of the source files in the first folders under `root`, most files first: a look of a
 * few milliseconds, not an index (breadth first, at most `maxDirs` folders and `budgetMs` of listing).
 * Links are not followed and no file is opened; folders an index leaves out by name are left out here
 * too. A folder that cannot be listed is passed over.
 */
export function sniffLanguages(
  root: string,
  opts: { maxDirs?: number; budgetMs?: number } = {},
): LanguageId[] {
  const maxDirs = opts.maxDirs ?? 200;
  const deadline = performance.now() + (opts.budgetMs ?? 20);
  const counts = new Map<LanguageId, number>();
  const queue = [root];
  for (let i = 0; i < queue.length && i < maxDirs && performance.now() < deadline; i++) {
    let entries: Dirent[];
    try {
      entries = readdirSync(queue[i]!, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!isNonSourceDir(e.name)) queue.push(join(queue[i]!, e.name));
      } else if (e.isFile()) {
        const lang = languageForPath(e.name);
        if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
      }
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([lang]) => lang);
}

/** Folders left out by name (core/path-rules); virtual environments are found by their marker instead. */
function isSkippedDir(name: string, opts: WalkOptions): boolean {
  if (opts.includeSkippedDirs) return VCS_DIRS.has(name);
  return isNonSourceDir(name);
}

const direntKind = (e: Dirent): ListedKind =>
  e.isSymbolicLink() ? "link" : e.isDirectory() ? "directory" : e.isFile() ? "file" : "special";

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "EACCES" || e.code === "EPERM") return "permission denied";
  if (e.code === "ELOOP") return "symlink loop";
  return e.code ?? e.message ?? String(err);
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 / 1024 / 1024).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}
