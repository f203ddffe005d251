import { lchown, lstat, readdir } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Gives a tree to `uid` (files and folders not already its own), without following symlinks. */
export async function chownTree(root: string, uid: number): Promise<void> {
  const walk = async (path: string): Promise<void> => {
    const st = await lstat(path);
    if (st.uid !== uid || st.gid !== uid) await lchown(path, uid, uid);
    if (st.isDirectory()) {
      const entries = await readdir(path);
      await Promise.all(entries.map((e) => walk(join(path, e))));
    }
  };
  await walk(root);
}

/**
 * Folders a sandbox never takes as its work tree (and so never gives to its uid): the filesystem root, the
 * temporary folder every process shares, home folders, and any folder above one of them. A work tree is
 * always a private copy made for the run.
 */
export function sharedFolderRefusal(workdir: string): string | null {
  const dir = resolve(workdir);
  const shared = [tmpdir(), "/tmp", "/var/tmp", homedir(), "/root", "/home"].map((p) => resolve(p));
  const hit = shared.find((s) => s === dir || s.startsWith(`${dir === "/" ? "" : dir}/`));
  return hit === undefined && dir !== "/"
    ? null
    : `${dir} is a shared folder (or holds one): a sandbox's work tree must be a private copy, never ${hit ?? "/"}`;
}
