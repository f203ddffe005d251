import { readFileSync } from "node:fs";
import { Query, type Node, type Tree } from "web-tree-sitter";
import { type LanguageId, loadLanguage, parseSource, syntaxProblems } from "../treesitter/languages.ts";
import { definitionMatches, type MatchPlan, makeMatchPlan } from "./def-anchors.ts";
import type { ExtractResult, SymbolInfo, SymbolKind } from "./types.ts";

/** The query file of each language (TSX shares TypeScript's: same node names). */
const QUERY_FILE: Record<LanguageId, string> = {
  python: "python.scm",
  javascript: "javascript.scm",
  typescript: "typescript.scm",
  tsx: "typescript.scm",
  java: "java.scm",
  go: "go.scm",
};

/** Text of a language's query file. */
export function querySource(lang: LanguageId): string {
  return readFileSync(new URL(`./queries/${QUERY_FILE[lang]}`, import.meta.url), "utf8");
}

const plans = new Map<LanguageId, Promise<MatchPlan>>();

/** The query of a language, with the keyword anchors that let it skip most of a tree (see def-anchors.ts). */
export function planFor(lang: LanguageId): Promise<MatchPlan> {
  let p = plans.get(lang);
  if (!p) {
    const source = querySource(lang);
    p = loadLanguage(lang).then((language) => makeMatchPlan(lang, new Query(language, source), source));
    plans.set(lang, p);
  }
  return p;
}

const CLASS_KIND: Record<string, string> = {
  class_definition: "class",
  class_declaration: "class",
  abstract_class_declaration: "class",
  variable_declarator: "class",
  interface_declaration: "interface",
  enum_declaration: "enum",
  record_declaration: "record",
  annotation_type_declaration: "annotation",
  type_alias: "type",
};

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
]);

