import type { Tree } from "web-tree-sitter";
import type { ParseOnce } from "../../treesitter/grammar.ts";
import { type CommentGroup, commentRunRanges } from "./comment-runs.ts";

/**
 * Characters a plain parse's scanner may read over comment runs (`plainScanCost`) when the tree with
 * hidden runs cannot be trusted and the text is parsed again whole: about 0.1 s of CPU here, or four
 * times the text's length for a large text. Beyond it the tree with hidden runs is kept.
 */
const PLAIN_SCAN_BUDGET = 4_000_000;
const PLAIN_SCAN_PER_CHAR = 4;

/** A comment inside a string node is an extra the parser put in a broken string: nothing to trust. */
const STRING_PARTS = /string|interpolation/;

/**
 * Python with the middles of long comment runs hidden (comment-runs.ts), so that a run costs
 * what it weighs, not its square. The tree is kept when it confirms every hidden stretch: no syntax
 * error anywhere (error recovery may have read a string as comments), and each group starts a comment
 * node that reaches the group's end, between statements or in brackets, not inside a string.
 *
 * When it does not, the text is parsed again whole, unless the runs would make that parse cost far
 * more than the text's length (`plainScanCost`): a file crafted to miss the confirmation (one syntax
 * error) must not bring the minutes back. Then the tree with hidden runs is what the text gets: for a
 * file with a syntax error, "as far as it parses" either way. Which tree a text gets depends on the
 * text alone, not on how fast the machine is (the time limit aside: a whole parse it stops leaves the
 * grouped tree, and a grouped parse it stops leaves none).
 */
export function parsePython(parse: ParseOnce, source: string): Tree | null {
  const runs = commentRunRanges(source);
  if (!runs) return parse();
  const grouped = parse({ includedRanges: runs.ranges });
  if (!grouped || confirmsGroups(grouped, runs.groups)) return grouped;
  if (runs.plainScanCost > Math.max(PLAIN_SCAN_BUDGET, PLAIN_SCAN_PER_CHAR * source.length)) return grouped;
  const whole = parse();
  if (!whole) return grouped;
  grouped.delete();
  return whole;
}

function confirmsGroups(tree: Tree, groups: readonly CommentGroup[]): boolean {
  const root = tree.rootNode;
  if (root.hasError) return false;
  for (const g of groups) {
    const node = root.descendantForIndex(g.start);
    if (
      node?.type !== "comment" ||
      node.startIndex !== g.start ||
      node.endIndex < g.last ||
      STRING_PARTS.test(node.parent?.type ?? "")
    ) {
      return false;
    }
  }
  return true;
}
