import { execFile } from "node:child_process";
import { chmod, lstat, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { tempParentOutside } from "../core/temp-outside.ts";
import { mountSizedTmpfs, tmpfsCopiesAvailable, unmountTmpfs } from "./disk.ts";
import { DEFAULT_LIMITS } from "./types.ts";

export interface WorkCopy {
  dir: string;
  dispose(): Promise<void>;
}

export interface WorkCopyOptions {
  /** What a run in the copy may add: bytes and files (the copy's tmpfs is the tree plus this). */
  diskMb?: number;
  maxFiles?: number;
  /** Caps on what is copied at all: a tree over them is refused, never copied in part. */
  maxCopyBytes?: number;
  maxCopyFiles?: number;
  /** Largest single file (its apparent size, holes included) the copy accepts. */
  maxFileBytes?: number;
  /** Put the copy on a sized tmpfs: "auto" (default) when this process may mount. */
  tmpfs?: boolean | "auto";
}

export const DEFAULT_COPY_LIMITS = {
  maxCopyBytes: 16 * 1024 ** 3,
  maxCopyFiles: 2_000_000,
  maxFileBytes: 1024 ** 3,
} as const;

/** A tree refused for copying (too large, too many files, a huge or special file). */
export class WorkCopyRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkCopyRefusedError";
  }
}

interface TreeSize {
  /** Bytes the data takes on disk (holes excluded), per path: hard links count once per name. */
  allocated: number;
  entries: number;
}

const human = (n: number): string =>
  n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;

/**
 * Measures a tree without following links, and refuses it when it is over the caps or holds a device
 * file or a file whose apparent size is over the per-file cap (a sparse file of gigabytes costs nothing
 * in the tree that made it, and would cost its full size in a naive copy).
 */
async function measure(
  root: string,
  caps: Required<Pick<WorkCopyOptions, "maxCopyBytes" | "maxCopyFiles" | "maxFileBytes">>,
): Promise<TreeSize> {
  const size: TreeSize = { allocated: 0, entries: 0 };
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const st = await lstat(path);
      size.entries++;
      if (size.entries > caps.maxCopyFiles) {
        throw new WorkCopyRefusedError(
          `refusing to copy ${root}: more than ${caps.maxCopyFiles} files and folders`,
        );
      }
      if (st.isDirectory()) {
        stack.push(path);
        size.allocated += 4096;
      } else if (st.isFile()) {
        if (st.size > caps.maxFileBytes) {
          const sparse = st.blocks * 512 < st.size / 2 ? ` (sparse: ${human(st.blocks * 512)} on disk)` : "";
          throw new WorkCopyRefusedError(
            `refusing to copy ${root}: ${relative(root, path)} is ${human(st.size)}${sparse}, over the ${human(caps.maxFileBytes)} cap for one file`,
          );
        }
        size.allocated += Math.min(st.blocks * 512, Math.ceil(st.size / 4096) * 4096 + 4096);
      } else if (st.isCharacterDevice() || st.isBlockDevice()) {
        throw new WorkCopyRefusedError(`refusing to copy ${root}: ${relative(root, path)} is a device file`);
      }
      if (size.allocated > caps.maxCopyBytes) {
        throw new WorkCopyRefusedError(
          `refusing to copy ${root}: more than ${human(caps.maxCopyBytes)} of data`,
        );
      }
    }
  }
  return size;
}

function cp(src: string, dest: string): Promise<void> {
  return new Promise((resolveP, reject) => {
    // -P: links copied as links, never followed. --sparse=always: holes stay holes (and runs of zeros
    // become holes). Mode is not preserved, so set-user-ID and set-group-ID bits are dropped: a file a
    // sandboxed process marked setuid is never a setuid file of the copier (root).
    execFile(
      "cp",
      ["-R", "-P", "--sparse=always", "--preserve=timestamps", "--", src, dest],
      { timeout: 600_000, env: { PATH: "/usr/bin:/bin" }, maxBuffer: 1024 * 1024 },
      (err, _o, stderr) =>
        err
          ? reject(new Error(`copying ${src} failed: ${(stderr || err.message).trim().slice(0, 2000)}`))
          : resolveP(),
    );
  });
}

/**
 * A private, writable copy of a work tree, so commands can run against a user's checkout (or a tree
 * in which sandboxed code already ran) without changing it. The tree is measured first and refused
 * when over the caps; links are copied as links; sparse files stay sparse; setuid bits are dropped.
 * When this process can mount (root), the copy lives on its own tmpfs sized to the tree plus what a
 * run may add (`diskMb`, `maxFiles`): a run cannot fill the host's disk through it.
 */
export async function makeWorkCopy(
  source: string,
  parent: string = tmpdir(),
  opts: WorkCopyOptions = {},
): Promise<WorkCopy> {
  const src = resolve(source);
  const st = await stat(src).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`not a directory: ${source}`);
  const caps = {
    maxCopyBytes: opts.maxCopyBytes ?? DEFAULT_COPY_LIMITS.maxCopyBytes,
    maxCopyFiles: opts.maxCopyFiles ?? DEFAULT_COPY_LIMITS.maxCopyFiles,
    maxFileBytes: opts.maxFileBytes ?? DEFAULT_COPY_LIMITS.maxFileBytes,
  };
  const size = await measure(src, caps);
  const base = await mkdtemp(join(await tempParentOutside(src, parent), `auto-fix-work-${process.pid}-`));
  // Traversable (not listable), so the sandbox's unprivileged uid can reach the copy.
  await chmod(base, 0o711);
  const useTmpfs = opts.tmpfs === "auto" || opts.tmpfs === undefined ? tmpfsCopiesAvailable() : opts.tmpfs;
  let mounted = false;
  const dispose = async (): Promise<void> => {
    if (mounted) await unmountTmpfs(base);
    await rm(base, { recursive: true, force: true });
  };
  try {
    if (useTmpfs) {
      const diskBytes = (opts.diskMb ?? DEFAULT_LIMITS.diskMb) * 1024 * 1024;
      const bytes = Math.ceil(size.allocated * 1.05) + 1024 * 1024 + diskBytes;
      const inodes = size.entries + 16 + (opts.maxFiles ?? DEFAULT_LIMITS.maxFiles);
      await mountSizedTmpfs(base, bytes, inodes);
      mounted = true;
    }
    const dir = join(base, basename(src) || "repo");
    await cp(src, dir);
    return { dir, dispose };
  } catch (err) {
    await dispose().catch(() => {});
    throw err;
  }
}
