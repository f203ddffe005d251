import { readMounts } from "../core/mounts.ts";
import { removeTempDirNow } from "../core/temp-dirs.ts";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../core/processes.ts";

/**
 * Sized tmpfs mounts for work copies: a copy lives on its own tmpfs whose size and inode count are the
 * tree's own plus what one run may add, so a run that writes gigabytes or hundreds of thousands of
 * files hits ENOSPC inside its own mount (and is stopped and reported as the disk or files limit)
 * instead of filling the host's disk. Mounting needs root; elsewhere copies are plain folders and the
 * capability report says the limits are not enforced.
 */

/**
 * A copy's mount point (its tmpfs, or the overlay on it) by its path: the folder `makeWorkCopy` names
 * `auto-fix-work-<pid>-…`. Mount sources are plain "tmpfs" and "overlay": the code under test, which
 * can read /proc/self/mountinfo, sees nothing of auto-fix in them.
 */
const COPY_TARGET = /\/auto-fix-work-(\d+)-[^/]+(?:\/[^/]+)?$/;
let available: boolean | undefined;
let swept = false;

function sh(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: 30_000, env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
      (err, _o, stderr) =>
        err ? reject(new Error(`${cmd} ${args.join(" ")}: ${(stderr || err.message).trim()}`)) : resolve(),
    );
  });
}

/** Whether this process can make sized tmpfs copies (root, and the kernel lets it mount). Probed once. */
export function tmpfsCopiesAvailable(): boolean {
  if (available !== undefined) return available;
  if (process.getuid?.() !== 0) {
    available = false;
    return available;
  }
  const dir = mkdtempSync(join(tmpdir(), "auto-fix-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,nr_inodes=16", "tmpfs", dir], {
      stdio: "ignore",
      timeout: 10_000,
    });
    execFileSync("umount", [dir], { stdio: "ignore", timeout: 10_000 });
    available = true;
  } catch {
    available = false;
  } finally {
    removeTempDirNow(dir);
  }
  return available;
}

/** Mounts a tmpfs of `bytes` and `inodes` on `dir` (owner-only but traversable: 0711). */
export async function mountSizedTmpfs(dir: string, bytes: number, inodes: number): Promise<void> {
  await sweepStaleMounts();
  const size = Math.max(1, Math.ceil(bytes / 1024));
  await sh("mount", [
    "-t",
    "tmpfs",
    "-o",
    `size=${size}k,nr_inodes=${Math.max(16, Math.ceil(inodes))},mode=0711,nosuid,nodev`,
    "tmpfs",
    dir,
  ]);
  remember(dir);
}

/** Unmounts a copy's mount (its tmpfs, or its overlay), lazily when it is busy. */
export async function unmountTmpfs(dir: string): Promise<void> {
  await sh("umount", [dir]).catch(() => sh("umount", ["-l", dir]));
  mounted.delete(dir);
}

/** This process's copies still mounted: detached when it exits, whoever forgot to dispose them. */
const mounted = new Set<string>();
let exitHook = false;
function remember(dir: string): void {
  mounted.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const d of mounted) {
      try {
        execFileSync("umount", ["-l", d], { stdio: "ignore", timeout: 5000 });
        rmdirSync(d);
      } catch {
        // left for the next process's sweep
      }
    }
  });
}

/** Copies left mounted by auto-fix processes that died without cleaning up: unmounted and removed. */
export async function sweepStaleMounts(): Promise<void> {
  if (swept) return;
  swept = true;
  const stale = readMounts().filter(({ target, type }) => {
    const m = COPY_TARGET.exec(target);
    if ((type !== "tmpfs" && type !== "overlay") || !m) return false;
    const pid = Number(m[1]);
    return Number.isInteger(pid) && pid !== process.pid && !processAlive(pid);
  });
  // Overlay copies sit on their tmpfs: unmounted first.
  for (const { target: path } of stale.filter((m) => m.type === "overlay")) {
    await unmountTmpfs(path).catch(() => {});
  }
  for (const { target: path } of stale.filter((m) => m.type === "tmpfs")) {
    try {
      await unmountTmpfs(path);
      rmdirSync(path);
    } catch {
      // still busy or already gone: left for the next sweep
    }
  }
}
