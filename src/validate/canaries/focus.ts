/**
 * What a patch changed, as the check tests use it: the changed files and the names of the top-level
 * functions and classes whose text the patch changed (or, without the unpatched tree, every one those
 * files define). The check tests then call a changed function when a test beside it does, so a stub that acts
 * only in tests that call the patched code acts on the canaries too.
 */
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { Focus } from "./types.ts";

export type { Focus };

const MAX_FILE_BYTES = 1024 * 1024;
const DEFINITION =
  /^(?:(?:async\s+)?def|class|(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?|(?:export\s+)?(?:const|let|var)|exports\.|module\.exports\.|func(?:\s+\([^)]*\))?)\s*([A-Za-z_$][\w$]*)/;

/** Each top-level definition's name and text. */
function definitions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | null = null;
  let body: string[] = [];
  const flush = (): void => {
    if (name) out.set(name, `${out.get(name) ?? ""}${body.join("\n")}`);
  };
  for (const line of text.split(/\r?\n/)) {
    const m = DEFINITION.exec(line);
    if (m) {
      flush();
      name = m[1]!;
      body = [];
    }
    body.push(line);
  }
  flush();
  return out;
}

function read(tree: TreeFs, rel: string): string | null {
  try {
    return tree.readIfExists(rel, { maxBytes: MAX_FILE_BYTES })?.toString("utf8") ?? null;
  } catch (err) {
    if (err instanceof TreeFsError) return null;
    throw err;
  }
}

/** The focus of a patch that changed `changed` in `tree` (`pristine`: the unpatched tree, when known). */
export function focusOf(tree: TreeFs, changed: readonly string[], pristine?: TreeFs): Focus {
  const names = new Set<string>();
  for (const rel of changed.slice(0, 20)) {
    const after = read(tree, rel);
    if (after === null) continue;
    const before = pristine ? read(pristine, rel) : null;
    const was = before === null ? new Map<string, string>() : definitions(before);
    for (const [n, text] of definitions(after)) if (was.get(n) !== text) names.add(n);
  }
  return { files: changed, names };
}
