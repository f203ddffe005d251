/**
 * RepoFiles implementations: a directory on disk (read through tree-fs: no link followed, no special
 * file opened, reads capped) and an in-memory map.
 */
import { resolve } from "node:path";
import { isVirtualEnvDir, isVirtualEnvListing, SKIPPED_DIRS } from "../core/path-rules.ts";
import { openTree, TreeFsError, type TreeFs } from "../core/tree-fs.ts";
import type { RepoFiles, RepoRead } from "./types.ts";

/** Files larger than this are not patched (generated bundles, data). */
const MAX_PATCH_FILE_BYTES = 8 * 1024 * 1024;
/** Entries a listing may hold: a tree larger than this is listed in part. */
const MAX_LISTED_FILES = 200_000;

/** Reads files of a directory. Paths through a symbolic link, and special files, read as unsafe. */
export function createDiskRepo(root: string): RepoFiles {
  let tree: TreeFs | null = null;
  const open = (): TreeFs => (tree ??= openTree(root));
  let listing: Promise<string[]> | null = null;
  return {
    root: resolve(root),
    listFiles() {
      listing ??= (async () => {
        const t = open();
        const out: string[] = [];
        const walk = (rel: string): void => {
          let entries: ReturnType<TreeFs["list"]>;
          try {
            entries = t.list(rel);
          } catch {
            return;
          }
          // A virtual environment is known by what it holds (no link followed), not by its name.
          if (rel !== "" && isVirtualEnvListing(entries)) return;
          for (const e of entries) {
            if (out.length >= MAX_LISTED_FILES) return;
            const r = rel ? `${rel}/${e.name}` : e.name;
            if (e.kind === "directory") {
              if (!SKIPPED_DIRS.has(e.name)) walk(r);
            } else if (e.kind === "file") out.push(r);
          }
        };
        walk("");
        return out;
      })();
      return listing;
    },
    isVirtualEnvDir(dir: string): boolean {
      const t = open();
      return isVirtualEnvDir(dir, (p) => t.kind(p));
    },
    async readFile(path: string): Promise<RepoRead> {
      try {
        return { kind: "file", bytes: open().read(path, { maxBytes: MAX_PATCH_FILE_BYTES }) };
      } catch (err) {
        if (!(err instanceof TreeFsError)) throw err;
        if (err.code === "missing") return { kind: "missing" };
        if (err.code === "link" && err.path !== path.replace(/^(\.\/)+/, "")) {
          const real = open().resolveLinks(path);
          return {
            kind: "unsafe",
            reason: `${path} goes through a symbolic link: ${err.message}${real ? ` Its real path is ${real}.` : ""}`,
          };
        }
        return { kind: "unsafe", reason: err.message };
      }
    },
  };
}

/** An in-memory repository (tests, benchmarks, callers that already hold the files). */
export function createMemoryRepo(files: Record<string, string | Uint8Array>, root = "/repo"): RepoFiles {
  const map = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(files)) map.set(k, typeof v === "string" ? Buffer.from(v, "utf8") : v);
  /** Folders holding a `conda-meta/` folder (found once). */
  let condaDirs: Set<string> | null = null;
  return {
    root,
    async listFiles() {
      return [...map.keys()].sort();
    },
    async readFile(path) {
      const b = map.get(path);
      return b ? { kind: "file", bytes: b } : { kind: "missing" };
    },
    isVirtualEnvDir(dir) {
      if (map.has(`${dir}/pyvenv.cfg`)) return true;
      condaDirs ??= new Set(
        [...map.keys()].flatMap((k) => {
          const i = k.indexOf("/conda-meta/");
          return i >= 0 ? [k.slice(0, i)] : k.startsWith("conda-meta/") ? [""] : [];
        }),
      );
      return condaDirs.has(dir);
    },
  };
}
