import {
  capInstructions,
  INSTRUCTIONS_FILES,
  type Instructions,
  MAX_INSTRUCTIONS_BYTES,
} from "../core/maintainer-input.ts";
import { openTree, TreeFsError } from "../core/tree-fs.ts";

/** A file this many times over the cap is not read at all (only its size is reported). */
const MAX_READ_BYTES = MAX_INSTRUCTIONS_BYTES * 64;

/**
 * The repository's instructions for auto-fix from a checkout: `.github/auto-fix.md`, else `AGENTS.md`,
 * read without following a link out of the tree, capped at `MAX_INSTRUCTIONS_BYTES`. Null when neither
 * is a regular file; a note says why one was skipped.
 */
export function readInstructions(
  dir: string,
  ref = "",
): { instructions: Instructions | null; notes: string[] } {
  const notes: string[] = [];
  const tree = openTree(dir);
  for (const path of INSTRUCTIONS_FILES) {
    try {
      const buf = tree.readIfExists(path, { maxBytes: MAX_READ_BYTES });
      if (buf === null) continue;
      if (buf.includes(0)) {
        notes.push(`${path} is not text; it was not given to the model.`);
        continue;
      }
      return { instructions: capInstructions(path, ref, buf.toString("utf8")), notes };
    } catch (error) {
      const why = error instanceof TreeFsError ? error.message : String(error);
      notes.push(`${path} was not read: ${why}`);
    }
  }
  return { instructions: null, notes };
}
