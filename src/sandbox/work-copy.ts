import { execFile } from "node:child_process";
import { forgetTempDir, trackTempDir } from "../core/temp-dirs.ts";
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { tempParentOutside } from "../core/temp-outside.ts";
import { mountSizedTmpfs, tmpfsCopiesAvailable, unmountTmpfs } from "./disk.ts";
import { sandboxCeilings } from "./limits.ts";
import {
  forgetCopy,
  forgetFrozen,
  frozenLayer,
  type Layer,
  type LayerSize,
  MAX_LOWER_LAYERS,
  mountablePath,
  mountOverlay,
  overlayCopiesAvailable,
  overlayCopy,
  rememberCopy,
  rememberFrozen,
} from "./overlay.ts";
import {
  findDependencyTrees,
  forgetShared,
  type SharedTree,
  sharedBindsOf,
  sharedTreesOf,
  shareTrees,
} from "./shared-deps.ts";
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
  /**
   * Installed dependencies (`node_modules`, virtual environments) of the source are not copied: the copy
   * holds empty folders in their place and sandboxed runs get the source's folders bound there read-only
   * (`shared-deps.ts`). Only for trees whose runs go through a sandbox that makes those binds, and whose
   * setup writes no dependencies. A source that itself shares trees (a copy made so, or a work tree the
   * pipeline registered) passes them on; with `false`, a plain copy gets them copied in instead (a job
   * whose setup writes them, or a sandbox that makes no binds). Absent: passed on as they are.
   */
  shareDependencies?: boolean;
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

type Caps = Required<Pick<WorkCopyOptions, "maxCopyBytes" | "maxCopyFiles" | "maxFileBytes">>;

const human = (n: number): string =>
  n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;

const fileCap = (root: string, largest: LayerSize["largest"], caps: Caps): void => {
  if (!largest || largest.size <= caps.maxFileBytes) return;
  const sparse =
    largest.blocks * 512 < largest.size / 2 ? ` (sparse: ${human(largest.blocks * 512)} on disk)` : "";
  throw new WorkCopyRefusedError(
    `refusing to copy ${root}: ${largest.path} is ${human(largest.size)}${sparse}, over the ${human(caps.maxFileBytes)} cap for one file`,
  );
};

/** Refuses a tree whose figures are over the caps (measured now, or once when it was frozen). */
function checkCaps(root: string, size: LayerSize, caps: Caps): void {
  if (size.entries > caps.maxCopyFiles) {
    throw new WorkCopyRefusedError(
      `refusing to copy ${root}: more than ${caps.maxCopyFiles} files and folders`,
    );
  }
  fileCap(root, size.largest, caps);
  if (size.allocated > caps.maxCopyBytes) {
    throw new WorkCopyRefusedError(`refusing to copy ${root}: more than ${human(caps.maxCopyBytes)} of data`);
  }
}

/**
 * Measures a tree without following links, and refuses it when it is over the caps or holds a device
 * file or a file whose apparent size is over the per-file cap (a sparse file of gigabytes costs nothing
 * in the tree that made it, and would cost its full size in a naive copy). `whiteouts`: the tree is an
 * overlay's upper layer, whose deletion marks (character devices 0:0) are not files.
 */
async function measure(
  root: string,
  caps: Caps,
  opts: { whiteouts?: boolean; skip?: ReadonlySet<string> } = {},
): Promise<LayerSize> {
  const size: LayerSize = { allocated: 0, entries: 0, largest: null };
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const st = await lstat(path);
      if (opts.whiteouts && st.isCharacterDevice() && st.rdev === 0) continue;
      size.entries++;
      if (size.entries > caps.maxCopyFiles) checkCaps(root, size, caps);
      if (st.isDirectory()) {
        if (!opts.skip?.has(relative(root, path))) stack.push(path);
        size.allocated += 4096;
      } else if (st.isFile()) {
        if (!size.largest || st.size > size.largest.size) {
          size.largest = { path: relative(root, path), size: st.size, blocks: st.blocks };
          fileCap(root, size.largest, caps);
        }
        size.allocated += Math.min(st.blocks * 512, Math.ceil(st.size / 4096) * 4096 + 4096);
      } else if (st.isCharacterDevice() || st.isBlockDevice()) {
        throw new WorkCopyRefusedError(`refusing to copy ${root}: ${relative(root, path)} is a device file`);
      }
      if (size.allocated > caps.maxCopyBytes) checkCaps(root, size, caps);
    }
  }
  return size;
}

