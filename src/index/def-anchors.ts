import type { Query, QueryMatch, Tree } from "web-tree-sitter";

/**
 * Runs a language's definition query without visiting the whole tree, where the grammar allows it.
 *
 * In Python every node a pattern of the query file starts at holds a keyword token of its own, as a
 * direct child: `def` in a function_definition (after `async` or not), `class` in a
 * class_definition. So a scan of the source text for those words finds every candidate. Tree-sitter is
 * asked only for the smallest named node around each candidate, and the query runs at that node alone
 * (`maxStartDepth: 0`). A word inside a string, a comment or a longer name resolves to that string,
 * comment or name, where no pattern starts. The grammar's thousands of expression,
 * argument and string nodes are never visited, and nothing crosses from JavaScript into WASM per node.
 *
 * Everything else is matched by the plain query over the whole tree:
 * - a tree with a syntax error, because error recovery may leave a definition where the grammar's rules
 *   do not hold;
 * - languages where some definition has no keyword of its own. That is JavaScript, TypeScript, Java and
 *   Go: methods, arrow functions bound to a name, Go type specs.
 * - a query file whose patterns start at a node type the table below does not anchor. This is checked
 *   when the plan is made, so an edited query can never silently lose matches.
 */
export interface MatchPlan {
  query: Query;
  /** Keyword → the node type that holds it, when every pattern of the query is anchored. */
  anchors: ReadonlyMap<string, string> | null;
}

/** The node type each pattern of `query` starts with, read from the query's own text. */
export function patternRoots(query: Query, source: string): Set<string> {
  const roots = new Set<string>();
  for (let i = 0; i < query.patternCount(); i++) {
    const m = /^\(\s*([A-Za-z_][\w]*)/.exec(source.slice(query.startIndexForPattern(i)));
    if (!m?.[1]) throw new Error(`query pattern ${i} does not start with a node type`);
    roots.add(m[1]);
  }
  return roots;
}

export function makeMatchPlan(
  table: Readonly<Record<string, string>> | null,
  query: Query,
  source: string,
): MatchPlan {
  if (!table) return { query, anchors: null };
  const anchored = new Set(Object.values(table));
  for (const root of patternRoots(query, source)) {
    if (!anchored.has(root)) return { query, anchors: null };
  }
  return { query, anchors: new Map(Object.entries(table)) };
}

/** The query's matches over `tree` (parsed from `text`), in document order of their starts. */
export function definitionMatches(plan: MatchPlan, tree: Tree, text: string): QueryMatch[] {
  const root = tree.rootNode;
  if (!plan.anchors || root.hasError) return plan.query.matches(root);
  const out: QueryMatch[] = [];
  for (const at of keywordStarts(text, plan.anchors)) {
    // The smallest named node around a keyword token is the node that holds it: keywords are anonymous
    // tokens. Around the same word in a string, a comment or a longer name it is that string, comment
    // or name, at which no pattern starts. The query runs at that node alone (`maxStartDepth: 0`), and
    // every pattern starts at an anchored node type, so its type is not read (one call into WASM less).
    const holder = root.namedDescendantForIndex(at);
    if (!holder) continue;
    for (const match of plan.query.matches(holder, { maxStartDepth: 0 })) out.push(match);
  }
  return out;
}

/** Is the UTF-16 code an ASCII word character (what `\b` in a regular expression sees)? */
export function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * Where the anchor words stand in `text` as whole words, in increasing order. Keywords are ASCII words:
 * a real keyword token has no ASCII word character on either side. A plain scan: a regular expression
 * would build a match object for each of the tens of thousands of hits in a large tree.
 */
export function keywordStarts(text: string, anchors: ReadonlyMap<string, string>): number[] {
  const hits: number[] = [];
  for (const word of anchors.keys()) {
    const n = word.length;
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + n)) {
      if (i > 0 && isWordChar(text.charCodeAt(i - 1))) continue;
      if (i + n < text.length && isWordChar(text.charCodeAt(i + n))) continue;
      hits.push(i);
    }
  }
  return anchors.size > 1 ? hits.sort((a, b) => a - b) : hits;
}
