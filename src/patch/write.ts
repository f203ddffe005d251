/** Writes a computed patch to a working copy: the only step of the engine with effects. */
import { isVirtualEnvDir } from "../core/path-rules.ts";
import { checkEditablePath, testConfigChange } from "../runners/shared/conventions-test-config.ts";
import { openTree, splitTreePath, TreeFsError } from "../core/tree-fs.ts";
import { encodeFile } from "./text.ts";
import type { PatchResult } from "./types.ts";

const MAX_CURRENT_BYTES = 8 * 1024 * 1024;

/**
 * Writes every changed file of an APPLICABLE_PATCH result under `root`, through tree-fs: no symbolic
 * link is followed (a path through `docs -> .github` is refused, so the path checked below is the path
 * written), no special file is opened. Before writing anything it checks, for every file, that the path
 * is one a patch may touch, that the change leaves test configuration alone, and that the file still
 * holds the text the patch was computed from; then it writes each file atomically.
 */
export async function writePatch(
  root: string,
  result: PatchResult,
  opts: { protectedGlobs?: readonly string[] } = {},
): Promise<void> {
  if (result.status !== "APPLICABLE_PATCH") {
    throw new Error(`refusing to write a patch whose status is ${result.status}`);
  }
  const tree = openTree(root);
  const plans: { path: string; bytes: Buffer }[] = [];
  for (const f of result.changedFiles) {
    let path: string;
    try {
      path = splitTreePath(f.path).join("/");
    } catch (err) {
      throw new Error(`refusing to write outside the working copy: ${(err as Error).message}`);
    }
    if (path === "") throw new Error(`refusing to write outside the working copy: ${f.path}`);
    const real = tree.resolveLinks(path);
    for (const p of new Set([path, ...(real !== null ? [real] : [])])) {
      const verdict = checkEditablePath(p, opts.protectedGlobs ?? [], {
        isVirtualEnvDir: (dir) => isVirtualEnvDir(dir, tree.kind),
      });
      if (!verdict.ok) {
        throw new Error(
          `refusing to write ${f.path}${p !== path ? ` (its real path is ${p})` : ""}: ${verdict.message}`,
        );
      }
    }
    const change = testConfigChange(path, f.created ? null : f.before, f.after);
    if (change) throw new Error(`refusing to write ${f.path}: ${change}`);
    const enc = f.encoding ?? "utf8";
    let current: Buffer | null;
    try {
      current = tree.readIfExists(path, { maxBytes: MAX_CURRENT_BYTES });
    } catch (err) {
      if (err instanceof TreeFsError) throw new Error(`refusing to write ${f.path}: ${err.message}`);
      throw err;
    }
    if (f.created) {
      if (current !== null) throw new Error(`${f.path} exists now; the patch was computed for a new file`);
    } else if (current === null || !current.equals(encodeFile(f.before, enc))) {
      throw new Error(`${f.path} changed since the patch was computed; compute it again`);
    }
    plans.push({ path, bytes: encodeFile(f.after, enc) });
  }
  for (const p of plans) {
    try {
      tree.write(p.path, p.bytes, { onLink: "refuse" });
    } catch (err) {
      if (err instanceof TreeFsError) throw new Error(`refusing to write ${p.path}: ${err.message}`);
      throw err;
    }
  }
}
