/**
 * The one way the host reads and writes inside a work tree: a repository's checkout, a private copy in
 * which sandboxed code ran, a user's tree under `auto-fix apply --write`.
 *
 * - Never follows a link. Every path is resolved one component at a time from a descriptor of the
 *   tree's root, each directory opened with O_NOFOLLOW through `/proc/self/fd/<dir>/<name>` (the
 *   kernel resolves that as `openat(dir, name)`), so a link planted anywhere on the path, before or
 *   during the operation, is refused instead of followed. The real path of what was opened is checked
 *   against the root afterwards as well.
 * - Refuses special files (FIFOs, sockets, devices) without blocking: the entry is examined with lstat
 *   before it is opened, opened with O_NONBLOCK, and examined again with fstat once open.
 * - Caps what it reads (and how many entries a listing returns).
 * - Writes by creating a new file beside the target and renaming it over the target, so a link or a
 *   hard link sitting at the target is replaced, never written through.
 *
 * Paths are relative to the root and `/`-separated; since no link is ever followed, the path a caller
 * names is the real path, and path rules (protected files, tests) checked on it hold for what is touched.
 *
 * On a system without `/proc/self/fd` the same checks run on paths (lstat of every component, O_NOFOLLOW
 * on the last, the opened file's identity compared with the path's), which closes every case except a
 * directory swapped for a link in the instant between the check and the use.
 */
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  opendirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** Default cap of one read: larger files are refused, not truncated. */
export const DEFAULT_MAX_READ_BYTES = 8 * 1024 * 1024;
/** Default cap of one directory listing. */
export const DEFAULT_MAX_ENTRIES = 100_000;

export type TreeFsErrorCode =
  | "invalid-path"
  | "link"
  | "special"
  | "directory"
  | "not-directory"
  | "missing"
  | "too-large"
  | "escaped"
  | "io";

/** A refused or failed operation, with the repository-relative path and why, in words a model can act on. */
export class TreeFsError extends Error {
  readonly code: TreeFsErrorCode;
  readonly path: string;
  constructor(code: TreeFsErrorCode, path: string, message: string) {
    super(message);
    this.name = "TreeFsError";
    this.code = code;
    this.path = path;
  }
}

export type EntryKind = "file" | "directory" | "link" | "special" | "missing";

export interface TreeEntry {
  name: string;
  kind: Exclude<EntryKind, "missing">;
}

export interface WalkEntry extends TreeEntry {
  /** Path from the root, `/`-separated. */
  rel: string;
}

export interface WalkOptions {
  maxDepth: number;
  maxEntries: number;
  /** Whether to enter a directory (default: every one). */
  descend?: (rel: string, name: string) => boolean;
  /**
   * Called with a directory's listing once it is entered (not for the root): false leaves its contents
   * out (a folder known by what it holds, such as a virtual environment). No extra file system access.
   */
  keep?: (rel: string, listing: readonly TreeEntry[]) => boolean;
}

export interface ReadOptions {
  /** Refuse files larger than this many bytes (default 8 MiB). */
  maxBytes?: number;
}

export interface WriteOptions {
  /** Create missing parent directories (default true). */
  mkdirs?: boolean;
  /**
   * What to do when a link or a special file sits at the target: `refuse` (default) or `replace` it with
   * the new regular file. The thing a link points to is never touched either way.
   */
  onLink?: "refuse" | "replace";
  /** Mode of a new file (default 0o644); an existing file keeps its own. */
  mode?: number;
}

