/**
 * Names in code as dotted paths, resolved through imports and aliases: `from os import environ as E;
 * E.get("X")` reads `os.environ.get`, `const { env } = process` makes `env` stand for `process.env`,
 * `getattr(sys, "_getframe")` and `Reflect.get(process, "env")` read `sys._getframe` and `process.env`,
 * and a member reached by a computed name reads `<object>.?`. A path the scan cannot follow is null; an
 * object it cannot name is `?`.
 */
import type { Node } from "web-tree-sitter";
import { familyOf } from "./rules.ts";
import type { LanguageId } from "../languages/index.ts";

export type Aliases = Map<string, string>;

/** The text of a string literal without its quotes, or null when the node is no plain string. */
export function stringValue(n: Node | null | undefined): string | null {
  if (!n) return null;
  switch (n.type) {
    case "string": {
      // Python strings and JavaScript strings; an f-string with interpolations is not plain.
      if (n.namedChildren.some((c) => c?.type === "interpolation")) return null;
      const parts = n.namedChildren.filter(
        (c) => c?.type === "string_content" || c?.type === "string_fragment" || c?.type === "escape_sequence",
      );
      return parts.map((c) => c!.text).join("");
    }
    case "string_literal":
    case "interpreted_string_literal":
    case "raw_string_literal":
      return n.namedChildren.map((c) => c!.text).join("");
    case "template_string":
      return n.namedChildren.some((c) => c?.type === "template_substitution")
        ? null
        : n.namedChildren.map((c) => c!.text).join("");
    default:
      return null;
  }
}

const GLOBAL_JS = new Set(["globalThis", "global", "window", "self"]);

/** A module name as the JavaScript rules know it (`node:assert/strict` → `assert`). */
export function jsModule(name: string): string {
  if (name === "node:test") return name;
  const bare = name.startsWith("node:") ? name.slice(5) : name;
  return bare === "assert/strict" ? "assert" : bare;
}

const join = (o: string | null, k: string): string => (o === "" ? k : `${o ?? "?"}.${k}`);
const args = (call: Node): Node[] =>
  (call.childForFieldName("arguments")?.namedChildren ?? []).filter((c): c is Node => c !== null);
const stripLang = (s: string): string => s.replace(/^java\.lang\./, "").replace(/<.*$/, "");

/** The dotted path an expression names, or null. `""` stands for the global object (JavaScript). */
export function pathOf(lang: LanguageId, n: Node | null, aliases: Aliases): string | null {
  if (!n) return null;
  const fam = familyOf(lang);
  const of = (x: Node | null): string | null => pathOf(lang, x, aliases);
  switch (n.type) {
    case "identifier":
      if (fam === "js" && GLOBAL_JS.has(n.text)) return "";
      return aliases.get(n.text) ?? n.text;
    case "meta_property":
      return n.text.replace(/\s+/g, "");
    case "parenthesized_expression":
    case "await_expression":
    case "non_null_expression":
    case "as_expression":
    case "satisfies_expression":
      return of(n.namedChildren[0] ?? null);
    case "attribute":
      return join(of(n.childForFieldName("object")), n.childForFieldName("attribute")?.text ?? "?");
    case "member_expression":
      return join(of(n.childForFieldName("object")), n.childForFieldName("property")?.text ?? "?");
    case "selector_expression":
      return join(of(n.childForFieldName("operand")), n.childForFieldName("field")?.text ?? "?");
    case "field_access":
      return join(of(n.childForFieldName("object")), n.childForFieldName("field")?.text ?? "?");
    case "subscript_expression":
      return join(of(n.childForFieldName("object")), stringValue(n.childForFieldName("index")) ?? "?");
    case "subscript": {
      const v = of(n.childForFieldName("value"));
      const key = stringValue(n.childForFieldName("subscript"));
      return v?.endsWith(".__dict__") ? join(v.slice(0, -9), key ?? "?") : v;
    }
    case "scoped_identifier":
    case "type_identifier":
      return stripLang(n.text);
    case "object_creation_expression":
    case "new_expression": {
      const t = of(n.childForFieldName(n.type === "new_expression" ? "constructor" : "type"));
      return t && /(Error|Exception|Throwable)$|^Function$/.test(t) ? `new ${t}` : null;
    }
    case "method_invocation": {
      const obj = n.childForFieldName("object");
      const name = n.childForFieldName("name")?.text ?? "?";
      return obj ? join(of(obj), name) : (aliases.get(name) ?? name);
    }
    case "call":
    case "call_expression":
      return callPath(lang, n, aliases);
    default:
      return null;
  }
}

/** Calls that name what they reach: `getattr(o, "k")`, `require("m")`, `Reflect.get(o, "k")`, `Error()`. */
function callPath(lang: LanguageId, n: Node, aliases: Aliases): string | null {
  const fn = n.childForFieldName("function");
  const a = args(n);
  if (fn?.type === "import") {
    const m = stringValue(a[0]);
    return m === null ? "require.?" : jsModule(m);
  }
  const f = fn ? pathOf(lang, fn, aliases) : null;
  if (f === null) return null;
  const of = (x: Node | undefined): string | null => pathOf(lang, x ?? null, aliases);
  const fam = familyOf(lang);
  if (fam === "python") {
    if ((f === "getattr" || f === "setattr" || f === "hasattr" || f === "delattr") && a.length >= 2)
      return join(of(a[0]), stringValue(a[1]) ?? "?");
    if ((f === "__import__" || f === "importlib.import_module") && a.length >= 1)
      return stringValue(a[0]) ?? "__import__";
    if (f === "vars" && a.length === 1) return `${of(a[0]) ?? "?"}.__dict__`;
    return null;
  }
  if (fam === "js") {
    if (f === "require") {
      const m = stringValue(a[0]);
      return m === null ? "require.?" : jsModule(m);
    }
    if (
      (f === "Reflect.get" ||
        f === "Object.getOwnPropertyDescriptor" ||
        f === "Reflect.getOwnPropertyDescriptor") &&
      a.length >= 2
    )
      return join(of(a[0]), stringValue(a[1]) ?? "?");
    if (f === "Error") return "new Error";
    if (f === "Function") return "new Function";
  }
  return null;
}

/** The first argument of calls that change an object (`setattr`, `Object.defineProperty`, ...). */
export const MUTATING_CALLS = new Set([
  "setattr",
  "delattr",
  "Object.defineProperty",
  "Object.defineProperties",
  "Object.assign",
  "Object.setPrototypeOf",
  "Reflect.set",
  "Reflect.defineProperty",
  "Reflect.deleteProperty",
]);

/** The call's arguments (named children of its argument list). */
export const callArgs = args;