interface Def {
  node: Node;
  /**
   * The node's type and end (read once: each read crosses into WASM). Python's type is known from the
   * capture (its patterns are one per node type), so it is not read at all.
   */
  type: string;
  endIndex: number;
  kind: SymbolKind;
  name: string;
  value: Node | null;
  receiver: Node | null;
  /** The row (0-based) of the token that ends the header (Python's `:`), when the query captured it. */
  headerRow: number;
  bases: string[];
  attrs: [number, number][];
  parent: Def | null;
  qualName: string;
}

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
  {
    const root = tree.rootNode;
    const lines = new LineTable(text);
    const defs = new Map<number, Def>();
    const pending: { kind: "bases" | "attribute"; node: Node }[] = [];
    const python = lang === "python";
    for (const match of definitionMatches(plan, tree, text)) {
      let defNode: Node | null = null;
      let kind: SymbolKind | null = null;
      let name: string | null = null;
      let value: Node | null = null;
      let receiver: Node | null = null;
      let headerRow = -1;
      for (const cap of match.captures) {
        switch (cap.name) {
          case "class":
          case "function":
          case "method":
            defNode = cap.node;
            kind = cap.name;
            break;
          case "name":
            // The source text itself: tree-sitter's string indices are the text's (UTF-16) indices.
            name = text.slice(cap.node.startIndex, cap.node.endIndex);
            break;
          case "value":
            value = cap.node;
            break;
          case "receiver":
            receiver = cap.node;
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
      if (defNode && kind && name && !defs.has(defNode.id)) {
        const d: Def = {
          node: defNode,
          type: python ? (PYTHON_TYPE[kind] ?? defNode.type) : defNode.type,
          endIndex: defNode.endIndex,
          kind,
          name,
          value,
          receiver,
          headerRow,
          bases: [],
          attrs: [],
          parent: null,
          qualName: name,
        };
        defs.set(defNode.id, d);
      }
    }
    // Nesting by byte ranges (tree nodes nest properly): one sweep, no walks up the tree.
    type Item = { s: number; e: number; def: Def | null; pend: (typeof pending)[number] | null };
    const items: Item[] = [];
    for (const d of defs.values()) items.push({ s: d.node.startIndex, e: d.endIndex, def: d, pend: null });
    for (const p of pending) {
      if (!defs.has(p.node.id)) items.push({ s: p.node.startIndex, e: p.node.endIndex, def: null, pend: p });
    }
    items.sort((a, b) => a.s - b.s || b.e - a.e || (a.def ? 0 : 1) - (b.def ? 0 : 1));
    const stack: Item[] = [];
    const ordered: Def[] = [];
    for (const it of items) {
      while (
        stack.length > 0 &&
        !(stack[stack.length - 1]!.s <= it.s && it.e <= stack[stack.length - 1]!.e)
      ) {
        stack.pop();
      }
      const owner = stack[stack.length - 1]?.def ?? null;
      if (it.def) {
        it.def.parent = owner;
        it.def.qualName = owner ? `${owner.qualName}.${it.def.name}` : it.def.name;
        ordered.push(it.def);
        stack.push(it);
        continue;
      }
      const p = it.pend!;
      if (owner?.kind !== "class") continue;
      if (p.kind === "bases") {
        collectBases(p.node, owner.bases);
        continue;
      }
      const range: [number, number] = [p.node.startPosition.row + 1, lines.rowAt(it.e) + 1];
      if (!owner.attrs.some(([a, b]) => a === range[0] && b === range[1])) owner.attrs.push(range);
    }
    const symbols = python
      ? pythonSymbols(ordered, text, lines)
      : ordered.map((d) => toSymbol(d, lang, text, lines));
    return { symbols, syntaxErrors: root.hasError ? syntaxProblems(tree, 1000).length : 0 };
  }
}

function collectBases(node: Node, out: string[]): void {
  if (BASE_CONTAINERS.has(node.type)) {
    for (const child of node.namedChildren) {
      if (child) collectBases(child, out);
    }
    return;
  }
  // Python keyword arguments (metaclass=...), comments and splats are not bases.
  if (/keyword_argument|comment|splat|dictionary_splat|type_arguments/.test(node.type)) return;
  const text = node.text.replace(/\s+/g, " ").trim();
  if (text && !out.includes(text)) out.push(text);
}

/** `models.Model` → `Model`; `Base<T>` / `Base[int]` → `Base`; `*pkg.T` → `T`. */
export function lastNameSegment(base: string): string {
  const noArgs = base.replace(/[<[(].*$/s, "").trim();
  const parts = noArgs.split(/\.|::/);
  return (parts[parts.length - 1] ?? "").replace(/^[*&~\s]+/, "").trim();
}

function decoratorText(n: Node): string {
  return n.text.replace(/^@\s*/, "").replace(/\s+/g, " ").trim();
}

/** `@` (a decorator's first character). */
const AT = 64;

/**
 * Python's symbols, in document order. The same fields as toSymbol() gives, with fewer reads from the
 * tree: a definition is read for its decorators only when an `@` stands between the previous
 * definition's start and its own (a decorator is an expression statement's sibling, never inside
 * another definition's header, so the one of a definition lies in that stretch); the header's end is
 * the `:` the query captured.
 */
function pythonSymbols(ordered: readonly Def[], text: string, lines: LineTable): SymbolInfo[] {
  const out: SymbolInfo[] = [];
  let prevStart = 0;
  for (const d of ordered) {
    const start = d.node.startIndex;
    let outer: Node = d.node;
    const decorators: string[] = [];
    if (hasCharBetween(text, AT, prevStart, start)) {
      const par = d.node.parent;
      if (par?.type === "decorated_definition") {
        outer = par;
        for (const c of par.namedChildren) if (c?.type === "decorator") decorators.push(decoratorText(c));
      }
    }
    prevStart = start;
    const first = outer.startPosition.row + 1;
    // A decorated_definition ends where its definition does.
    const end = lines.rowAt(d.endIndex) + 1;
    const headerEnd =
      d.headerRow >= 0 ? d.headerRow + 1 : headerEndOf(d.node, d.type, null, "python", end, lines);
    ASYNC_AT.lastIndex = start;
    const isAsync = ASYNC_AT.test(text);
    out.push(finishSymbol(d, first, end, headerEnd, decorators, isAsync, false, null));
  }
  return out;
}

/** Whether `text` holds the character `code` in [from, to). */
function hasCharBetween(text: string, code: number, from: number, to: number): boolean {
  for (let i = to - 1; i >= from; i--) if (text.charCodeAt(i) === code) return true;
  return false;
}

/** `async` at the start of a Python definition (sticky: tested at lastIndex). */
const ASYNC_AT = /async\b/y;

const JS_LIKE = new Set<LanguageId>(["javascript", "typescript", "tsx"]);

function toSymbol(d: Def, lang: LanguageId, text: string, lines: LineTable): SymbolInfo {
  const node = d.node;
  const type = d.type;
  const jsLike = JS_LIKE.has(lang);
  const decorators: string[] = [];
  let exported = false;
  // The outer node whose range the definition takes: Python decorated_definition, a JS declaration
  // holding one declarator, an export statement, a Go type declaration holding one spec.
  let outer: Node = node;
  if (type === "variable_declarator") {
    const decl = node.parent;
    if (decl && /^(lexical|variable)_declaration$/.test(decl.type) && decl.namedChildCount === 1)
      outer = decl;
  } else if (type === "type_spec" || type === "type_alias") {
    const decl = node.parent;
    if (
      decl?.type === "type_declaration" &&
      decl.namedChildren.filter((c) => c?.type !== "comment").length === 1
    )
      outer = decl;
  }
  // Only Python has decorated_definition; only JavaScript and TypeScript have export statements.
  if (lang === "python") {
    const par = outer.parent;
    if (par?.type === "decorated_definition") outer = par;
  }
  if (jsLike && outer.parent?.type === "export_statement") {
    exported = true;
    outer = outer.parent;
  }
  // Python keeps decorators only in decorated_definition; other languages have them among the children.
  const scan =
    lang !== "python"
      ? [...outer.namedChildren, ...(outer === node ? [] : node.namedChildren)]
      : outer === node
        ? []
        : outer.namedChildren;
  for (const c of scan) {
    if (!c) continue;
    const ct = c.type;
    if (ct === "decorator") decorators.push(decoratorText(c));
    if (ct === "modifiers") {
      for (const m of c.namedChildren) {
        if (m && (m.type === "annotation" || m.type === "marker_annotation"))
          decorators.push(decoratorText(m));
      }
    }
  }
  let first = outer;
  // TS/JS method decorators are siblings before the method in the class body.
  let prev = jsLike ? outer.previousNamedSibling : null;
  const leading: string[] = [];
  while (prev && prev.type === "decorator") {
    leading.unshift(decoratorText(prev));
    first = prev;
    prev = prev.previousNamedSibling;
  }
  decorators.unshift(...leading);
  const start = first.startPosition.row + 1;
  const end = lines.rowAt(outer === node ? d.endIndex : outer.endIndex) + 1;
  const valueNode = d.value ?? node;
  const isAsync = ASYNC_PREFIX.test(text.slice(valueNode.startIndex, valueNode.startIndex + 120));
  const headerEnd = headerEndOf(node, type, d.value, lang, end, lines);
  const protoOwner = type === "expression_statement" ? prototypeOwner(node) : null;
  return finishSymbol(d, start, end, headerEnd, decorators, isAsync, exported, protoOwner);
}

/** The symbol of `d` from its rows and what toSymbol() or pythonSymbols() read of it. */
function finishSymbol(
  d: Def,
  start: number,
  end: number,
  headerEnd: number,
  decorators: string[],
  isAsync: boolean,
  exported: boolean,
  protoOwner: string | null,
): SymbolInfo {
  let className: string | null = null;
  let qualName = d.qualName;
  if (d.kind === "class") {
    className = d.parent?.kind === "class" ? d.parent.qualName : null;
  } else if (protoOwner) {
    className = protoOwner;
    qualName = `${className}.${d.name}`;
  } else if (d.receiver) {
    className = receiverType(d.receiver);
    qualName = className ? `${className}.${d.name}` : d.name;
  } else if (d.parent?.kind === "class") {
    className = d.parent.qualName;
  } else if (d.kind === "method") {
    let anc = d.parent;
    while (anc && anc.kind !== "class") anc = anc.parent;
    className = anc?.qualName ?? null;
  }
  const kind: SymbolKind =
    d.kind === "function" && className !== null && (d.parent?.kind === "class" || protoOwner !== null)
      ? "method"
      : d.kind;
  const sym: SymbolInfo = {
    kind,
    name: d.name,
    qualName,
    className: kind === "function" ? null : className,
    start,
    end: Math.max(end, start),
    headerEnd: Math.min(Math.max(headerEnd, start), Math.max(end, start)),
    decorators,
    bases: d.bases,
    baseNames: d.bases.map(lastNameSegment).filter((b) => b.length > 0),
    async: isAsync,
    exported,
    attrs: d.attrs,
  };
  if (d.kind === "class") sym.classKind = classKindOf(d.node, d.type);
  return sym;
}

function classKindOf(node: Node, type: string): string {
  if (type === "type_spec") {
    const t = node.childForFieldName("type")?.type;
    return t === "struct_type" ? "struct" : t === "interface_type" ? "interface" : "type";
  }
  return CLASS_KIND[type] ?? "class";
}

/** `async` before a definition, after modifiers (`export`, `static`, `public`, ...). */
const ASYNC_PREFIX =
  /^(?:(?:export|default|public|private|protected|static|override|readonly|abstract|declare)\s+)*async\b/;

function headerEndOf(
  node: Node,
  type: string,
  value: Node | null,
  lang: LanguageId,
  end: number,
  lines: LineTable,
): number {
  if (type === "type_spec" || type === "type_alias") return end;
  const target = value ?? node;
  let body = target.childForFieldName("body");
  if (!body) body = target.childForFieldName("value")?.childForFieldName("body") ?? null;
  if (!body) return end;
  if (lang === "python") {
    // The header ends at the last `:` before the body (a one-character token: its end row is its start row).
    const bodyStart = body.startIndex;
    for (let c = body.previousSibling; c; c = c.previousSibling) {
      if (c.startIndex < bodyStart && c.type === ":") return c.startPosition.row + 1;
    }
    return lines.rowAt(body.endIndex) + 1;
  }
  return body.startPosition.row + 1;
}

function receiverType(receiver: Node): string | null {
  const m = /^\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)/.exec(receiver.text);
  return m?.[1] ?? null;
}

/** `Foo.prototype.bar = function () {}` → `Foo`. */
function prototypeOwner(node: Node): string | null {
  const obj = node.firstNamedChild?.childForFieldName("left")?.childForFieldName("object");
  if (obj?.type !== "member_expression" || obj.childForFieldName("property")?.text !== "prototype")
    return null;
  return obj.childForFieldName("object")?.text ?? null;
}

/** Row (0-based) of a string index, as tree-sitter counts rows: by `\n`. */
class LineTable {
  private readonly text: string;
  private breaks: number[] | null = null;

  constructor(text: string) {
    this.text = text;
  }

  rowAt(index: number): number {
    if (!this.breaks) {
      const b: number[] = [];
      for (let i = this.text.indexOf("\n"); i >= 0; i = this.text.indexOf("\n", i + 1)) b.push(i);
      this.breaks = b;
    }
    // Number of line breaks before `index`.
    const b = this.breaks;
    let lo = 0;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (b[mid]! < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
