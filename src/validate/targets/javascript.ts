import type { TestRunnerKind } from "../../config/index.ts";
import { isTestPath } from "../../core/test-files.ts";
import { resolveSpecifier } from "./js-resolve.ts";
import { baseOf, stemOf } from "./tree-listing.ts";
import type { RelatedTest, SelectReason, TestSuiteMap, TreeListing } from "./types.ts";

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/** `import … from "x"`, `export … from "x"`, `import "x"`, `import("x")`, `require("x")`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\n]{1,500})["']/g;
const HELPER_FAN_OUT = 25;
/** Library files read at most to follow imports from one library file to the next. */
const MAX_LIBRARY_FILES = 20_000;

export { resolveSpecifier };

/** The files of the tree that `rel` imports (by Node's rules: `..`, folders, `package.json`). */
export function jsImports(listing: TreeListing, rel: string): Set<string> {
  const out = new Set<string>();
  const text = listing.read(rel) ?? "";
  for (const m of text.matchAll(SPECIFIER)) {
    const target = resolveSpecifier(listing, rel, m[1]!);
    if (target && target !== rel) out.add(target);
  }
  return out;
}

/** Longest file name a runner's output may give for a test. */
const MAX_NAMED_FILE_CHARS = 1000;

/**
 * The test target a file named by a runner's output is, or null: only a path relative to the tree (no
 * `..` or `.` segment past a leading `./`, not absolute, no control characters) that is one of the tree's
 * test files as listed (regular files found through tree-fs, no link followed) counts. Nothing is looked
 * up on disk: runner output is written by the repository's code.
 */
export function fileTarget(targets: ReadonlyMap<string, readonly string[]>, named: string): string | null {
  let rel = named;
  while (rel.startsWith("./")) rel = rel.slice(2);
  if (rel === "" || rel.length > MAX_NAMED_FILE_CHARS || rel.startsWith("/")) return null;
  if (/[\0-\x1f\x7f\\]/.test(rel)) return null;
  if (rel.split("/").some((seg) => seg === "" || seg === "." || seg === "..")) return null;
  return targets.has(rel) ? rel : null;
}

/**
 * JavaScript/TypeScript tests (the JavaScript runners take files): a test relates to a
 * change when it imports a changed file (directly or through a test helper that does) or is named
 * after it (`x.test.ts`, `x.spec.js`, `test/x.js` for `src/x.ts`).
 */
export function javascriptSuite(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  const isTarget = (rel: string): boolean =>
    SOURCE.test(rel) &&
    !rel.endsWith(".d.ts") &&
    (/\.(test|spec)\.[^.]+$/.test(rel) ||
      /^test[-_.]|[-_]test\.[^.]+$/.test(baseOf(rel)) ||
      isTestPath(rel)) &&
    !/(^|\/)(fixtures?|__mocks__|support|helpers?)\//.test(rel);
  const targets = new Map<string, string[]>();
  for (const rel of listing.files) if (isTarget(rel)) targets.set(rel, [rel]);
  const testSide = listing.files.filter((f) => SOURCE.test(f) && isTestPath(f));
  const importsOf = new Map<string, Set<string>>();
  const imports = (rel: string): Set<string> => {
    let s = importsOf.get(rel);
    if (!s) {
      s = jsImports(listing, rel);
      importsOf.set(rel, s);
    }
    return s;
  };
  return {
    runner,
    targets,
    related(changed) {
      const out = new Map<string, RelatedTest>();
      const add = adder(out, targets);
      const sources = changed.filter((c) => SOURCE.test(c));
      namedAfterChange(targets, sources, add);
      const related = libraryImporters(listing, sources, imports);
      testImporters(targets, testSide, imports, related, add);
      return out;
    },
    // Some runners' ids start with their file (`test/a.test.js > suite > name`); others name it only
    // where their output does (a failure's location or stack), given as `files`.
    targetOfId(id, files) {
      for (const f of files ?? []) {
        const t = fileTarget(targets, f);
        if (t) return t;
      }
      const sep = id.indexOf(" > ");
      return fileTarget(targets, sep > 0 ? id.slice(0, sep) : id);
    },
    idsMayLackFiles: true,
    aliases: (target) => [target, baseOf(target)],
  };
}

