/**
 * The temporary folders this process made and has not removed yet (work copies, test trees, git's empty
 * home). Whatever way the process ends — a finished run, a failed one, a second Ctrl-C that exits at
 * once — the ones still here are removed when it exits: mounts inside them are detached first, so that
 * removing a folder never walks into a mounted copy.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { sep } from "node:path";
import { readMounts } from "./mounts.ts";

const live = new Set<string>();
let hooked = false;

/** `dir` is removed when the process exits, unless `forgetTempDir` says it was removed before. */
export function trackTempDir(dir: string): void {
  live.add(dir);
  if (hooked) return;
  hooked = true;
  process.once("exit", removeTrackedTempDirs);
}

/** The folder was removed (or handed over): nothing to do for it at exit. */
export function forgetTempDir(dir: string): void {
  live.delete(dir);
}

/** Mount points at or below `dir`, deepest first (`/proc/self/mounts`; none without /proc). */
function mountsUnder(dir: string): string[] {
  return readMounts()
    .map((m) => m.target)
    .filter((target) => target === dir || target.startsWith(dir + sep))
    .sort((a, b) => b.length - a.length);
}

/**
 * Removes `dir` now, synchronously, detaching whatever is still mounted in it (a probe's mount whose
 * `umount` was stopped by Ctrl-C): true when it is gone. A folder that stays is removed at exit.
 */
export function removeTempDirNow(dir: string): boolean {
  for (const target of mountsUnder(dir)) {
    try {
      execFileSync("umount", ["-l", target], { stdio: "ignore", timeout: 5000 });
    } catch {
      // still mounted: the folder is not removed below
    }
  }
  try {
    if (mountsUnder(dir).length === 0) {
      rmSync(dir, { recursive: true, force: true });
      live.delete(dir);
      return true;
    }
  } catch {
    // a file that cannot be removed stays
  }
  trackTempDir(dir);
  return false;
}

/** Removes every tracked folder now, synchronously (the process is about to exit). */
export function removeTrackedTempDirs(): void {
  for (const dir of [...live]) removeTempDirNow(dir);
  live.clear();
}
