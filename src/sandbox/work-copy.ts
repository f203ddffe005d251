import { cp, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { tempParentOutside } from "../core/temp-outside.ts";

export interface WorkCopy {
  dir: string;
  dispose(): Promise<void>;
}

/**
 * A private, writable copy of a work tree (symlinks copied as links, never followed), so commands can
 * run against a user's checkout without changing it.
 */
export async function makeWorkCopy(source: string, parent: string = tmpdir()): Promise<WorkCopy> {
  const src = resolve(source);
  const st = await stat(src).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`not a directory: ${source}`);
  const base = await mkdtemp(join(await tempParentOutside(src, parent), "auto-fix-work-"));
  const dir = join(base, basename(src) || "repo");
  await cp(src, dir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  return { dir, dispose: () => rm(base, { recursive: true, force: true }) };
}