const sum = (parts: LayerSize[]): LayerSize => {
  const out: LayerSize = { allocated: 0, entries: 0, largest: null };
  for (const p of parts) {
    out.allocated += p.allocated;
    out.entries += p.entries;
    if (p.largest && (!out.largest || p.largest.size > out.largest.size)) out.largest = p.largest;
  }
  return out;
};

/** How a copy of `src` is layered: on a frozen tree, or on an overlay copy's layers plus a snapshot of its changes. */
interface OverlayPlan {
  size: LayerSize;
  lowers: Layer[];
  /** The source copy's upper layer (what changed in it), copied into the new copy as its top lower layer. */
  snapshot: { from: string; size: LayerSize } | null;
}

async function overlayPlan(src: string, caps: Caps): Promise<OverlayPlan | null> {
  if (!overlayCopiesAvailable()) return null;
  const from = overlayCopy(src);
  if (from) {
    if (from.lowers.length + 1 > MAX_LOWER_LAYERS) return null;
    const changed = await measure(from.upper, caps, { whiteouts: true });
    const size = sum([changed, ...from.lowers.map((l) => l.size)]);
    checkCaps(src, size, caps);
    return { size, lowers: from.lowers, snapshot: { from: from.upper, size: changed } };
  }
  const layer = frozenLayer(src);
  if (!layer) return null;
  checkCaps(src, layer.size, caps);
  return { size: layer.size, lowers: [layer], snapshot: null };
}

/**
 * Freezes a tree: it is measured once now, and every later copy of it is an overlay on it that costs what
 * changes in the copy (see `overlay.ts`). Nothing may change the tree while copies of it live. Returns
 * false when its copies stay plain copies: no overlays here, a path the mount options cannot carry, or
 * a tree over the caps (each copy then refuses it, as before).
 */
export async function freezeTree(dir: string, opts: WorkCopyOptions = {}): Promise<boolean> {
  const root = resolve(dir);
  if (!overlayCopiesAvailable() || !mountablePath(root)) return false;
  try {
    const size = await measure(root, capsOf(opts));
    rememberFrozen({ dir: root, size, owner: null });
    return true;
  } catch (err) {
    if (err instanceof WorkCopyRefusedError) return false;
    throw err;
  }
}

const capsOf = (opts: WorkCopyOptions): Caps => ({
  maxCopyBytes: opts.maxCopyBytes ?? DEFAULT_COPY_LIMITS.maxCopyBytes,
  maxCopyFiles: opts.maxCopyFiles ?? DEFAULT_COPY_LIMITS.maxCopyFiles,
  maxFileBytes: opts.maxFileBytes ?? DEFAULT_COPY_LIMITS.maxFileBytes,
});

function cp(src: string | string[], dest: string, opts: { xattrs?: boolean } = {}): Promise<void> {
  const sources = typeof src === "string" ? [src] : src;
  return new Promise((resolveP, reject) => {
    // -P: links copied as links, never followed. --sparse=always: holes stay holes (and runs of zeros
    // become holes). --reflink=auto: where the filesystem shares extents (btrfs, XFS), data is not
    // copied at all. Mode is not preserved, so set-user-ID and set-group-ID bits are dropped: a file a
    // sandboxed process marked setuid is never a setuid file of the copier (root).
    execFile(
      "cp",
      [
        "-R",
        "-P",
        "--sparse=always",
        "--reflink=auto",
        opts.xattrs ? "--preserve=timestamps,xattr" : "--preserve=timestamps",
        "--",
        ...sources,
        dest,
      ],
      { timeout: 600_000, env: { PATH: "/usr/bin:/bin" }, maxBuffer: 1024 * 1024 },
      (err, _o, stderr) =>
        err
          ? reject(
              new Error(
                `copying ${sources.join(" ")} failed: ${(stderr || err.message).trim().slice(0, 2000)}`,
              ),
            )
          : resolveP(),
    );
  });
}

