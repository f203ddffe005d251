import { SKIPPED_DIRS } from "../../core/path-rules.ts";
import { openTree, TreeFsError } from "../../core/tree-fs.ts";
import type { TreeListing } from "./types.ts";

/** Largest file read to find imports, package or module declarations. */
const MAX_READ_BYTES = 1024 * 1024;
/** Entries a listing walks at most: a tree past it is not targeted (its whole suite runs). */
export const MAX_LISTING_ENTRIES = 1_000_000;

/**
 * The regular files of the tree at `root`, found through tree-fs: no link is followed (a link named like
 * a test file is not a test file), dependency, VCS and cache folders are left out. Reads go through
 * tree-fs too, capped in size; a file that cannot be read reads as null.
 */
export function listTree(root: string): TreeListing {
  const tree = openTree(root);
  const { entries, truncated } = tree.walk({
    maxDepth: 64,
    maxEntries: MAX_LISTING_ENTRIES,
    descend: (_rel, name) => !SKIPPED_DIRS.has(name),
  });
  if (truncated) {
    throw new TreeFsError("too-large", "", `the work tree holds more than ${MAX_LISTING_ENTRIES} entries`);
  }
  const files = entries.filter((e) => e.kind === "file").map((e) => e.rel);
  const set = new Set(files);
  const cache = new Map<string, string | null>();
  return {
    files,
    has: (rel) => set.has(rel),
    read(rel) {
      if (!set.has(rel)) return null;
      let text = cache.get(rel);
      if (text !== undefined) return text;
      try {
        text = tree.read(rel, { maxBytes: MAX_READ_BYTES }).toString("utf8");
      } catch (err) {
        if (!(err instanceof TreeFsError)) throw err;
        text = null;
      }
      cache.set(rel, text);
      return text;
    },
  };
}

export const dirOf = (rel: string): string => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");
export const baseOf = (rel: string): string => rel.slice(rel.lastIndexOf("/") + 1);
export const stemOf = (rel: string): string => {
  const b = baseOf(rel);
  const dot = b.indexOf(".");
  return dot <= 0 ? b : b.slice(0, dot);
};
/** Every line of `text`, in one pass. */
export function* lines(text: string): Generator<string> {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    yield text.slice(start, end);
    start = end + 1;
  }
}