const testName = (rel: string): string =>
  baseOf(rel)
    .replace(/\.(test|spec)(?=\.)/, "")
    .split(".")[0]!;

/** `depth`: 0 or absent a direct import, 1 through the library's files, 2+ through test helpers. */
type AddRelated = (rel: string, reason: SelectReason, detail: string, depth?: number) => void;

/** Records a test file's tie to the change in `out`, keeping the closest import depth. */
function adder(out: Map<string, RelatedTest>, targets: ReadonlyMap<string, string[]>): AddRelated {
  return (rel, reason, detail, depth = 0) => {
    if (!targets.has(rel)) return;
    const cur = out.get(rel);
    if (!cur) {
      out.set(rel, { reasons: [reason], detail, ...(depth > 0 ? { depth } : {}) });
      return;
    }
    if (!cur.reasons.includes(reason)) cur.reasons.push(reason);
    if (reason === "imports-changed" && depth < (cur.depth ?? 0)) {
      if (depth === 0) delete cur.depth;
      else cur.depth = depth;
    }
  };
}

/** Tests named after a changed file (`x.test.ts`, `x.spec.js`, `test/x.js` for `src/x.ts`). */
function namedAfterChange(
  targets: ReadonlyMap<string, string[]>,
  sources: readonly string[],
  add: AddRelated,
): void {
  const stems = new Map(sources.filter((c) => !isTestPath(c)).map((c) => [stemOf(c), c]));
  for (const rel of targets.keys()) {
    const n = testName(rel).replace(/^test[-_]|[-_]test$/g, "");
    const hit = stems.get(n);
    if (hit) add(rel, "named-after-changed", hit);
  }
}

type Reach = Map<string, { root: string; depth: number }>;

/**
 * The library's own files that load a changed file, one import after the other (`index.js` requires
 * `lib/app.js`, which requires the change): a test loading any of them loads the change.
 */
function libraryImporters(
  listing: TreeListing,
  sources: readonly string[],
  imports: (rel: string) => Set<string>,
): Reach {
  const related: Reach = new Map(sources.map((c) => [c, { root: c, depth: 0 }]));
  const library = listing.files.filter((f) => SOURCE.test(f) && !isTestPath(f)).slice(0, MAX_LIBRARY_FILES);
  let frontier = sources.filter((c) => !isTestPath(c));
  while (frontier.length > 0 && library.length > 0) {
    const next: string[] = [];
    const wanted = new Set(frontier);
    for (const lib of library) {
      if (related.has(lib)) continue;
      const hit = [...imports(lib)].find((i) => wanted.has(i));
      if (hit === undefined) continue;
      related.set(lib, { root: related.get(hit)!.root, depth: 1 });
      next.push(lib);
    }
    frontier = next;
  }
  return related;
}

/** Tests importing the change or a file that loads it, passed on through test helpers (not widely shared ones). */
function testImporters(
  targets: ReadonlyMap<string, string[]>,
  testSide: readonly string[],
  imports: (rel: string) => Set<string>,
  related: Reach,
  add: AddRelated,
): void {
  const reached = new Set<string>();
  for (let round = 0; round < 5; round++) {
    let grew = false;
    for (const rel of testSide) {
      if (reached.has(rel)) continue;
      let via: { root: string; depth: number } | undefined;
      for (const i of imports(rel)) {
        const r = related.get(i);
        if (r && (via === undefined || r.depth < via.depth)) via = r;
      }
      if (via === undefined) continue;
      reached.add(rel);
      grew = true;
      add(rel, "imports-changed", via.root, via.depth);
      if (!targets.has(rel)) {
        const importers = testSide.filter((f) => imports(f).has(rel));
        if (importers.length < HELPER_FAN_OUT)
          related.set(rel, { root: via.root, depth: Math.max(2, via.depth + 1) });
      }
    }
    if (!grew) break;
  }
}
