import type { CodeIndex } from "../index/code-index.ts";

/** Most path-like words of a text tried against the index (a traceback names a few dozen at most). */
const MAX_PATH_WORDS = 500;

/** The indexed files a text names (a traceback's absolute paths end with a repository path). */
export function filesNamedIn(index: CodeIndex, text: string): string[] {
  const out = new Set<string>();
  // Split on what no path holds (no backtracking); keep the words with a file extension.
  const words = text
    .split(/[^\w.\-/\\]+/)
    .filter((w) => w.length <= 1000 && /\.[A-Za-z]\w{0,9}$/.test(w))
    .slice(0, MAX_PATH_WORDS);
  for (const w of words) {
    const path = w.replaceAll("\\", "/");
    // The path itself, then each tail after a `/`: `/usr/lib/x/pkg/mod.py` → … → `pkg/mod.py`.
    let at = 0;
    while (at >= 0) {
      const suffix = path.slice(at);
      if (suffix && index.file(suffix)) {
        out.add(suffix);
        break;
      }
      const slash = path.indexOf("/", at);
      at = slash < 0 ? -1 : slash + 1;
    }
  }
  return [...out];
}
