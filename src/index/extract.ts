import { readFileSync } from "node:fs";
import { Query, type Node, type QueryMatch, type Tree } from "web-tree-sitter";
import {
  type LanguageId,
  languageOf,
  loadLanguage,
  parseSource,
  syntaxProblems,
} from "../languages/index.ts";
import { definitionMatches, isWordChar, type MatchPlan, makeMatchPlan } from "./def-anchors.ts";
import { pythonAssignmentDefs } from "./py-assign.ts";
import { type Def, type DefKind, LineTable, pythonSymbols, toSymbol } from "./symbol-build.ts";
import type { ExtractResult, SymbolInfo } from "./types.ts";

/** Text of a language's definitions query (its folder's `definitions.scm`). */
export function querySource(lang: LanguageId): string {
  return readFileSync(languageOf(lang).definitions, "utf8");
}

const plans = new Map<LanguageId, Promise<MatchPlan>>();

/** The query of a language, with the keyword anchors that let it skip most of a tree (see def-anchors.ts). */
export function planFor(lang: LanguageId): Promise<MatchPlan> {
  let p = plans.get(lang);
  if (!p) {
    const source = querySource(lang);
    p = loadLanguage(lang).then((language) =>
      makeMatchPlan(languageOf(lang).units.anchors, new Query(language, source), source),
    );
    plans.set(lang, p);
  }
  return p;
}

/** Containers whose children are base types. */
const BASE_CONTAINERS = new Set([
  "argument_list",
  "class_heritage",
  "extends_clause",
  "implements_clause",
  "extends_type_clause",
  "superclass",
  "super_interfaces",
  "extends_interfaces",
  "type_list",
  "type_elem",
  "base_class_clause",
]);

/** Python's definition node type of each capture name (python.scm has one pattern per type). */
const PYTHON_TYPE: Readonly<Record<string, string>> = {
  class: "class_definition",
  function: "function_definition",
};

/** Parses `text` and extracts its definitions. Never throws on bad syntax: broken regions are skipped. */
export async function extractSymbols(lang: LanguageId, text: string): Promise<ExtractResult> {
  const plan = await planFor(lang);
  const tree = await parseSource(lang, text);
  try {
    return symbolsOfTree(lang, plan, tree, text);
  } finally {
    tree.delete();
  }
}

/** The definitions of a parsed tree (the caller owns and deletes the tree). */
export function symbolsOfTree(lang: LanguageId, plan: MatchPlan, tree: Tree, text: string): ExtractResult {
  const units = languageOf(lang).units;
  const captures = units.reader === "captures";
  const broken = tree.rootNode.hasError;
  const lines = new LineTable(text);
  const found = collectDefs(definitionMatches(plan, tree, text), text, captures);
  if (units.assignments) for (const d of pythonAssignmentDefs(tree, text)) found.defs.set(d.node.id, d);
  const ordered = nestDefs(found, lines);
  const symbols = captures
    ? pythonSymbols(ordered, text, lines, broken)
    : ordered.map((d) => toSymbol(d, units, text, lines));
  if (units.prototypeClasses && text.includes(".prototype")) renamePrototypeAliases(symbols, text);
  return { symbols, syntaxErrors: broken ? syntaxProblems(tree, 1000).length : 0 };
}

/** A capture that belongs to the class around it: its base list, or a class-level statement. */
interface Pending {
  kind: "bases" | "attribute";
  node: Node;
}

interface Found {
  /** By node id: a definition matched by two patterns (or twice) is one. */
  defs: Map<number, Def>;
  pending: Pending[];
}

/** The definitions the matches name, and the captures that belong to their classes. */
function collectDefs(matches: readonly QueryMatch[], text: string, python: boolean): Found {
  // (`python`: the language's patterns are one per node type, its names ASCII-delimited where possible.)
  const defs = new Map<number, Def>();
  const pending: Pending[] = [];
  for (const match of matches) {
    let defNode: Node | null = null;
    let kind: DefKind | null = null;
    let name: string | null = null;
    let value: Node | null = null;
    let receiver: string | null = null;
    let owner: Node | null = null;
    let headerRow = -1;
    for (const cap of match.captures) {
      switch (cap.name) {
        case "class":
        case "function":
        case "method":
        case "scope":
          defNode = cap.node;
          kind = cap.name;
          break;
        case "name": {
          // The source text itself: tree-sitter's string indices are the text's (UTF-16) indices.
          const start = cap.node.startIndex;
          const end = python ? asciiIdentifierEnd(text, start) : -1;
          name = text.slice(start, end >= 0 ? end : cap.node.endIndex);
          // A qualified name (`Parser::parse`, `ns::Parser::parse`) names the method and its class.
          const cut = python ? -1 : name.lastIndexOf("::");
          if (cut >= 0) {
            receiver = name.slice(0, cut);
            name = name.slice(cut + 2).trim();
          }
          break;
        }
        case "value":
          value = cap.node;
          break;
        case "receiver":
          receiver = cap.node.text;
          break;
        case "owner":
          owner = cap.node;
          break;
        case "header-end":
          // A one-character token: its start row is its row.
          headerRow = cap.node.startPosition.row;
          break;
        case "bases":
        case "attribute":
          pending.push({ kind: cap.name, node: cap.node });
          break;
      }
    }
    if (kind === "scope" && receiver !== null && name !== null) {
      // `namespace a::b { … }`: one scope named a.b
      name = `${receiver.split("::").join(".")}.${name}`;
      receiver = null;
    }
    const known = defNode ? defs.get(defNode.id) : undefined;
    // One definition matched by a plain pattern and by one that gives its receiver (a fn in an impl
    // block): a method of the receiver, whichever match came first.
    if (known && receiver !== null && known.receiver === null) {
      known.receiver = receiver;
      if (known.kind === "function" && kind === "method") known.kind = "method";
    }
    if (defNode && kind && name && !known) {
      defs.set(defNode.id, {
        node: defNode,
        type: python ? (PYTHON_TYPE[kind] ?? defNode.type) : defNode.type,
        endIndex: defNode.endIndex,
        kind,
        name,
        value,
        receiver,
        owner,
        headerRow,
        bases: [],
        attrs: [],
        parent: null,
        qualName: name,
      });
    }
  }
  return { defs, pending };
}

