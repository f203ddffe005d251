import type { Node } from "web-tree-sitter";
import type { UnitRules } from "../languages/index.ts";
import type { SymbolInfo, SymbolKind } from "./types.ts";

/**
 * What the index records of each definition the query matched, and how its symbol is read from the
 * tree: pythonSymbols() for Python (from the query's captures, with few further reads), toSymbol() for
 * the other languages.
 */

/** What a query's definition capture makes: a unit, or a scope (a module, a namespace) that names units. */
export type DefKind = SymbolKind | "scope";

export interface Def {
  node: Node;
  /**
   * The node's type and end (read once: each read crosses into WASM). Python's type is known from the
   * capture (its patterns are one per node type), so it is not read at all.
   */
  type: string;
  endIndex: number;
  kind: DefKind;
  name: string;
  value: Node | null;
  /** The text of a method's receiver or qualifier (Go's `(s *Server)`, C++'s `ns::Parser`). */
  receiver: string | null;
  /**
   * JavaScript: the object a definition made at run time is made on (`req` in
   * `req.__defineGetter__('host', …)`, `obj` in `Object.defineProperty(obj, 'x', …)`).
   */
  owner?: Node | null;
  /** The row (0-based) of the token that ends the header (Python's `:`), when the query captured it. */
  headerRow: number;
  bases: string[];
  attrs: [number, number][];
  parent: Def | null;
  qualName: string;
}