/**
 * Copies `src` to `dest` (which must not exist) as `cp` does, leaving out the folders `skip` names
 * (relative to `src`): each is an empty folder in the copy. Only folders on the way to a skipped one are
 * walked here; everything else is copied by `cp`, several entries at a time.
 */
async function copyExcept(src: string, dest: string, skip: readonly string[]): Promise<void> {
  if (skip.length === 0) return cp(src, dest);
  const st = await lstat(src);
  await mkdir(dest, { mode: st.mode & 0o777 & ~process.umask() });
  const whole: string[] = [];
  for (const name of await readdir(src)) {
    const path = join(src, name);
    if (skip.includes(name)) {
      await mkdir(join(dest, name), { mode: 0o755 });
      continue;
    }
    const below = skip.filter((s) => s.startsWith(`${name}/`)).map((s) => s.slice(name.length + 1));
    const entry = below.length > 0 ? await lstat(path) : null;
    if (entry?.isDirectory()) await copyExcept(path, join(dest, name), below);
    else whole.push(path);
  }
  // Batches keep each argument list well under the system's limit.
  for (let i = 0; i < whole.length; i += 500) await cp(whole.slice(i, i + 500), dest);
}

const UPPER = ".auto-fix-upper";
const WORK = ".auto-fix-work";
const SNAPSHOT = ".auto-fix-lower";

/**
 * Mounts the copy at `dir` as an overlay: its upper and work folders, and the snapshot of a source copy's
 * changes, live beside it on the copy's own tmpfs (`base`), out of the sandbox's sight (only `dir` is
 * bound). The copy's root keeps the source root's mode and owner.
 */
async function mountCopy(src: string, base: string, dir: string, plan: OverlayPlan): Promise<void> {
  const upper = join(base, UPPER);
  const work = join(base, WORK);
  const lowers = [...plan.lowers];
  if (plan.snapshot) {
    // Whiteouts (deletions) and opaque folders are the overlay's own marks: kept as they are.
    await cp(plan.snapshot.from, join(base, SNAPSHOT), { xattrs: true });
    lowers.unshift({ dir: join(base, SNAPSHOT), size: plan.snapshot.size, owner: null });
  }
  if (!lowers.every((l) => mountablePath(l.dir)) || !mountablePath(base)) {
    throw new Error("a layer's path cannot be passed to the overlay mount");
  }
  const rootSt = await lstat(src);
  await mkdir(upper, { mode: 0o700 });
  await chmod(upper, rootSt.mode & 0o1777);
  await chown(upper, rootSt.uid, rootSt.gid);
  await mkdir(work, { mode: 0o700 });
  await mkdir(dir, { mode: 0o700 });
  await mountOverlay(
    dir,
    lowers.map((l) => l.dir),
    upper,
    work,
  );
  rememberCopy({ merged: dir, base, upper, lowers });
}

/**
 * A private, writable copy of a work tree, so commands can run against a user's checkout (or a tree
 * in which sandboxed code already ran) without changing it. The tree is measured first and refused
 * when over the caps; links are copied as links; sparse files stay sparse; setuid bits are dropped.
 * When this process can mount (root), the copy lives on its own tmpfs sized to the tree plus what a
 * run may add (`diskMb`, `maxFiles`): a run cannot fill the host's disk through it.
 *
 * A copy of a frozen tree (`freezeTree`), or of such a copy, is an overlay: nothing is copied when it is
 * made (a copy of a copy takes a snapshot of that copy's changes only), and a file costs its size in the
 * copy's tmpfs only once something in the copy writes it. Its tmpfs has the same size cap as a plain
 * copy's, so a run may rewrite the whole tree and add `diskMb`, and no more. The source must not change
 * while the copy lives (a frozen tree never does; a copy that is copied must not be run in meanwhile).
 */