/**
 * Where a Python identifier that starts at `start` ends, read from the text (no call into the parser):
 * known when its characters are ASCII and an ASCII character that no identifier holds follows it; -1
 * otherwise (a non-ASCII letter may continue it: the tree says where it ends).
 */
function asciiIdentifierEnd(text: string, start: number): number {
  let i = start;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return -1;
    if (!isWordChar(c)) break;
  }
  return i > start ? i : -1;
}

interface Item {
  s: number;
  e: number;
  def: Def | null;
  pend: Pending | null;
}

/**
 * Nesting by byte ranges (tree nodes nest properly): one sweep, no walks up the tree. Sets each
 * definition's parent and qualified name, gives classes their bases and attributes, and returns the
 * definitions in document order.
 */
function nestDefs({ defs, pending }: Found, lines: LineTable): Def[] {
  const items: Item[] = [];
  for (const d of defs.values()) items.push({ s: d.node.startIndex, e: d.endIndex, def: d, pend: null });
  for (const p of pending) {
    if (!defs.has(p.node.id)) items.push({ s: p.node.startIndex, e: p.node.endIndex, def: null, pend: p });
  }
  // Of a definition and a class-level statement with the same range (`P = namedtuple(…)` in a class
  // body), the statement goes first: it belongs to the class around both, not to the definition.
  items.sort((a, b) => a.s - b.s || b.e - a.e || (a.def ? 1 : 0) - (b.def ? 1 : 0));
  const stack: Item[] = [];
  const ordered: Def[] = [];
  for (const it of items) {
    while (stack.length > 0 && !(stack[stack.length - 1]!.s <= it.s && it.e <= stack[stack.length - 1]!.e)) {
      stack.pop();
    }
    const owner = stack[stack.length - 1]?.def ?? null;
    if (it.def) {
      it.def.parent = owner;
      it.def.qualName = owner ? `${owner.qualName}.${it.def.name}` : it.def.name;
      // A scope (a Rust module, a C++ namespace) names what is in it; it is no unit of its own.
      if (it.def.kind !== "scope") ordered.push(it.def);
      stack.push(it);
    } else if (owner?.kind === "class") {
      addToClass(owner, it.pend!, it.e, lines);
    }
  }
  return ordered;
}

function addToClass(owner: Def, p: Pending, endIndex: number, lines: LineTable): void {
  if (p.kind === "bases") {
    collectBases(p.node, owner.bases);
    return;
  }
  const first = p.node.startPosition.row + 1;
  const last = lines.rowAt(endIndex) + 1;
  if (!owner.attrs.some(([a, b]) => a === first && b === last)) owner.attrs.push([first, last]);
}

function collectBases(node: Node, out: string[]): void {
  if (BASE_CONTAINERS.has(node.type)) {
    for (const child of node.namedChildren) {
      if (child) collectBases(child, out);
    }
    return;
  }
  // Python keyword arguments (metaclass=...), comments and splats are not bases.
  // C++'s `public`/`virtual` before a base neither.
  if (
    /keyword_argument|comment|splat|dictionary_splat|type_arguments|access_specifier|virtual/.test(node.type)
  )
    return;
  const text = node.text.replace(/\s+/g, " ").trim();
  if (text && !out.includes(text)) out.push(text);
}

/** `var proto = Encoder.prototype` (or `proto = …` alone): `proto` names `Encoder`'s prototype. */
const PROTOTYPE_ALIAS =
  /(?:^|[;{}\s])(?:(?:var|let|const)\s+)?([A-Za-z_$][\w$]*)\s*=\s*([A-Za-z_$][\w$]*)\.prototype\s*(?=[;,\n])/g;

/**
 * Methods made on an alias of a prototype (`proto.encode = function` after `var proto =
 * Encoder.prototype`) belong to the constructor's class, `Encoder`, not to a class called `proto`.
 */
function renamePrototypeAliases(symbols: SymbolInfo[], text: string): void {
  const alias = new Map<string, string>();
  for (const m of text.matchAll(PROTOTYPE_ALIAS)) if (m[1] !== m[2]) alias.set(m[1]!, m[2]!);
  if (alias.size === 0) return;
  for (const s of symbols) {
    const to = s.className ? alias.get(s.className) : undefined;
    if (!to || s.kind !== "method") continue;
    s.className = to;
    s.qualName = `${to}.${s.name}`;
  }
}
