import type { Node } from "web-tree-sitter";
import { type LanguageId, languageForPath, parseSource } from "../languages/index.ts";

/**
 * Whether two versions of a file hold the same code once comments and whitespace are set aside: their
 * tree-sitter syntax trees, comments left out, have the same shape and the same tokens. A patch that only
 * adds a comment, re-indents a JavaScript line or changes blank lines changes no code; one that changes a
 * string, a name, an operator or (in Python) the block a line belongs to does.
 */

/** Most nodes compared per file before the answer is "cannot tell". */
const MAX_NODES = 2_000_000;

const isComment = (n: Node): boolean => n.type === "comment" || n.type.endsWith("_comment");

/** The tree as a list of words: `(type` on entering a named node, `)` on leaving, and each leaf's text. */
function shape(root: Node): string[] | null {
  const out: string[] = [];
  const stack: (Node | null)[] = [root];
  while (stack.length > 0) {
    const n = stack.pop();
    if (n === null) {
      out.push(")");
      continue;
    }
    if (!n || isComment(n)) continue;
    if (out.length > MAX_NODES) return null;
    if (n.childCount === 0) {
      out.push(n.isNamed ? `${n.type}:${n.text}` : n.text);
      continue;
    }
    if (n.isNamed) {
      out.push(`(${n.type}`);
      stack.push(null);
    }
    for (let i = n.childCount - 1; i >= 0; i--) stack.push(n.child(i));
  }
  return out;
}

const squash = (s: string): string => s.replace(/\s+/g, "");

/**
 * True when `before` and `after` hold the same code, false when they differ, null when it cannot be told
 * (a parse failed or found syntax errors, the file is too large). A file no language folder reads
 * differs when its text differs beyond whitespace; when only whitespace differs it cannot be told
 * (without a grammar, a space taken out of a string cannot be told from one between words).
 */
export async function sameCode(path: string, before: string, after: string): Promise<boolean | null> {
  if (before === after) return true;
  const lang: LanguageId | null = languageForPath(path);
  if (!lang) return squash(before) === squash(after) ? null : false;
  try {
    const [a, b] = [await parseSource(lang, before), await parseSource(lang, after)];
    try {
      if (a.rootNode.hasError || b.rootNode.hasError) return null;
      const sa = shape(a.rootNode);
      const sb = shape(b.rootNode);
      if (!sa || !sb) return null;
      return sa.length === sb.length && sa.every((w, i) => w === sb[i]);
    } finally {
      a.delete();
      b.delete();
    }
  } catch {
    return null;
  }
}
