import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Language, Node, Query, QueryMatch, Tree } from "web-tree-sitter";
import type { LanguageId } from "../treesitter/languages.ts";

/**
 * Runs a language's definition query without visiting the whole tree. Every pattern of a query file
 * starts at some node type (its root: `class_definition`, `class_body`, `program`, ...). From the
 * grammar's node-types.json we know which node types can hold such a root anywhere below them; a
 * cursor walk descends only into those (module and class bodies, blocks, compound statements, and in
 * JavaScript the expressions that can hold a function) and runs the query on each root it meets,
 * limited to patterns that start at that very node. Expressions, parameter lists, strings and the
 * like, most of a file, are never visited.
 *
 * A tree with a syntax error is matched by the plain query over the whole tree: error recovery may
 * leave a definition anywhere, where the grammar's rules do not hold. So is every tree of a grammar
 * where most node types can hold a definition (JavaScript, TypeScript, Java and Go, where expressions
 * hold functions and classes): there the walk would visit nearly every node, one call into WASM each,
 * and the query's own traversal inside WASM is cheaper.
 */

const NODE_TYPES: Record<LanguageId, string> = {
  python: "tree-sitter-python/src/node-types.json",
  javascript: "tree-sitter-javascript/src/node-types.json",
  typescript: "tree-sitter-typescript/typescript/src/node-types.json",
  tsx: "tree-sitter-typescript/tsx/src/node-types.json",
  java: "tree-sitter-java/src/node-types.json",
  go: "tree-sitter-go/src/node-types.json",
};

export interface NodeTypeInfo {
  type: string;
  named?: boolean;
  subtypes?: { type: string }[];
  fields?: Record<string, { types: { type: string }[] }>;
  children?: { types: { type: string }[] };
}

/** What the walk needs per language: flags by node type id. */
export interface WalkPlan {
  query: Query;
  /** Node type ids at which some pattern starts. */
  roots: Uint8Array;
  /** Node type ids whose subtree can hold a root. */
  descend: Uint8Array;
  /** Few node types can hold a root: walking beats matching the whole tree. */
  narrow: boolean;
}

/** The walk pays off when at most this share of the grammar's named node types can hold a root. */
const NARROW_SHARE = 1 / 3;

const require = createRequire(import.meta.url);

/** Node types that can hold a node of a `roots` type somewhere below them, by the grammar's rules. */
export function containersOf(nodeTypes: readonly NodeTypeInfo[], roots: ReadonlySet<string>): Set<string> {
  const subtypes = new Map<string, string[]>();
  for (const t of nodeTypes)
    if (t.subtypes)
      subtypes.set(
        t.type,
        t.subtypes.map((s) => s.type),
      );
  // A supertype (`_compound_statement`) stands for all its subtypes, themselves maybe supertypes.
  const expand = (name: string, out: Set<string>): void => {
    if (out.has(name)) return;
    out.add(name);
    for (const s of subtypes.get(name) ?? []) expand(s, out);
  };
  const childTypes = new Map<string, Set<string>>();
  for (const t of nodeTypes) {
    // A keyword and a named node may share a name (TypeScript's `module`): keep both entries' children.
    const kids = childTypes.get(t.type) ?? new Set<string>();
    const lists = [...Object.values(t.fields ?? {}), ...(t.children ? [t.children] : [])];
    for (const l of lists) for (const k of l.types) expand(k.type, kids);
    childTypes.set(t.type, kids);
  }
  const holders = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [type, kids] of childTypes) {
      if (holders.has(type)) continue;
      for (const k of kids) {
        if (roots.has(k) || holders.has(k)) {
          holders.add(type);
          grew = true;
          break;
        }
      }
    }
  }
  return holders;
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

export function makeWalkPlan(lang: LanguageId, language: Language, query: Query, source: string): WalkPlan {
  const roots = patternRoots(query, source);
  const nodeTypes = JSON.parse(readFileSync(require.resolve(NODE_TYPES[lang]), "utf8")) as NodeTypeInfo[];
  const holders = containersOf(nodeTypes, roots);
  const n = language.nodeTypeCount;
  const rootFlags = new Uint8Array(n + 1);
  const descendFlags = new Uint8Array(n + 1);
  for (let id = 0; id < n; id++) {
    const name = language.nodeTypeForId(id);
    if (name === null) continue;
    if (roots.has(name)) rootFlags[id] = 1;
    if (holders.has(name)) descendFlags[id] = 1;
  }
  const named = nodeTypes.filter((t) => t.named === true && !t.subtypes).length;
  return { query, roots: rootFlags, descend: descendFlags, narrow: holders.size <= named * NARROW_SHARE };
}

/** The query's matches over `tree`: by the walk where it pays off and the tree has no syntax error. */
export function definitionMatches(plan: WalkPlan, tree: Tree): QueryMatch[] {
  const root = tree.rootNode;
  if (!plan.narrow || root.hasError) return plan.query.matches(root);
  return walkedMatches(plan, tree);
}

/** The query's matches over an error-free `tree`, found by the walk, in document order of their starts. */
export function walkedMatches(plan: WalkPlan, tree: Tree): QueryMatch[] {
  const starts: Node[] = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      const id = cursor.nodeTypeId;
      if (plan.roots[id] === 1) starts.push(cursor.currentNode);
      if (plan.descend[id] === 1 && cursor.gotoFirstChild()) continue;
      let climbed = true;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          climbed = false;
          break;
        }
      }
      if (!climbed) break;
    }
  } finally {
    cursor.delete();
  }
  const out: QueryMatch[] = [];
  for (const node of starts) {
    for (const m of plan.query.matches(node, { maxStartDepth: 0 })) out.push(m);
  }
  return out;
}
