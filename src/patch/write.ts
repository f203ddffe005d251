/** Writes a computed patch to a working copy: the only step of the engine with effects. */
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { encodeFile } from "./text.ts";
import type { PatchResult } from "./types.ts";

/**
 * Writes every changed file of an APPLICABLE_PATCH result under `root`. Before writing anything it checks
 * that each file still holds the text the patch was computed from and that no path leaves `root`.
 */
export async function writePatch(root: string, result: PatchResult): Promise<void> {
  if (result.status !== "APPLICABLE_PATCH") {
    throw new Error(`refusing to write a patch whose status is ${result.status}`);
  }
  const absRoot = await realpath(resolve(root));
  const plans: { abs: string; bytes: Buffer }[] = [];
  for (const f of result.changedFiles) {
    const abs = resolve(absRoot, f.path);
    const rel = relative(absRoot, abs);
    if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new Error(`refusing to write outside the working copy: ${f.path}`);
    }
    let probe = dirname(abs);
    for (;;) {
      try {
        const real = await realpath(probe);
        const r = relative(absRoot, real);
        if (r === ".." || r.startsWith(`..${sep}`) || isAbsolute(r)) {
          throw new Error(
            `refusing to write through a symbolic link that leaves the working copy: ${f.path}`,
          );
        }
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        probe = dirname(probe);
      }
    }
    const enc = f.encoding ?? "utf8";
    let current: Buffer | null = null;
    try {
      current = await readFile(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    if (f.created) {
      if (current !== null) throw new Error(`${f.path} exists now; the patch was computed for a new file`);
    } else if (current === null || !current.equals(encodeFile(f.before, enc))) {
      throw new Error(`${f.path} changed since the patch was computed; compute it again`);
    }
    plans.push({ abs, bytes: encodeFile(f.after, enc) });
  }
  for (const p of plans) {
    await mkdir(dirname(p.abs), { recursive: true });
    await writeFile(p.abs, p.bytes);
  }
}
