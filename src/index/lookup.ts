import { languageOf } from "../languages/index.ts";
import type { CodeIndex, SymbolHit } from "./code-index.ts";
import type { FileRecord } from "./types.ts";

/** Lookups over a CodeIndex shared by the search APIs and bug-location resolution. */

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** True when the symbol's file may be searched under the given test policy. */
export function visible(hit: SymbolHit, includeTests: boolean): boolean {
  return includeTests || !hit.file.isTest;
}

/** Sorts hits by path, then by line. */
export function byLocation(a: SymbolHit, b: SymbolHit): number {
  if (a.file.path !== b.file.path) return a.file.path < b.file.path ? -1 : 1;
  return a.sym.start - b.sym.start;
}

/**
 * Classes named `name`: by simple name or qualified name (`Outer.Inner`). A dotted name that matches
 * nothing is tried by its last segment (`models.Model` → `Model`).
 */
export function findClasses(
  index: CodeIndex,
  name: string,
  includeTests: boolean,
): { hits: SymbolHit[]; usedName: string } {
  const clean = name.trim();
  const pick = (n: string): SymbolHit[] => {
    const seen = new Set<string>();
    const out: SymbolHit[] = [];
    for (const h of [...index.symbolsNamed(n), ...index.symbolsQualified(n)]) {
      const key = `${h.file.path}:${h.sym.start}:${h.sym.qualName}`;
      if (h.sym.kind !== "class" || !visible(h, includeTests) || seen.has(key)) continue;
      seen.add(key);
      out.push(h);
    }
    return out.sort(byLocation);
  };
  let hits = pick(clean);
  let usedName = clean;
  if (hits.length === 0 && /[.:]/.test(clean)) {
    const last = clean.split(/\.|::/).pop() ?? clean;
    hits = pick(last);
    usedName = last;
  }
  if (hits.length === 0) hits = constructorClasses(index, usedName, includeTests);
  return { hits, usedName };
}

/**
 * Prototype-style JavaScript classes: a constructor function `name` whose file also defines methods
 * of class `name` (`name.prototype.m = function`, `var proto = name.prototype; proto.m = …`). The
 * constructor stands for the class.
 */
function constructorClasses(index: CodeIndex, name: string, includeTests: boolean): SymbolHit[] {
  return index
    .symbolsNamed(name)
    .filter(
      (h) =>
        h.sym.kind === "function" &&
        h.sym.className === null &&
        languageOf(h.file.language).units.prototypeClasses &&
        visible(h, includeTests) &&
        h.file.symbols.some((s) => s.kind === "method" && s.className === name),
    )
    .sort(byLocation);
}

/** Functions and methods named `name` (or with that qualified name, e.g. `Model.save`). */
export function findCallables(index: CodeIndex, name: string, includeTests: boolean): SymbolHit[] {
  const seen = new Set<string>();
  const out: SymbolHit[] = [];
  for (const h of [...index.symbolsNamed(name), ...index.symbolsQualified(name)]) {
    const key = `${h.file.path}:${h.sym.start}:${h.sym.qualName}`;
    if (h.sym.kind === "class" || !visible(h, includeTests) || seen.has(key)) continue;
    seen.add(key);
    out.push(h);
  }
  return out.sort(byLocation);
}

/**
 * The files where a class's methods may live, as its language says: its own file; every file of its
 * folder (Go's package); every file of its language (Rust's impl blocks, C++'s x.h and x.cpp).
 */
function memberFiles(index: CodeIndex, cls: SymbolHit): readonly FileRecord[] {
  const lang = cls.file.language;
  const where = languageOf(lang).units.members;
  if (where === "file") return [cls.file];
  const dir = dirOf(cls.file.path);
  return index.files.filter((f) => f.language === lang && (where === "project" || dirOf(f.path) === dir));
}

/**
 * The methods defined directly in a class, wherever its language lets them live (Go: methods whose
 * receiver is the type, across its package; C++: declared in the class and defined out of it, both).
 */