export async function makeWorkCopy(
  source: string,
  parent: string = tmpdir(),
  opts: WorkCopyOptions = {},
): Promise<WorkCopy> {
  const src = resolve(source);
  const st = await stat(src).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`not a directory: ${source}`);
  const caps = capsOf(opts);
  const useTmpfs = opts.tmpfs === "auto" || opts.tmpfs === undefined ? tmpfsCopiesAvailable() : opts.tmpfs;
  const plan = useTmpfs ? await overlayPlan(src, caps) : null;
  // Dependency trees the source shares (it is a copy made with them left out), or, when asked, the
  // source's own: left out of this copy too, bound read-only into its sandboxed runs.
  const inherited = sharedTreesOf(src);
  const own = inherited.length === 0 && opts.shareDependencies ? await findDependencyTrees(src) : [];
  const skip = new Set(own);
  // A plain copy told not to share gets the source's shared trees copied in (each measured as well).
  const copyIn = !plan && opts.shareDependencies === false ? sharedBindsOf(src) : [];
  // An overlay copy's tmpfs holds the snapshot of a source copy's changes as well as whatever is copied
  // up: room for both, so a run may still rewrite the whole tree and add `diskMb`.
  const size = plan
    ? sum([plan.size, plan.snapshot?.size ?? sum([])])
    : sum([
        await measure(src, caps, { skip }),
        ...(await Promise.all(copyIn.map((t) => measure(t.source, caps)))),
      ]);
  if (!plan) checkCaps(src, size, caps);
  const realSrc = own.length > 0 ? await realpath(src) : src;
  const shared: SharedTree[] =
    copyIn.length > 0
      ? []
      : inherited.length > 0
        ? inherited
        : own.map((rel) => ({ rel, source: join(realSrc, rel) }));
  const base = await mkdtemp(join(await tempParentOutside(src, parent), `auto-fix-work-${process.pid}-`));
  trackTempDir(base);
  // Traversable (not listable), so the sandbox's unprivileged uid can reach the copy.
  await chmod(base, 0o711);
  let mounted = false;
  let overlay: string | null = null;
  let made: string | null = null;
  const dispose = async (): Promise<void> => {
    // A tree frozen after it was made stops being one: its copies are disposed first (see TreeStates).
    if (made) {
      forgetFrozen(made);
      forgetShared(made);
    }
    if (overlay) {
      forgetCopy(overlay);
      await unmountTmpfs(overlay);
    }
    if (mounted) await unmountTmpfs(base);
    await rm(base, { recursive: true, force: true });
    forgetTempDir(base);
  };
  try {
    if (useTmpfs) {
      // What a run may add: the caller's figure or the operator's AUTO_FIX_MAX_DISK_MB, never above the latter.
      const ceiling = sandboxCeilings(undefined).diskMb;
      const diskBytes = Math.min(opts.diskMb ?? ceiling, ceiling) * 1024 * 1024;
      const bytes = Math.ceil(size.allocated * 1.05) + 1024 * 1024 + diskBytes;
      const inodes = size.entries + 16 + (opts.maxFiles ?? DEFAULT_LIMITS.maxFiles);
      await mountSizedTmpfs(base, bytes, inodes);
      mounted = true;
    }
    const name = basename(src) || "repo";
    const dir = join(base, [UPPER, WORK, SNAPSHOT].includes(name) ? "repo" : name);
    if (plan) {
      try {
        await mountCopy(src, base, dir, plan);
        overlay = dir;
        made = dir;
        shareTrees(dir, shared);
        return { dir, dispose };
      } catch {
        // An overlay the kernel refuses (a layer on a filesystem it cannot stack): a plain copy instead,
        // the same tree at the old cost (the tmpfs is already sized for it, the caps already checked).
        for (const d of [dir, join(base, UPPER), join(base, WORK), join(base, SNAPSHOT)]) {
          await rm(d, { recursive: true, force: true });
        }
      }
    }
    await copyExcept(src, dir, own);
    for (const t of copyIn) {
      const at = join(dir, t.rel);
      await rm(at, { recursive: true, force: true });
      await cp(t.source, at);
    }
    made = dir;
    shareTrees(dir, shared);
    return { dir, dispose };
  } catch (err) {
    await dispose().catch(() => {});
    throw err;
  }
}
