import type { TestRunnerKind } from "../../config/index.ts";
import { isTestPath } from "../../core/test-files.ts";
import { runnerFor } from "../../runners/index.ts";
import { baseOf, dirOf, lines } from "./tree-listing.ts";
import type { RelatedTest, SelectReason, TestSuiteMap, TreeListing } from "./types.ts";

const IDENT = /^[A-Za-z_]\w*$/;
const IMPORT = /^\s*import\s+(.+)$/;
const FROM = /^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)$/;
/** `importlib.import_module("x")`, `import_helper.import_fresh_module('x')`. */
const DYNAMIC = /import_(?:fresh_)?module\(\s*['"]([\w.]+)['"]/g;
/** A name imported by this many test files or more is a shared helper: it does not pass relations on. */
const HELPER_FAN_OUT = 25;

/** The dotted names a Python file is imported by: its package-qualified name, and its suffixes outside packages. */
export function moduleNames(listing: TreeListing, rel: string): string[] {
  if (!rel.endsWith(".py")) return [];
  const parts = rel.slice(0, -3).split("/");
  if (parts[parts.length - 1] === "__init__") parts.pop();
  if (parts.length === 0 || !parts.every((p) => IDENT.test(p))) return [];
  // Up the package chain while each folder holds an __init__.py.
  let top = parts.length - 1;
  while (top > 0 && listing.has(`${parts.slice(0, top).join("/")}/__init__.py`)) top--;
  const names = [parts.slice(top).join(".")];
  if (top === parts.length - 1 && !rel.endsWith("__init__.py")) {
    // Not in a package: any folder of its path may be on sys.path.
    for (let i = 0; i < top; i++) names.push(parts.slice(i).join("."));
  }
  return names;
}

/** One import statement's modules: `import a.b` → a.b; `from a import b, c` → a with b, c. */
export interface PythonImport {
  module: string;
  names: string[];
}

/** The imports of a Python file (relative ones resolved against its package). */
export function pythonImports(text: string, ownName: string | null, isPackage: boolean): PythonImport[] {
  const out: PythonImport[] = [];
  const strip = (s: string) => s.replace(/#.*$/, "").replace(/[()\\]/g, " ");
  for (const line of lines(text)) {
    if (!line.includes("import")) continue;
    const from = FROM.exec(line);
    if (from) {
      let base = from[2]!;
      const dots = from[1]!.length;
      if (dots > 0) {
        if (!ownName) continue;
        const pkg = ownName.split(".");
        const up = isPackage ? dots - 1 : dots;
        if (up > pkg.length) continue;
        const anchor = pkg.slice(0, pkg.length - up).join(".");
        base = [anchor, base].filter(Boolean).join(".");
      }
      if (!base) continue;
      const names = strip(from[3]!)
        .split(",")
        .map((n) => n.trim().split(/\s+/)[0] ?? "")
        .filter((n) => IDENT.test(n));
      out.push({ module: base, names });
      continue;
    }
    const imp = IMPORT.exec(line);
    if (imp) {
      for (const n of strip(imp[1]!).split(",")) {
        const name = n.trim().split(/\s+/)[0] ?? "";
        if (/^[\w.]+$/.test(name)) out.push({ module: name, names: [] });
      }
    }
    for (const m of line.matchAll(DYNAMIC)) out.push({ module: m[1]!, names: [] });
  }
  return out;
}

const covers = (imported: string, name: string): boolean =>
  imported === name || imported.startsWith(`${name}.`);

/**
 * Python tests: a runner that takes paths gets test files (`test_*.py`, `*_test.py`), one that takes
 * dotted names the module names of `test*.py` files. A test relates to a change when it imports a changed module (directly, through the
 * package whose `__init__` imports it, or through a test helper that does), or is named after it.
 */
export function pythonSuite(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  // By path: test files (`test_*.py`, `*_test.py`); by dotted name: the modules of `test*.py`.
  const byPath = runnerFor(runner).targetForm === "path";
  const isTarget = (rel: string): boolean => {
    if (!rel.endsWith(".py") || !isTestPath(rel)) return false;
    const b = baseOf(rel);
    return byPath ? /^test_.*\.py$|_test\.py$/.test(b) : /^test.*\.py$/.test(b);
  };
  const targets = new Map<string, string[]>();
  const targetFile = new Map<string, string>();
  const fileTarget = new Map<string, string>();
  for (const rel of listing.files) {
    if (!isTarget(rel)) continue;
    const t = byPath ? rel : (moduleNames(listing, rel)[0] ?? null);
    if (!t) continue;
    targets.set(t, [rel]);
    targetFile.set(t, rel);
    fileTarget.set(rel, t);
  }
  const testSide = listing.files.filter((f) => f.endsWith(".py") && isTestPath(f));
  const imports = importIndex(listing);
  return {
    runner,
    targets,
    related(changed) {
      const out = new Map<string, RelatedTest>();
      const add = adder(out, fileTarget);
      namedAfterChange(changed, fileTarget, add);
      importersOfChange(listing, testSide, imports, changedNames(listing, changed, imports), add);
      return out;
    },
    targetOfId(id) {
      if (byPath) {
        const file = id.split("::")[0] ?? "";
        return targets.has(file) ? file : null;
      }
      const parts = id.split(".");
      for (let i = parts.length - 1; i > 0; i--) {
        const t = parts.slice(0, i).join(".");
        if (targets.has(t)) return t;
      }
      return null;
    },
    aliases(target) {
      const rel = targetFile.get(target);
      if (!rel) return [];
      return [...new Set([target, rel, baseOf(rel), ...moduleNames(listing, rel)])];
    },
  };
}

/**
 * The modules a file imports (read once): `from a import b` imports the module a.b when there is one,
 * else names from a's namespace (a itself).
 */
function importIndex(listing: TreeListing): (rel: string) => Set<string> {
  const known = new Set<string>();
  for (const rel of listing.files) for (const n of moduleNames(listing, rel)) known.add(n);
  const importsOf = new Map<string, Set<string>>();
  return (rel) => {
    let s = importsOf.get(rel);
    if (!s) {
      s = new Set<string>();
      const text = listing.read(rel) ?? "";
      for (const imp of pythonImports(
        text,
        moduleNames(listing, rel)[0] ?? null,
        rel.endsWith("__init__.py"),
      )) {
        const subs = imp.names.filter((n) => known.has(`${imp.module}.${n}`));
        for (const n of subs) s.add(`${imp.module}.${n}`);
        if (subs.length < imp.names.length || imp.names.length === 0) s.add(imp.module);
      }
      importsOf.set(rel, s);
    }
    return s;
  };
}

type AddRelated = (
  rel: string,
  reason: SelectReason,
  detail: string,
  depth?: number,
  named?: "module" | "package",
) => void;

/** Records a test file's tie to the change in `out` (under its target), keeping the closest depth. */
function adder(out: Map<string, RelatedTest>, fileTarget: ReadonlyMap<string, string>): AddRelated {
  return (rel, reason, detail, depth, named) => {
    const t = fileTarget.get(rel);
    if (!t) return;
    const cur = out.get(t);
    if (!cur) {
      out.set(t, {
        reasons: [reason],
        detail,
        ...(depth !== undefined ? { depth } : {}),
        ...(named ? { named } : {}),
      });
      return;
    }
    if (!cur.reasons.includes(reason)) cur.reasons.push(reason);
    if (depth !== undefined && (cur.depth === undefined || depth < cur.depth)) cur.depth = depth;
    if (named && cur.named !== "module") cur.named = named;
  };
}

/** The names the change is imported under, each with the changed file it stands for. */
interface ChangedNames {
  names: Map<string, string>;
  /** How far each name is from the change: 0 the changed module, 1 a package importing it, 2+ helpers. */
  depthOf: Map<string, number>;
  /** Package names matched only as themselves, not through their other submodules. */
  exact: Set<string>;
}

/**
 * Names under which the change is imported: the modules (and their submodules), and packages whose
 * __init__ imports them (only an import of the package itself, not of its other submodules).
 */
function changedNames(
  listing: TreeListing,
  changed: readonly string[],
  imports: (rel: string) => Set<string>,
): ChangedNames {
  const names = new Map<string, string>();
  const depthOf = new Map<string, number>();
  const exact = new Set<string>();
  for (const rel of changed) {
    if (!rel.endsWith(".py")) continue;
    for (const n of moduleNames(listing, rel)) {
      names.set(n, rel);
      depthOf.set(n, 0);
    }
    const parts = rel.split("/");
    for (let i = parts.length - 1; i > 0; i--) {
      const init = `${parts.slice(0, i).join("/")}/__init__.py`;
      if (init === rel || !listing.has(init)) break;
      const own = moduleNames(listing, rel);
      if ([...imports(init)].some((imp) => own.some((n) => covers(imp, n)))) {
        for (const n of moduleNames(listing, init)) {
          if (!names.has(n)) {
            exact.add(n);
            depthOf.set(n, 1);
          }
          names.set(n, rel);
        }
      }
    }
  }
  return { names, depthOf, exact };
}

/**
 * Named after: test_<module>, <module>_test, and a test folder test_<package>; after the module itself,
 * or only after the package it is in (a weaker tie: `test_asyncio/` for asyncio/threads.py).
 */
function namedAfterChange(
  changed: readonly string[],
  fileTarget: ReadonlyMap<string, string>,
  add: AddRelated,
): void {
  const wanted = new Map<string, "module" | "package">();
  for (const rel of changed) {
    if (!rel.endsWith(".py") || isTestPath(rel)) continue;
    const parts = rel.slice(0, -3).split("/");
    if (parts[parts.length - 1] === "__init__") parts.pop();
    const last = parts[parts.length - 1];
    const pkg = parts.length > 1 ? parts[parts.length - 2] : undefined;
    if (pkg && !wanted.has(pkg.replace(/^_+/, ""))) wanted.set(pkg.replace(/^_+/, ""), "package");
    if (last) wanted.set(last.replace(/^_+/, ""), "module");
  }
  for (const rel of fileTarget.keys()) {
    const stem = baseOf(rel).slice(0, -3);
    const folder = baseOf(dirOf(rel));
    let best: [string, "module" | "package"] | null = null;
    for (const [n, kind] of wanted) {
      if (
        stem === `test_${n}` ||
        stem === `${n}_test` ||
        stem === `${n}_tests` ||
        stem === `test${n}` ||
        folder === `test_${n}`
      ) {
        if (!best || (best[1] === "package" && kind === "module")) best = [n, kind];
      }
    }
    if (best) add(rel, "named-after-changed", best[0], undefined, best[1]);
  }
}

/** Imports of the change, passed on through test helpers and test packages (not through widely shared helpers). */
function importersOfChange(
  listing: TreeListing,
  testSide: readonly string[],
  imports: (rel: string) => Set<string>,
  { names, depthOf, exact }: ChangedNames,
  add: AddRelated,
): void {
  const related = new Map(names);
  const reached = new Set<string>();
  const match = (imp: string, n: string) => (exact.has(n) ? imp === n : covers(imp, n));
  for (let round = 0; round < 5; round++) {
    let grew = false;
    for (const rel of testSide) {
      if (reached.has(rel)) continue;
      // The closest of the names it imports.
      let via: [string, string] | null = null;
      for (const imp of imports(rel)) {
        for (const entry of related) {
          if (!match(imp, entry[0])) continue;
          if (!via || (depthOf.get(entry[0]) ?? 0) < (depthOf.get(via[0]) ?? 0)) via = entry;
        }
      }
      if (via === null) continue;
      reached.add(rel);
      grew = true;
      const depth = depthOf.get(via[0]) ?? 0;
      add(rel, "imports-changed", via[1], depth);
      const own = moduleNames(listing, rel);
      const importers = testSide.filter((f) => [...imports(f)].some((i) => own.some((n) => covers(i, n))));
      if (importers.length < HELPER_FAN_OUT) {
        for (const n of own) {
          related.set(n, via[1]);
          if (!depthOf.has(n)) depthOf.set(n, Math.max(2, depth + 1));
        }
      }
    }
    if (!grew) break;
  }
}
