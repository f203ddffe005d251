import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants as fsConstants, mkdirSync, mkdtempSync, openSync } from "node:fs";
import { removeTempDirNow } from "../core/temp-dirs.ts";
import { lchown, lstat, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { tmpfsCopiesAvailable } from "./disk.ts";

/**
 * Work copies as overlays: a copy of a frozen tree (the prepared, set-up tree every candidate starts
 * from) is an overlay mount whose lower layer is that tree and whose upper layer lives on the copy's own
 * sized tmpfs. Making it copies nothing; a file is copied into the upper layer only when something in
 * the copy writes it (the kernel's copy-up keeps holes: a sparse file stays sparse), so a copy costs
 * what changed in it. The frozen tree itself is never written through a copy: whatever a sandboxed
 * process does to a file it sees (write, truncate, chmod, a hard link), it does to its private copy-up.
 *
 * This module keeps the process's registry of frozen trees and of the overlay copies it mounted: a copy
 * of an overlay copy shares its lower layers and takes a snapshot of its upper layer only (what changed),
 * and the sandbox gives only the changed files to its unprivileged uid.
 */

/** Measured once: what a frozen tree or layer holds. */
export interface LayerSize {
  /** Bytes of data on disk (holes excluded), hard links counted once per name. */
  allocated: number;
  entries: number;
  /** The largest file's apparent size and where it is, for the per-file cap. */
  largest: { path: string; size: number; blocks: number } | null;
}

export interface Layer {
  dir: string;
  size: LayerSize;
  /** The uid every entry of the layer belongs to (set by the sandbox that adopted it), or null. */
  owner: number | null;
}

export interface OverlayCopy {
  /** The copy's tree (the overlay mount point). */
  merged: string;
  /** The copy's own tmpfs (holds the upper and work folders and any snapshot layer). */
  base: string;
  upper: string;
  /** The lower layers, top first: snapshots of earlier copies' changes, then a frozen tree. */
  lowers: Layer[];
}

/** Overlayfs' statfs magic: what `statfs` of an overlay mount reports. */
export const OVERLAY_MAGIC = 0x794c7630;
/** Most lower layers a copy stacks (a copy of a copy of ... adds one each): past it, a plain copy. */
export const MAX_LOWER_LAYERS = 16;

/**
 * No set-user-ID, no devices. `redirect_dir=on`: a folder of the frozen tree can be renamed in a copy (the
 * rename is recorded in the copy's upper layer; without it, rename(2) fails with EXDEV). `metacopy=off`:
 * a copy-up copies the data too, so an upper layer (and a snapshot of it) holds whole files. The marks
 * these write are the kernel's own: a sandboxed process cannot set overlay attributes.
 */
const OVERLAY_OPTIONS = ["nosuid", "nodev", "redirect_dir=on", "metacopy=off"];

const frozen = new Map<string, Layer>();
const copies = new Map<string, OverlayCopy>();
let available: boolean | undefined;

/** A path the mount options can carry as it is (no separator, escape or blank in it). */
export const mountablePath = (p: string): boolean => !/[,:\\\s=]/.test(p) && p.startsWith("/");

/** Whether this process can mount overlay copies (it can mount sized tmpfs copies, and overlays work). */
export function overlayCopiesAvailable(): boolean {
  if (available !== undefined) return available;
  available = false;
  if (!tmpfsCopiesAvailable()) return available;
  const dir = mkdtempSync(join(tmpdir(), "auto-fix-probe-"));
  let tmpfs = false;
  try {
    const opts = { stdio: "ignore" as const, timeout: 10_000 };
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,nr_inodes=64", "tmpfs", dir], opts);
    tmpfs = true;
    for (const d of ["lower", "upper", "work", "merged"]) mkdirSync(join(dir, d));
    const o = [`lowerdir=${dir}/lower,upperdir=${dir}/upper,workdir=${dir}/work`, ...OVERLAY_OPTIONS].join(
      ",",
    );
    if (mountablePath(dir)) {
      execFileSync("mount", ["-t", "overlay", "-o", o, "overlay", join(dir, "merged")], opts);
      execFileSync("umount", [join(dir, "merged")], opts);
      available = true;
    }
  } catch {
    available = false;
  } finally {
    if (tmpfs) {
      try {
        execFileSync("umount", [dir], { stdio: "ignore", timeout: 10_000 });
      } catch {
        // left for the sweep
      }
    }
    removeTempDirNow(dir);
  }
  return available;
}

/**
 * Mounts the overlay of `lowers` (top first) with `upper`/`work` on `merged`: no set-user-ID, no devices.
 * The layers are handed to `mount` as open descriptors (`/proc/self/fd/N`), so the mount's options, which
 * any process that sees the mount can read in /proc/self/mountinfo, name no host path; its source is
 * plain "overlay", as on any container host.
 */
export async function mountOverlay(
  merged: string,
  lowers: string[],
  upper: string,
  work: string,
): Promise<void> {
  const fds: number[] = [];
  try {
    for (const dir of [...lowers, upper, work]) {
      fds.push(openSync(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW));
    }
    const at = (i: number) => `/proc/self/fd/${i + 3}`;
    const opts = [
      `lowerdir=${lowers.map((_, i) => at(i)).join(":")}`,
      `upperdir=${at(lowers.length)}`,
      `workdir=${at(lowers.length + 1)}`,
      ...OVERLAY_OPTIONS,
    ].join(",");
    await mountWith(["-t", "overlay", "-o", opts, "overlay", merged], fds);
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** Runs `mount` with `fds` as its descriptors 3, 4, ... */
function mountWith(args: string[], fds: number[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("mount", args, {
      stdio: ["ignore", "ignore", "pipe", ...fds],
      timeout: 30_000,
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
    });
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => {
      if (stderr.length < 4000) stderr += c.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`mount ${args.join(" ")}: ${stderr.trim() || `exit ${code ?? signal}`}`)),
    );
  });
}