export interface TreeFs {
  /** The real path of the tree's root. */
  readonly root: string;
  /** A regular file's bytes. Throws TreeFsError (`missing` when absent). */
  read(path: string, opts?: ReadOptions): Buffer;
  /** A regular file's bytes, or null when nothing is there. Other refusals still throw. */
  readIfExists(path: string, opts?: ReadOptions): Buffer | null;
  /** What is at `path`, without following a link at its end; a link on the way throws. */
  kind(path: string): EntryKind;
  /** Size of a regular file (throws like `read` for anything else). */
  size(path: string): number;
  /** Writes a regular file, atomically (a new file renamed over the target). */
  write(path: string, data: string | Uint8Array, opts?: WriteOptions): void;
  /** Removes a file, a link or a special file (never what a link points to). Absent is fine. */
  remove(path: string): void;
  /**
   * Entries of a directory ("" = the root), sorted by name. A directory with more than `max` entries
   * (default 100,000) is refused (`too-large`) rather than listed in part.
   */
  list(path: string, max?: number): TreeEntry[];
  /**
   * Every entry under the root, depth first, names sorted: `rel` is the entry's path. Each directory is
   * opened once, from its parent's descriptor (no link followed), so the cost is linear in the entries
   * however deep the tree; `descend` says which directories to enter. Stops after `maxEntries` entries
   * (then `truncated` is true) and does not go deeper than `maxDepth` directories.
   */
  walk(opts: WalkOptions): { entries: WalkEntry[]; truncated: boolean };
  /**
   * Where `path` really leads inside the tree when its links are followed (only to name it in messages):
   * the `/`-separated real path, or null when a link leads out of the tree or the chain is too long.
   */
  resolveLinks(path: string): string | null;
}

let procFdAvailable: boolean | undefined;
const hasProcFd = (): boolean => {
  procFdAvailable ??= existsSync("/proc/self/fd") && readlinkSafe("/proc/self/cwd") !== null;
  return procFdAvailable;
};

function readlinkSafe(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}

/**
 * Folders a path may go through. Each operation opens every folder on its path, so a walk that names
 * each entry by its path costs the depth squared: a chain of thousands of nested folders (possible in a
 * checkout) would hold the host for minutes. Deeper paths are refused.
 */
export const MAX_PATH_DEPTH = 128;

/** `a/./b//c` → ["a","b","c"]; absolute paths, `..`, NUL, empty and too deep paths are refused. */
export function splitTreePath(path: string): string[] {
  if (typeof path !== "string" || path.includes("\0")) {
    throw new TreeFsError("invalid-path", String(path), `${JSON.stringify(path)} is not a valid path.`);
  }
  const norm = path.replaceAll("\\", "/");
  if (norm.startsWith("/")) {
    throw new TreeFsError("invalid-path", path, `${path} is absolute; paths are relative to the repository.`);
  }
  const parts = norm.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) {
    throw new TreeFsError("invalid-path", path, `${path} leaves the repository.`);
  }
  if (parts.length > MAX_PATH_DEPTH + 1) {
    throw new TreeFsError(
      "invalid-path",
      path,
      `${parts.slice(0, 3).join("/")}/... is nested more than ${MAX_PATH_DEPTH} folders deep; auto-fix does not go that deep.`,
    );
  }
  return parts;
}

interface Dir {
  fd: number;
  /** The directory's path as the caller named it, relative to the root ("" for the root). */
  rel: string;
  /** Absolute path (used only where /proc/self/fd is missing). */
  abs: string;
}

const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

const kindOf = (st: Stats): Exclude<EntryKind, "missing"> =>
  st.isSymbolicLink() ? "link" : st.isDirectory() ? "directory" : st.isFile() ? "file" : "special";

const specialName = (st: Stats): string =>
  st.isFIFO()
    ? "a named pipe (FIFO)"
    : st.isSocket()
      ? "a socket"
      : st.isCharacterDevice() || st.isBlockDevice()
        ? "a device"
        : "not a regular file";