export function methodsOf(index: CodeIndex, cls: SymbolHit): SymbolHit[] {
  const out: SymbolHit[] = [];
  for (const f of memberFiles(index, cls)) {
    for (const s of f.symbols) {
      if (s.kind === "method" && s.className === cls.sym.qualName) out.push({ file: f, sym: s });
    }
  }
  return out;
}

/** The direct bases of a class resolved to classes in the index, nearest first (same file, package, repo). */
export function resolveBases(index: CodeIndex, cls: SymbolHit, includeTests: boolean): SymbolHit[] {
  const out: SymbolHit[] = [];
  const dir = dirOf(cls.file.path);
  for (const baseName of cls.sym.baseNames) {
    const cands = findClasses(index, baseName, includeTests).hits.filter(
      (h) => !(h.file.path === cls.file.path && h.sym.start === cls.sym.start),
    );
    const rank = (h: SymbolHit): number =>
      h.file.path === cls.file.path ? 0 : dirOf(h.file.path) === dir ? 1 : 2;
    cands.sort((a, b) => rank(a) - rank(b) || byLocation(a, b));
    // A base found in the class's own file or package is the one meant; otherwise every candidate.
    const best = cands.length > 0 ? rank(cands[0]!) : 2;
    for (const c of cands) if (rank(c) === best || best === 2) out.push(c);
  }
  return out;
}

/**
 * The nearest ancestor's definition of `method`, breadth-first over the class hierarchy (across files),
 * or null. The class itself is not searched.
 */
export function findAncestorMethod(
  index: CodeIndex,
  cls: SymbolHit,
  method: string,
  includeTests: boolean,
): { owner: SymbolHit; method: SymbolHit; depth: number } | null {
  const key = (h: SymbolHit): string => `${h.file.path}:${h.sym.start}`;
  const seen = new Set<string>([key(cls)]);
  let frontier: SymbolHit[] = [cls];
  for (let depth = 1; frontier.length > 0 && depth <= 32; depth++) {
    const next: SymbolHit[] = [];
    for (const c of frontier) {
      for (const base of resolveBases(index, c, includeTests)) {
        if (seen.has(key(base))) continue;
        seen.add(key(base));
        const m = methodsOf(index, base).find((h) => h.sym.name === method);
        if (m) return { owner: base, method: m, depth };
        next.push(base);
      }
    }
    frontier = next;
  }
  return null;
}

/** The innermost class and callable enclosing a line of a file. */
export function enclosingAt(
  file: FileRecord,
  line: number,
): {
  className: string | null;
  method: string | null;
  classSym: SymbolHit | null;
  callable: SymbolHit | null;
} {
  let cls: SymbolHit | null = null;
  let fn: SymbolHit | null = null;
  for (const s of file.symbols) {
    if (s.start > line || s.end < line) continue;
    if (s.kind === "class") {
      if (!cls || s.start >= cls.sym.start) cls = { file, sym: s };
    } else if (!fn || s.start >= fn.sym.start) {
      fn = { file, sym: s };
    }
  }
  let className = cls?.sym.qualName ?? null;
  if (fn && fn.sym.kind === "method" && fn.sym.className) className = fn.sym.className;
  return { className, method: fn?.sym.name ?? null, classSym: cls, callable: fn };
}

/** Up to `limit` known names close to `name` (case-insensitive equality or containment). */
export function similarNames(
  index: CodeIndex,
  name: string,
  kinds: ReadonlySet<string>,
  includeTests: boolean,
  limit = 5,
): string[] {
  const lower = name.toLowerCase();
  const scored = new Map<string, number>();
  for (const f of index.files) {
    if (!includeTests && f.isTest) continue;
    for (const s of f.symbols) {
      if (!kinds.has(s.kind) || s.name === name || scored.has(s.name)) continue;
      const l = s.name.toLowerCase();
      if (l === lower) scored.set(s.name, 0);
      else if (lower.length >= 3 && (l.includes(lower) || (l.length >= 4 && lower.includes(l))))
        scored.set(s.name, 1 + Math.abs(l.length - lower.length));
    }
  }
  return [...scored]
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([n]) => n);
}
