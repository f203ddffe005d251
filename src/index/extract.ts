import { readFileSync } from "node:fs";
import { Query, type Node } from "web-tree-sitter";
import { type LanguageId, loadLanguage, parseSource, syntaxProblems } from "../treesitter/languages.ts";
import { definitionMatches, makeWalkPlan, type WalkPlan } from "./def-walk.ts";
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

const plans = new Map<LanguageId, Promise<WalkPlan>>();

function planFor(lang: LanguageId): Promise<WalkPlan> {
  let p = plans.get(lang);
  if (!p) {
    const source = querySource(lang);
    p = loadLanguage(lang).then((language) =>
      makeWalkPlan(lang, language, new Query(language, source), source),
    );
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
  kind: SymbolKind;
  name: string;
  value: Node | null;
  receiver: Node | null;
  bases: string[];
  attrs: [number, number][];
  parent: Def | null;
  qualName: string;
}

/** Parses `text` and extracts its definitions. Never throws on bad syntax: broken regions are skipped. */
export async function extractSymbols(lang: LanguageId, text: string): Promise<ExtractResult> {
  const plan = await planFor(lang);
  const tree = await parseSource(lang, text);
  try {
    const root = tree.rootNode;
    const defs = new Map<number, Def>();
    const pending: { kind: "bases" | "attribute"; node: Node }[] = [];
    for (const match of definitionMatches(plan, tree)) {
      let defNode: Node | null = null;
      let kind: SymbolKind | null = null;
      let name: string | null = null;
      let value: Node | null = null;
      let receiver: Node | null = null;
      for (const cap of match.captures) {
        switch (cap.name) {
          case "class":
          case "function":
          case "method":
            defNode = cap.node;
            kind = cap.name;
            break;
          case "name":
            name = cap.node.text;
            break;
          case "value":
            value = cap.node;
            break;
          case "receiver":
            receiver = cap.node;
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
          kind,
          name,
          value,
          receiver,
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
    for (const d of defs.values())
      items.push({ s: d.node.startIndex, e: d.node.endIndex, def: d, pend: null });
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
      const range: [number, number] = [p.node.startPosition.row + 1, p.node.endPosition.row + 1];
      if (!owner.attrs.some(([a, b]) => a === range[0] && b === range[1])) owner.attrs.push(range);
    }
    const symbols = ordered.map((d) => toSymbol(d, lang, text));
    return { symbols, syntaxErrors: root.hasError ? syntaxProblems(tree, 1000).length : 0 };
  } finally {
    tree.delete();
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

function toSymbol(d: Def, lang: LanguageId, text: string): SymbolInfo {
  const node = d.node;
  const decorators: string[] = [];
  let exported = false;
  // The outer node whose range the definition takes: Python decorated_definition, a JS declaration
  // holding one declarator, an export statement, a Go type declaration holding one spec.
  let outer: Node = node;
  if (node.type === "variable_declarator") {
    const decl = node.parent;
    if (decl && /^(lexical|variable)_declaration$/.test(decl.type) && decl.namedChildCount === 1)
      outer = decl;
  } else if (node.type === "type_spec" || node.type === "type_alias") {
    const decl = node.parent;
    if (
      decl?.type === "type_declaration" &&
      decl.namedChildren.filter((c) => c?.type !== "comment").length === 1
    )
      outer = decl;
  }
  const par = outer.parent;
  if (par?.type === "decorated_definition") {
    outer = par;
  }
  if (outer.parent?.type === "export_statement") {
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
    if (c.type === "decorator") decorators.push(decoratorText(c));
    if (c.type === "modifiers") {
      for (const m of c.namedChildren) {
        if (m && (m.type === "annotation" || m.type === "marker_annotation"))
          decorators.push(decoratorText(m));
      }
    }
  }
  let first = outer;
  // TS/JS method decorators are siblings before the method in the class body.
  let prev =
    lang === "typescript" || lang === "tsx" || lang === "javascript" ? outer.previousNamedSibling : null;
  const leading: string[] = [];
  while (prev && prev.type === "decorator") {
    leading.unshift(decoratorText(prev));
    first = prev;
    prev = prev.previousNamedSibling;
  }
  decorators.unshift(...leading);
  const start = first.startPosition.row + 1;
  const end = outer.endPosition.row + 1;
  const valueNode = d.value ?? node;
  const isAsync = ASYNC_PREFIX.test(text.slice(valueNode.startIndex, valueNode.startIndex + 120));
  const headerEnd = headerEndOf(node, d.value, lang, end);
  let className: string | null = null;
  let qualName = d.qualName;
  if (d.kind === "class") {
    className = d.parent?.kind === "class" ? d.parent.qualName : null;
  } else if (prototypeOwner(node)) {
    className = prototypeOwner(node);
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
    d.kind === "function" &&
    className !== null &&
    (d.parent?.kind === "class" || prototypeOwner(node) !== null)
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
  if (d.kind === "class") sym.classKind = classKindOf(node);
  return sym;
}

function classKindOf(node: Node): string {
  if (node.type === "type_spec") {
    const t = node.childForFieldName("type")?.type;
    return t === "struct_type" ? "struct" : t === "interface_type" ? "interface" : "type";
  }
  return CLASS_KIND[node.type] ?? "class";
}

/** `async` before a definition, after modifiers (`export`, `static`, `public`, ...). */
const ASYNC_PREFIX =
  /^(?:(?:export|default|public|private|protected|static|override|readonly|abstract|declare)\s+)*async\b/;

function headerEndOf(node: Node, value: Node | null, lang: LanguageId, end: number): number {
  if (node.type === "type_spec" || node.type === "type_alias") return end;
  let target = value ?? node;
  if (!target.childForFieldName("body")) target = target.childForFieldName("value") ?? target;
  const body = target.childForFieldName("body");
  if (!body) return end;
  if (lang === "python") {
    let colon: Node | null = null;
    for (const c of target.children) {
      if (!c || c.startIndex >= body.startIndex) break;
      if (c.type === ":") colon = c;
    }
    return (colon ?? body).endPosition.row + 1;
  }
  return body.startPosition.row + 1;
}

function receiverType(receiver: Node): string | null {
  const m = /^\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)/.exec(receiver.text);
  return m?.[1] ?? null;
}

/** `Foo.prototype.bar = function () {}` → `Foo`. */
function prototypeOwner(node: Node): string | null {
  if (node.type !== "expression_statement") return null;
  const obj = node.firstNamedChild?.childForFieldName("left")?.childForFieldName("object");
  if (obj?.type !== "member_expression" || obj.childForFieldName("property")?.text !== "prototype")
    return null;
  return obj.childForFieldName("object")?.text ?? null;
}