/** `models.Model` → `Model`; `Base<T>` / `Base[int]` → `Base`; `*pkg.T` → `T`. */
export function lastNameSegment(base: string): string {
  const noArgs = base.replace(/[<[(].*$/s, "").trim();
  const parts = noArgs.split(/\.|::/);
  return (parts[parts.length - 1] ?? "").replace(/^[*&~\s]+/, "").trim();
}

/** A decorator, annotation or attribute as written, without `@` or `#[…]`. */
function decoratorText(n: Node): string {
  const t = n.text.replace(/^@\s*/, "").replace(/^#!?\[([\s\S]*)\]$/, "$1");
  return t.replace(/\s+/g, " ").trim();
}

/**
 * Python's symbols, in document order. The same fields as toSymbol() gives, with fewer reads from the
 * tree: a definition is read for its decorators only when an `@` stands between the previous
 * definition's start and its own (a decorator is an expression statement's sibling, never inside
 * another definition's header, so the one of a definition lies in that stretch); the header's end is
 * the `:` the query captured.
 */
export function pythonSymbols(
  ordered: readonly Def[],
  text: string,
  lines: LineTable,
  brokenTree: boolean,
): SymbolInfo[] {
  const out: SymbolInfo[] = [];
  let prevStart = 0;
  // The first `@` at or after prevStart (-1: none left): one forward scan of the text in all.
  let nextAt = text.indexOf("@");
  for (const d of ordered) {
    const start = d.node.startIndex;
    let outer: Node = d.node;
    const decorators: string[] = [];
    if (nextAt >= 0 && nextAt < prevStart) nextAt = text.indexOf("@", prevStart);
    // In a tree with a syntax error, error recovery may leave a definition inside a decorator's text:
    // every parent is read there.
    if (brokenTree || (nextAt >= 0 && nextAt < start)) {
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
      d.headerRow >= 0 ? d.headerRow + 1 : headerEndOf(d.node, d.type, null, true, end, lines);
    ASYNC_AT.lastIndex = start;
    const isAsync = ASYNC_AT.test(text);
    out.push(finishSymbol(d, first, end, headerEnd, decorators, isAsync, false, null, null));
  }
  return out;
}

/** `async` at the start of a Python definition (sticky: tested at lastIndex). */
const ASYNC_AT = /async\b/y;

export function toSymbol(d: Def, units: UnitRules, text: string, lines: LineTable): SymbolInfo {
  const node = d.node;
  const type = d.type;
  const decorators: string[] = [];
  // The outer node whose range the definition takes: a JS declaration holding one declarator, a Go type
  // declaration holding one spec, a wrapper of the language (a C++ template declaration), an export.
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
  for (let par = outer.parent; par && units.wrappers.includes(par.type); par = par.parent) outer = par;
  let exported = false;
  if (units.exportWrapper !== null && outer.parent?.type === units.exportWrapper) {
    exported = true;
    outer = outer.parent;
  }
  const scan = [...outer.namedChildren, ...(outer === node ? [] : node.namedChildren)];
  for (const c of scan) {
    if (!c) continue;
    const ct = c.type;
    if (ct === "decorator") decorators.push(decoratorText(c));
    if (ct === units.visibility) exported = true;
    if (ct === "modifiers") {
      for (const m of c.namedChildren) {
        if (m && (m.type === "annotation" || m.type === "marker_annotation"))
          decorators.push(decoratorText(m));
      }
    }
  }
  let first = outer;
  // Decorators and attributes written before a definition, as its siblings (JS methods, Rust items).
  let prev = units.leading.length > 0 ? outer.previousNamedSibling : null;
  const leading: string[] = [];
  while (prev && units.leading.includes(prev.type)) {
    leading.unshift(decoratorText(prev));
    first = prev;
    prev = prev.previousNamedSibling;
  }
  decorators.unshift(...leading);
  const start = first.startPosition.row + 1;
  const end = lines.rowAt(outer === node ? d.endIndex : outer.endIndex) + 1;
  const valueNode = d.value ?? node;
  const isAsync = ASYNC_PREFIX.test(text.slice(valueNode.startIndex, valueNode.startIndex + 120));
  const headerEnd = headerEndOf(node, type, d.value, false, end, lines);
  const protoOwner =
    (type === "expression_statement" ? prototypeOwner(node) : null) ?? (d.owner ? ownerName(d.owner) : null);
  return finishSymbol(d, start, end, headerEnd, decorators, isAsync, exported, protoOwner, units);
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
  units: UnitRules | null,
): SymbolInfo {
  let className: string | null = null;
  let qualName = d.qualName;
  if (d.kind === "class") {
    className = d.parent?.kind === "class" ? d.parent.qualName : null;
  } else if (protoOwner) {
    className = protoOwner;
    qualName = `${className}.${d.name}`;
  } else if (d.receiver !== null && units) {
    className = receiverClassIn(d, units);
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
      : (d.kind as SymbolKind);
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
  if (d.kind === "class") sym.classKind = classKindOf(d.node, d.type, units);
  return sym;
}

function classKindOf(node: Node, type: string, units: UnitRules | null): string {
  if (type === "type_spec") {
    const t = node.childForFieldName("type")?.type;
    return t === "struct_type" ? "struct" : t === "interface_type" ? "interface" : "type";
  }
  return units?.classKinds[type] ?? "class";
}

/** `async` before a definition, after modifiers (`export`, `static`, `public`, ...). */
const ASYNC_PREFIX =
  /^(?:(?:export|default|public|private|protected|static|override|readonly|abstract|declare|pub(?:\([^)]*\))?)\s+)*async\b/;

function headerEndOf(
  node: Node,
  type: string,
  value: Node | null,
  colonHeader: boolean,
  end: number,
  lines: LineTable,
): number {
  if (type === "type_spec" || type === "type_alias") return end;
  const target = value ?? node;
  let body = target.childForFieldName("body");
  if (!body) body = target.childForFieldName("value")?.childForFieldName("body") ?? null;
  if (!body) return end;
  if (colonHeader) {
    // The header ends at the last `:` before the body (a one-character token: its end row is its start row).
    const bodyStart = body.startIndex;
    for (let c = body.previousSibling; c; c = c.previousSibling) {
      if (c.startIndex < bodyStart && c.type === ":") return c.startPosition.row + 1;
    }
    return lines.rowAt(body.endIndex) + 1;
  }
  return body.startPosition.row + 1;
}

/**
 * The class a method's receiver names, inside the scopes around the method: `impl Parser` in `mod io`
 * → io.Parser; `Parser::parse` in `namespace ns` → ns.Parser (and `ns::Parser::parse` at the top → the
 * same).
 */
function receiverClassIn(d: Def, units: UnitRules): string | null {
  const cls = units.receiverClass(d.receiver ?? "");
  if (!cls) return null;
  let scope = d.parent;
  while (scope && scope.kind !== "scope") scope = scope.parent;
  if (!scope || cls === scope.qualName || cls.startsWith(`${scope.qualName}.`)) return cls;
  return `${scope.qualName}.${cls}`;
}

/** `Foo.prototype.bar = function () {}` → `Foo`; `res.send = function () {}` → `res` (not `exports.x`). */
function prototypeOwner(node: Node): string | null {
  const obj = node.firstNamedChild?.childForFieldName("left")?.childForFieldName("object");
  if (obj?.type === "identifier") return ownerName(obj);
  if (obj?.type !== "member_expression" || obj.childForFieldName("property")?.text !== "prototype")
    return null;
  return obj.childForFieldName("object")?.text ?? null;
}

/** Objects that hold a module's functions, not a class's: no class is named after them. */
const MODULE_OBJECTS = new Set([
  "exports",
  "module",
  "module.exports",
  "window",
  "global",
  "globalThis",
  "self",
]);

/**
 * The class a run-time definition on `owner` belongs to: `Foo.prototype` → `Foo`, `req` → `req`,
 * `app.request` → `app.request`; none for `exports`, `this`, or an expression that is no plain name.
 */
function ownerName(owner: Node): string | null {
  const text = owner.text.replace(/\s+/g, "");
  if (text.length > 200 || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(text)) return null;
  const name = text.replace(/\.prototype$/, "");
  return MODULE_OBJECTS.has(name) || name === "this" || name.startsWith("this.") ? null : name;
}

/** Row (0-based) of a string index, as tree-sitter counts rows: by `\n`. */
export class LineTable {
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
