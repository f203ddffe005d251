import type { Node, Tree } from "web-tree-sitter";
import type { Def } from "./symbol-build.ts";

/**
 * Python definitions made by assignment where the name is a literal: at module level or in a class
 * body, `Point = namedtuple("Point", …)`, `Color = Enum("Color", …)`, `Row = NamedTuple("Row", …)`,
 * `Dyn = type("Dyn", (Base,), {})`, `X = make_thing("X", …)` (any call whose first argument is the
 * name itself) define classes; `f = lambda …` and `g = partial(…)` define functions. No query pattern
 * is added (Python's query is anchored on keywords, see def-anchors.ts): the text is scanned for such
 * lines first, and the tree is read only at those few places.
 */

/** Calls that make a class whatever their arguments (last name segment). */
const CLASS_FACTORIES = new Set([
  "namedtuple",
  "NamedTuple",
  "TypedDict",
  "NewType",
  "make_dataclass",
  "Enum",
  "IntEnum",
  "StrEnum",
  "Flag",
  "IntFlag",
]);
/** Of those, the ones whose result is a subclass of themselves (kept as the class's base). */
const BASE_FACTORIES = new Set(["NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"]);
/** Calls named after their result that make no class. */
const NOT_CLASSES = new Set(["TypeVar", "ParamSpec", "TypeVarTuple", "getLogger", "Signal", "ContextVar"]);
const FUNCTION_FACTORIES = new Set(["partial", "partialmethod"]);

/**
 * `name = lambda` or `name = callee(` (optionally `("literal"` after it), at the start of a line:
 * candidates only; the tree decides.
 */
const CANDIDATE =
  /^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:(lambda)\b|([A-Za-z_][\w.]*)[ \t]*\([ \t\n]*(?:(["'])(\w+)\4)?)/gm;

function kindOf(m: RegExpMatchArray): { kind: "class" | "function"; base: string | null } | null {
  if (m[2]) return { kind: "function", base: null };
  const callee = m[3]!;
  const last = callee.slice(callee.lastIndexOf(".") + 1);
  if (FUNCTION_FACTORIES.has(last)) return { kind: "function", base: null };
  if (last === "type") return m[5] === m[1] ? { kind: "class", base: null } : null;
  if (CLASS_FACTORIES.has(last)) return { kind: "class", base: BASE_FACTORIES.has(last) ? callee : null };
  if (m[5] === m[1] && !NOT_CLASSES.has(last)) return { kind: "class", base: null };
  return null;
}

/** The definitions by assignment in a Python file, as Defs for the nesting sweep. */
export function pythonAssignmentDefs(tree: Tree, text: string): Def[] {
  if (!text.includes("=")) return [];
  const out: Def[] = [];
  const root = tree.rootNode;
  for (const m of text.matchAll(CANDIDATE)) {
    const what = kindOf(m);
    if (!what) continue;
    const nameAt = m.index + m[0].indexOf(m[1]!);
    const ident = root.namedDescendantForIndex(nameAt);
    const assign = ident?.parent;
    if (ident?.type !== "identifier" || assign?.type !== "assignment") continue;
    if (assign.childForFieldName("left")?.id !== ident.id) continue;
    const stmt = assign.parent;
    const holder = stmt?.type === "expression_statement" ? stmt.parent : null;
    const atModule = holder?.type === "module";
    const inClass = holder?.type === "block" && holder.parent?.type === "class_definition";
    if (!atModule && !inClass) continue;
    const value = assign.childForFieldName("right");
    const valueType = value?.type;
    if (valueType !== (m[2] ? "lambda" : "call")) continue;
    out.push(assignmentDef(assign, m[1]!, what.kind, what.base));
  }
  return out;
}

function assignmentDef(node: Node, name: string, kind: "class" | "function", base: string | null): Def {
  return {
    node,
    type: "assignment",
    endIndex: node.endIndex,
    kind,
    name,
    value: null,
    receiver: null,
    owner: null,
    headerRow: node.endPosition.row,
    bases: base ? [base] : [],
    attrs: [],
    parent: null,
    qualName: name,
  };
}