/** Records a frozen tree: copies of it are overlays on it, measured from this figure, not walked again. */
export function rememberFrozen(layer: Layer): void {
  frozen.set(layer.dir, layer);
}

export function frozenLayer(dir: string): Layer | undefined {
  return frozen.get(dir);
}

/** The tree was given to `uid` (every entry): copies of it need no ownership change for that uid. */
export function markOwned(dir: string, uid: number): void {
  const layer = frozen.get(dir);
  if (layer) layer.owner = uid;
}

export function forgetFrozen(dir: string): void {
  frozen.delete(dir);
}

export function rememberCopy(copy: OverlayCopy): void {
  copies.set(copy.merged, copy);
}

export function overlayCopy(dir: string): OverlayCopy | undefined {
  return copies.get(dir);
}

export function forgetCopy(dir: string): void {
  copies.delete(dir);
}

/** Relative paths of a layer's entries (whiteouts and the layer's root excluded), links not followed. */
async function entriesOf(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = await readdir(rel ? join(root, rel) : root).catch(() => [] as string[]);
    for (const name of names) {
      const r = rel ? join(rel, name) : name;
      const st = await lstat(join(root, r)).catch(() => null);
      if (!st || (st.isCharacterDevice() && st.rdev === 0)) continue;
      out.push(r);
      if (st.isDirectory()) await walk(r);
    }
  };
  await walk("");
  return out;
}

/**
 * Gives an overlay copy's entries to `uid` without touching what is already its own: only the layers that
 * are not known to be that uid's (the upper layer, snapshots of other copies' changes, a frozen tree no
 * sandbox adopted) are walked, and each entry is changed through the copy, so the frozen tree is never
 * changed. Returns false when `dir` is not an overlay copy (the caller walks the whole tree).
 */
export async function ownOverlayCopy(dir: string, uid: number): Promise<boolean> {
  const copy = copies.get(dir);
  if (!copy) return false;
  const layers = [copy.upper, ...copy.lowers.filter((l) => l.owner !== uid).map((l) => l.dir)];
  const seen = new Set<string>([""]);
  // An entry is changed through the merged tree only when every folder above it there is a real folder:
  // a folder of a layer that the merged tree shows as a link (replaced in an upper layer) would otherwise
  // lead the change out of the copy, to whatever the link names on the host.
  const realDir = new Map<string, boolean>([["", true]]);
  const insideReal = async (rel: string): Promise<boolean> => {
    const parent = dirname(rel) === "." ? "" : dirname(rel);
    const known = realDir.get(parent);
    if (known !== undefined) return known;
    let ok = await insideReal(parent);
    if (ok) {
      const st = await lstat(join(copy.merged, parent)).catch(() => null);
      ok = st?.isDirectory() === true;
    }
    realDir.set(parent, ok);
    return ok;
  };
  const fix = async (rel: string): Promise<void> => {
    if (rel && !(await insideReal(rel))) return;
    const path = rel ? join(copy.merged, rel) : copy.merged;
    const st = await lstat(path).catch(() => null);
    if (st && (st.uid !== uid || st.gid !== uid)) await lchown(path, uid, uid);
  };
  await fix("");
  for (const layer of layers) {
    for (const rel of await entriesOf(layer)) {
      if (seen.has(rel)) continue;
      seen.add(rel);
      await fix(rel);
    }
  }
  return true;
}