/** Opens a work tree rooted at `root` (an existing directory; the host's own path, trusted). */
export function openTree(root: string, opts: { useProcFd?: boolean } = {}): TreeFs {
  const realRoot = realpathSync(root);
  const useProc = opts.useProcFd ?? hasProcFd();
  const at = (dir: Dir, name: string): string =>
    useProc ? `/proc/self/fd/${dir.fd}/${name}` : `${dir.abs}/${name}`;
  const join = (rel: string, name: string): string => (rel ? `${rel}/${name}` : name);

  /** The real location of an open descriptor must be the root or below it. */
  const verifyInside = (fd: number, rel: string): void => {
    if (!useProc) return;
    const real = readlinkSafe(`/proc/self/fd/${fd}`);
    if (real === null || (real !== realRoot && !real.startsWith(`${realRoot}/`))) {
      throw new TreeFsError("escaped", rel, `${rel || "."} is not inside the repository.`);
    }
  };

  const openRoot = (): Dir => {
    const fd = openSync(realRoot, O_RDONLY | O_DIRECTORY);
    return { fd, rel: "", abs: realRoot };
  };

  const refuseEntry = (st: Stats, rel: string, wanted: "file" | "directory"): TreeFsError => {
    if (st.isSymbolicLink()) {
      const target = resolveLinksImpl(rel);
      if (target === null) {
        return new TreeFsError(
          "link",
          rel,
          `${rel} is a symbolic link that leaves the repository; links are never followed.`,
        );
      }
      return new TreeFsError(
        "link",
        rel,
        wanted === "file"
          ? `${rel} is a symbolic link to ${target}; edit ${target} instead (links are never followed).`
          : `${rel} is a symbolic link to ${target || "the repository root"}; name the path through ${target || "the root"} instead (links are never followed).`,
      );
    }
    if (wanted === "file" && st.isDirectory())
      return new TreeFsError("directory", rel, `${rel} is a directory, not a file.`);
    if (wanted === "directory" && !st.isDirectory())
      return new TreeFsError("not-directory", rel, `${rel} is not a directory.`);
    return new TreeFsError(
      "special",
      rel,
      `${rel} is ${specialName(st)}; auto-fix reads and writes regular files only.`,
    );
  };

  /** Opens `parent/name` as a directory without following a link; creates it when asked. */
  const openChild = (parent: Dir, name: string, create: boolean): Dir => {
    const rel = join(parent.rel, name);
    const p = at(parent, name);
    for (let tries = 0; ; tries++) {
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch (err) {
        if (errCode(err) !== "ENOENT") throw ioError(err, rel);
        if (!create) throw new TreeFsError("missing", rel, `${rel} does not exist.`);
        if (tries > 3) throw new TreeFsError("io", rel, `${rel} kept changing while it was created.`);
        try {
          mkdirSync(p, 0o755);
          inheritOwner(parent, p);
        } catch (e) {
          if (errCode(e) !== "EEXIST" || tries > 2) throw ioError(e, rel);
        }
        continue;
      }
      if (!st.isDirectory()) throw refuseEntry(st, rel, "directory");
      let fd: number;
      try {
        fd = openSync(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
      } catch (err) {
        // Swapped for something else between the lstat and the open: examine it again.
        if (["ENOTDIR", "ELOOP", "ENOENT"].includes(errCode(err) ?? "") && tries < 3) continue;
        throw ioError(err, rel);
      }
      const now = fstatSync(fd);
      if (!useProc && (now.ino !== st.ino || now.dev !== st.dev)) {
        closeSync(fd);
        if (tries < 3) continue;
        throw new TreeFsError("escaped", rel, `${rel} changed while it was opened.`);
      }
      try {
        verifyInside(fd, rel);
      } catch (e) {
        closeSync(fd);
        throw e;
      }
      return { fd, rel, abs: `${parent.abs}/${name}` };
    }
  };

  /** Owner of what we create: the parent directory's (the tree keeps one owner). */
  const inheritOwner = (parent: Dir, p: string): void => {
    try {
      const ps = fstatSync(parent.fd);
      const st = lstatSync(p);
      if (st.uid !== ps.uid || st.gid !== ps.gid) {
        const fd = openSync(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        try {
          fchownSync(fd, ps.uid, ps.gid);
        } finally {
          closeSync(fd);
        }
      }
    } catch {
      // not permitted (not root): the file stays ours, which is what an unprivileged host can do
    }
  };

  /** Runs `fn` with the directory holding the last component of `path`. */
  const withParent = <T>(
    path: string,
    create: boolean,
    fn: (dir: Dir, name: string, rel: string) => T,
  ): T => {
    const parts = splitTreePath(path);
    if (parts.length === 0) throw new TreeFsError("invalid-path", path, "the repository root is not a file.");
    const name = parts.pop()!;
    let dir = openRoot();
    try {
      for (const part of parts) {
        const next = openChild(dir, part, create);
        closeSync(dir.fd);
        dir = next;
      }
      return fn(dir, name, join(dir.rel, name));
    } finally {
      closeSync(dir.fd);
    }
  };

  const withDir = <T>(path: string, fn: (dir: Dir) => T): T => {
    const parts = splitTreePath(path);
    let dir = openRoot();
    try {
      for (const part of parts) {
        const next = openChild(dir, part, false);
        closeSync(dir.fd);
        dir = next;
      }
      return fn(dir);
    } finally {
      closeSync(dir.fd);
    }
  };

  /** A directory's entries, sorted by name; more than `max` is refused (`too-large`). */
  const listDir = (dir: Dir, max: number): TreeEntry[] => {
    const out: TreeEntry[] = [];
    const handle = opendirSync(useProc ? `/proc/self/fd/${dir.fd}` : dir.abs);
    try {
      for (let e = handle.readSync(); e !== null; e = handle.readSync()) {
        if (out.length >= max) {
          throw new TreeFsError(
            "too-large",
            dir.rel,
            `${dir.rel || "the repository root"} holds more than ${max} entries; it was not listed.`,
          );
        }
        const kind: TreeEntry["kind"] = e.isSymbolicLink()
          ? "link"
          : e.isDirectory()
            ? "directory"
            : e.isFile()
              ? "file"
              : "special";
        out.push({ name: e.name, kind });
      }
    } finally {
      handle.closeSync();
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  const lstatAt = (dir: Dir, name: string, rel: string): Stats | null => {
    try {
      return lstatSync(at(dir, name));
    } catch (err) {
      if (errCode(err) === "ENOENT") return null;
      throw ioError(err, rel);
    }
  };

  const readImpl = (path: string, opts: ReadOptions, allowMissing: boolean): Buffer | null =>
    withParent(path, false, (dir, name, rel) => {
      const max = opts.maxBytes ?? DEFAULT_MAX_READ_BYTES;
      const st = lstatAt(dir, name, rel);
      if (st === null) {
        if (allowMissing) return null;
        throw new TreeFsError("missing", rel, `${rel} does not exist.`);
      }
      if (!st.isFile()) throw refuseEntry(st, rel, "file");
      let fd: number;
      try {
        fd = openSync(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch (err) {
        const code = errCode(err);
        if (code === "ELOOP") {
          const now = lstatAt(dir, name, rel);
          throw now ? refuseEntry(now, rel, "file") : ioError(err, rel);
        }
        if (code === "ENXIO")
          throw new TreeFsError("special", rel, `${rel} is a socket; auto-fix reads regular files only.`);
        if (code === "ENOENT" && allowMissing) return null;
        throw ioError(err, rel);
      }
      try {
        const fst = fstatSync(fd);
        if (!fst.isFile()) throw refuseEntry(fst, rel, "file");
        if (fst.ino !== st.ino || fst.dev !== st.dev) {
          throw new TreeFsError("escaped", rel, `${rel} was replaced while it was being opened.`);
        }
        verifyInside(fd, rel);
        if (fst.size > max) throw tooLarge(rel, fst.size, max);
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
          const buf = Buffer.allocUnsafe(Math.min(64 * 1024, max + 1 - total));
          const n = readSync(fd, buf, 0, buf.length, null);
          if (n === 0) break;
          total += n;
          chunks.push(buf.subarray(0, n));
          if (total > max) throw tooLarge(rel, total, max);
        }
        return Buffer.concat(chunks, total);
      } finally {
        closeSync(fd);
      }
    });

  /**
   * Follows links by reading them, never by letting the kernel follow one: every directory on the way is
   * opened without following (like every other operation here), so a directory swapped for a link while
   * this runs ends the walk instead of leading out of the tree.
   */
  const resolveLinksImpl = (path: string): string | null => {
    let parts: string[];
    try {
      parts = splitTreePath(path);
    } catch {
      return null;
    }
    const open = (names: readonly string[]): Dir | null => {
      let dir = openRoot();
      try {
        for (const n of names) {
          const next = openChild(dir, n, false);
          closeSync(dir.fd);
          dir = next;
        }
        return dir;
      } catch {
        closeSync(dir.fd);
        return null;
      }
    };
    const done: string[] = [];
    let dir: Dir | null = open([]);
    let hops = 0;
    try {
      while (parts.length > 0 && dir !== null) {
        const part = parts.shift()!;
        if (part === ".") continue;
        if (part === "..") {
          if (done.length === 0) return null;
          done.pop();
          closeSync(dir.fd);
          dir = open(done);
          continue;
        }
        let st: Stats;
        try {
          st = lstatSync(at(dir, part));
        } catch {
          return [...done, part, ...parts].join("/");
        }
        if (st.isSymbolicLink()) {
          if (++hops > 32) return null;
          let target: string;
          try {
            target = readlinkSync(at(dir, part));
          } catch {
            return null;
          }
          if (target.startsWith("/")) {
            if (target !== realRoot && !target.startsWith(`${realRoot}/`)) return null;
            done.length = 0;
            closeSync(dir.fd);
            dir = open([]);
            target = target.slice(realRoot.length);
          }
          parts = [...target.split("/").filter((p) => p !== ""), ...parts];
          continue;
        }
        if (parts.length > 0) {
          if (!st.isDirectory()) return [...done, part, ...parts].join("/");
          let next: Dir;
          try {
            next = openChild(dir, part, false);
          } catch {
            return null;
          }
          closeSync(dir.fd);
          dir = next;
        }
        done.push(part);
      }
      return dir === null ? null : done.join("/");
    } finally {
      if (dir !== null) closeSync(dir.fd);
    }
  };

  return {
    root: realRoot,
    read: (path, opts = {}) => readImpl(path, opts, false)!,
    readIfExists(path, opts = {}) {
      try {
        return readImpl(path, opts, true);
      } catch (err) {
        // A folder on the way that does not exist: nothing is there.
        if (err instanceof TreeFsError && err.code === "missing") return null;
        throw err;
      }
    },
    kind(path) {
      try {
        return withParent(path, false, (dir, name, rel) => {
          const st = lstatAt(dir, name, rel);
          return st === null ? "missing" : kindOf(st);
        });
      } catch (err) {
        if (err instanceof TreeFsError && err.code === "missing") return "missing";
        throw err;
      }
    },
    size(path) {
      return withParent(path, false, (dir, name, rel) => {
        const st = lstatAt(dir, name, rel);
        if (st === null) throw new TreeFsError("missing", rel, `${rel} does not exist.`);
        if (!st.isFile()) throw refuseEntry(st, rel, "file");
        return st.size;
      });
    },
    write(path, data, opts = {}) {
      withParent(path, opts.mkdirs ?? true, (dir, name, rel) => {
        const st = lstatAt(dir, name, rel);
        if (st?.isDirectory()) throw new TreeFsError("directory", rel, `${rel} is a directory, not a file.`);
        if (st && !st.isFile() && (opts.onLink ?? "refuse") === "refuse") throw refuseEntry(st, rel, "file");
        const keep = st?.isFile() ? st : null;
        const tmpName = `.auto-fix-${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
        const tmp = at(dir, tmpName);
        const fd = openSync(
          tmp,
          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
          keep ? keep.mode & 0o7777 : (opts.mode ?? 0o644),
        );
        let renamed = false;
        try {
          try {
            const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
            let off = 0;
            while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
            const owner = keep ?? fstatSync(dir.fd);
            const mine = fstatSync(fd);
            if (mine.uid !== owner.uid || mine.gid !== owner.gid) {
              try {
                fchownSync(fd, owner.uid, owner.gid);
              } catch {
                // an unprivileged host cannot give files away; they stay its own
              }
            }
            if (keep) fchmodSync(fd, keep.mode & 0o7777);
          } finally {
            closeSync(fd);
          }
          renameSync(tmp, at(dir, name));
          renamed = true;
        } catch (err) {
          throw err instanceof TreeFsError ? err : ioError(err, rel);
        } finally {
          if (!renamed) {
            try {
              unlinkSync(tmp);
            } catch {
              // already gone
            }
          }
        }
      });
    },
    remove(path) {
      withParent(path, false, (dir, name, rel) => {
        const st = lstatAt(dir, name, rel);
        if (st === null) return;
        if (st.isDirectory()) {
          try {
            rmdirSync(at(dir, name));
            return;
          } catch (err) {
            throw ioError(err, rel);
          }
        }
        try {
          unlinkSync(at(dir, name));
        } catch (err) {
          if (errCode(err) !== "ENOENT") throw ioError(err, rel);
        }
      });
    },
    list(path, max = DEFAULT_MAX_ENTRIES) {
      return withDir(path, (dir) => listDir(dir, max));
    },
    resolveLinks: resolveLinksImpl,
    walk({ maxDepth, maxEntries, descend, keep }) {
      const entries: WalkEntry[] = [];
      let truncated = false;
      const visit = (dir: Dir, depth: number): void => {
        let listed: TreeEntry[];
        try {
          listed = listDir(dir, maxEntries - entries.length + 1);
        } catch (err) {
          if (err instanceof TreeFsError && err.code === "too-large") {
            truncated = true;
            return;
          }
          return; // gone while walking
        }
        if (depth > 0 && keep && !keep(dir.rel, listed)) return;
        for (const e of listed) {
          if (entries.length >= maxEntries) {
            truncated = true;
            return;
          }
          const rel = join(dir.rel, e.name);
          entries.push({ ...e, rel });
          if (e.kind !== "directory" || depth >= maxDepth || (descend && !descend(rel, e.name))) continue;
          let child: Dir;
          try {
            child = openChild(dir, e.name, false);
          } catch {
            continue; // swapped for a link or removed meanwhile: nothing under it is part of the tree
          }
          try {
            visit(child, depth + 1);
          } finally {
            closeSync(child.fd);
          }
          if (truncated) return;
        }
      };
      const root = openRoot();
      try {
        visit(root, 0);
      } finally {
        closeSync(root.fd);
      }
      return { entries, truncated };
    },
  };
}

function tooLarge(rel: string, size: number, max: number): TreeFsError {
  return new TreeFsError("too-large", rel, `${rel} is larger than ${max} bytes (${size}); it was not read.`);
}

function ioError(err: unknown, rel: string): TreeFsError {
  if (err instanceof TreeFsError) return err;
  const code = errCode(err);
  if (code === "ENOENT") return new TreeFsError("missing", rel, `${rel} does not exist.`);
  if (code === "ELOOP")
    return new TreeFsError("link", rel, `${rel} goes through a symbolic link; auto-fix never follows links.`);
  return new TreeFsError("io", rel, `${rel} cannot be used (${code ?? (err as Error).message}).`);
}
