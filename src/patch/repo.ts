/**
 * RepoFiles implementations: a directory on disk (refusing symlinks that leave it) and an in-memory map.
 */
import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { RepoFiles, RepoRead } from "./types.ts";

const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".auto-fix",
  ".hg",
  ".svn",
]);

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Reads files of a directory. Paths that pass through a symlink leaving the directory read as unsafe. */
export function createDiskRepo(root: string): RepoFiles {
  const absRoot = resolve(root);
  let realRoot: Promise<string> | null = null;
  const getRealRoot = () => (realRoot ??= realpath(absRoot));
  let listing: Promise<string[]> | null = null;
  return {
    root: absRoot,
    listFiles() {
      listing ??= (async () => {
        const out: string[] = [];
        const walk = async (dir: string, rel: string): Promise<void> => {
          let entries: import("node:fs").Dirent[];
          try {
            entries = await readdir(dir, { withFileTypes: true });
          } catch {
            return;
          }
          entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          for (const e of entries) {
            const r = rel ? `${rel}/${e.name}` : e.name;
            if (e.isDirectory()) {
              if (!SKIP_DIRS.has(e.name)) await walk(join(dir, e.name), r);
            } else if (e.isFile()) out.push(r);
          }
        };
        await walk(absRoot, "");
        return out;
      })();
      return listing;
    },
    async readFile(path: string): Promise<RepoRead> {
      const abs = resolve(absRoot, path);
      if (!inside(absRoot, abs) || abs === absRoot)
        return { kind: "unsafe", reason: `${path} is outside the repository.` };
      const rr = await getRealRoot();
      // The nearest existing ancestor (or the file itself) must resolve inside the repository.
      let probe = abs;
      for (;;) {
        try {
          const real = await realpath(probe);
          if (!inside(rr, real)) {
            return {
              kind: "unsafe",
              reason: `${path} goes through a symbolic link that leaves the repository.`,
            };
          }
          break;
        } catch {
          const parent = resolve(probe, "..");
          if (parent === probe) break;
          probe = parent;
        }
      }
      try {
        const st = await lstat(abs);
        if (st.isDirectory()) return { kind: "unsafe", reason: `${path} is a directory, not a file.` };
        if (st.isSymbolicLink()) {
          // git stores a link, not the file's text: the change belongs in the file it points to.
          const target = relative(rr, await realpath(abs))
            .split(sep)
            .join("/");
          return {
            kind: "unsafe",
            reason: `${path} is a symbolic link to ${target}; edit ${target} instead.`,
          };
        }
        return { kind: "file", bytes: await readFile(abs) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
        return {
          kind: "unsafe",
          reason: `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}).`,
        };
      }
    },
  };
}

/** An in-memory repository (tests, benchmarks, callers that already hold the files). */
export function createMemoryRepo(files: Record<string, string | Uint8Array>, root = "/repo"): RepoFiles {
  const map = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(files)) map.set(k, typeof v === "string" ? Buffer.from(v, "utf8") : v);
  return {
    root,
    async listFiles() {
      return [...map.keys()].sort();
    },
    async readFile(path) {
      const b = map.get(path);
      return b ? { kind: "file", bytes: b } : { kind: "missing" };
    },
  };
}
