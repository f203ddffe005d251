import { posix } from "node:path";
import { dirOf } from "./tree-listing.ts";
import type { TreeListing } from "./types.ts";

/** Extensions tried after a specifier, in Node's order first, then TypeScript's. */
const EXTENSIONS = [".js", ".json", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts"];
/** The conditions of a package's `exports` taken, in order (the first that leads to a file wins). */
const CONDITIONS = ["require", "import", "node", "default"];
/** Longest chain of `main`/`exports` indirections followed. */
const MAX_HOPS = 8;

/** `package.json` of a folder of the tree, parsed (null when absent or not JSON). */
function packageJson(listing: TreeListing, dir: string): Record<string, unknown> | null {
  const text = listing.read(dir === "" ? "package.json" : `${dir}/package.json`);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A path inside the tree from a folder and a relative path, or null when it leaves the tree. */
function within(dir: string, rel: string): string | null {
  const joined = posix.normalize(posix.join(dir === "" ? "." : dir, rel)).replace(/\/+$/, "");
  if (joined === "..") return null;
  if (joined.startsWith("../") || joined.startsWith("/")) return null;
  return joined === "." ? "" : joined;
}

/** LOAD_AS_FILE: the path itself, then with each extension (`./x.js` may be `./x.ts` in TypeScript). */
function asFile(listing: TreeListing, p: string): string | null {
  if (p === "") return null;
  if (listing.has(p)) return p;
  for (const e of EXTENSIONS) if (listing.has(`${p}${e}`)) return `${p}${e}`;
  const stripped = p.replace(/\.(?:[cm]?js|jsx)$/, "");
  if (stripped !== p)
    for (const e of EXTENSIONS) if (listing.has(`${stripped}${e}`)) return `${stripped}${e}`;
  return null;
}

/** The file an `exports` value leads to (a string, conditions, or a list of either). */
function fromExports(listing: TreeListing, dir: string, value: unknown, hops: number): string | null {
  if (hops > MAX_HOPS) return null;
  if (typeof value === "string") {
    if (!value.startsWith("./")) return null;
    const p = within(dir, value);
    return p === null ? null : asFile(listing, p);
  }
  if (Array.isArray(value)) {
    for (const v of value) {
      const hit = fromExports(listing, dir, v, hops + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const c of CONDITIONS) {
      if (!(c in o)) continue;
      const hit = fromExports(listing, dir, o[c], hops + 1);
      if (hit) return hit;
    }
  }
  return null;
}

/** The `exports` entry of a subpath (`.` or `./x`), when the package has one. */
function exportsEntry(exportsField: unknown, subpath: string): unknown {
  if (typeof exportsField === "string" || Array.isArray(exportsField))
    return subpath === "." ? exportsField : undefined;
  if (exportsField === null || typeof exportsField !== "object") return undefined;
  const o = exportsField as Record<string, unknown>;
  const keys = Object.keys(o);
  // Conditions at the top (no key starts with "."): they are the package's "." entry.
  if (keys.length > 0 && keys.every((k) => !k.startsWith("."))) return subpath === "." ? o : undefined;
  return o[subpath];
}

/** LOAD_AS_DIRECTORY: `package.json` `main` (or `exports` "."), else the folder's `index` file. */
function asDirectory(listing: TreeListing, dir: string, hops = 0): string | null {
  const pkg = packageJson(listing, dir);
  if (pkg && hops <= MAX_HOPS) {
    if (typeof pkg.main === "string" && pkg.main !== "") {
      const p = within(dir, pkg.main);
      if (p !== null && p !== dir) {
        const hit = asFile(listing, p) ?? asDirectory(listing, p, hops + 1);
        if (hit) return hit;
      }
    }
    const e = exportsEntry(pkg.exports, ".");
    if (e !== undefined) {
      const hit = fromExports(listing, dir, e, hops);
      if (hit) return hit;
    }
  }
  const base = dir === "" ? "index" : `${dir}/index`;
  for (const e of EXTENSIONS) if (listing.has(`${base}${e}`)) return `${base}${e}`;
  return null;
}

/**
 * The file of the tree an import specifier in `from` loads, by Node's rules: a relative specifier (`.`,
 * `..`, `./x`, `../`) as a file (extensions probed), then as a folder (`package.json` `main`/`exports`,
 * else `index`); the package's own name (`require("shop")`, `shop/sub`) through the root `package.json`.
 * Other bare specifiers (dependencies in `node_modules`, Node's built-ins) load no file of the tree.
 */
export function resolveSpecifier(listing: TreeListing, from: string, spec: string): string | null {
  if (spec === "." || spec === ".." || spec.startsWith("./") || spec.startsWith("../")) {
    const p = within(dirOf(from), spec);
    if (p === null) return null;
    const dirOnly = spec.endsWith("/") || spec === "." || spec === "..";
    return (dirOnly ? null : asFile(listing, p)) ?? asDirectory(listing, p);
  }
  const root = packageJson(listing, "");
  const name = typeof root?.name === "string" ? root.name : null;
  if (!name || (spec !== name && !spec.startsWith(`${name}/`))) return null;
  const subpath = spec === name ? "." : `./${spec.slice(name.length + 1)}`;
  const e = exportsEntry(root?.exports, subpath);
  if (e !== undefined) return fromExports(listing, "", e, 0);
  if (root?.exports !== undefined) return null;
  if (subpath === ".") return asDirectory(listing, "");
  const p = within("", subpath);
  return p === null ? null : (asFile(listing, p) ?? asDirectory(listing, p));
}
