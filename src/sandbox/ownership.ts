import { lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

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
