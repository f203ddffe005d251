/**
 * The names a file binds to modules and to paths: imports (`import inspect as i`, `from os import
 * environ`, `import * as a from "node:assert"`, `import d "runtime/debug"`, `import static
 * java.lang.System.getenv`) and plain assignments of a path (`e = os.environ`, `const { env } =
 * process`). Scopes are not told apart: a name bound to a path anywhere stands for it everywhere.
 */
import type { Node } from "web-tree-sitter";
import { type Aliases, jsModule, pathOf, stringValue } from "./paths.ts";
import type { LanguageId } from "../languages/index.ts";

/** An import: the module path it reads and the line it is on (a finding when the module is one to flag). */
export interface ImportRef {
  path: string;
  node: Node;
}

const kids = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((c): c is Node => c !== null);

function pythonImport(n: Node, aliases: Aliases, out: ImportRef[]): void {
  if (n.type === "import_statement") {
    for (const c of kids(n)) {
      if (c.type === "dotted_name") {
        out.push({ path: c.text, node: c });
        aliases.set(c.text.split(".")[0]!, c.text.split(".")[0]!);
      } else if (c.type === "aliased_import") {
        const name = c.childForFieldName("name")?.text ?? "";
        const alias = c.childForFieldName("alias")?.text;
        out.push({ path: name, node: c });
        if (alias) aliases.set(alias, name);
      }
    }
    return;
  }
  // import_from_statement
  const mod = n.childForFieldName("module_name")?.text ?? "";
  if (mod.startsWith(".")) return;
  for (const c of kids(n)) {
    if (c === n.childForFieldName("module_name")) continue;
    if (c.type === "dotted_name") {
      out.push({ path: `${mod}.${c.text}`, node: c });
      aliases.set(c.text, `${mod}.${c.text}`);
    } else if (c.type === "aliased_import") {
      const name = c.childForFieldName("name")?.text ?? "";
      const alias = c.childForFieldName("alias")?.text;
      out.push({ path: `${mod}.${name}`, node: c });
      if (alias) aliases.set(alias, `${mod}.${name}`);
    } else if (c.type === "wildcard_import") out.push({ path: mod, node: c });
  }
}

function jsImport(n: Node, aliases: Aliases, out: ImportRef[]): void {
  const src = stringValue(n.childForFieldName("source"));
  if (src === null) return;
  const mod = jsModule(src);
  out.push({ path: mod, node: n });
  const clause = kids(n).find((c) => c.type === "import_clause");
  for (const c of kids(clause)) {
    if (c.type === "identifier") aliases.set(c.text, mod);
    else if (c.type === "namespace_import") {
      const id = kids(c)[0];
      if (id) aliases.set(id.text, mod);
    } else if (c.type === "named_imports") {
      for (const s of kids(c)) {
        const name = s.childForFieldName("name")?.text;
        const alias = s.childForFieldName("alias")?.text ?? name;
        if (name && alias) aliases.set(alias, `${mod}.${name}`);
      }
    }
  }
}

const member = (base: string, k: string): string => (base === "" ? k : `${base}.${k}`);

/** `const { env, argv: a } = process` binds `env` and `a` to members of the value's path. */
function jsPattern(lang: LanguageId, pattern: Node, base: string, aliases: Aliases): void {
  if (pattern.type === "identifier") {
    aliases.set(pattern.text, base);
    return;
  }
  if (pattern.type !== "object_pattern") return;
  for (const p of kids(pattern)) {
    if (p.type === "shorthand_property_identifier_pattern") aliases.set(p.text, member(base, p.text));
    else if (p.type === "pair_pattern") {
      const key = p.childForFieldName("key");
      const k = key ? (stringValue(key) ?? key.text) : "?";
      const v = p.childForFieldName("value");
      if (v) jsPattern(lang, v, member(base, k), aliases);
    }
  }
}

function goImport(n: Node, aliases: Aliases, out: ImportRef[]): void {
  const path = stringValue(n.childForFieldName("path"));
  if (path === null) return;
  out.push({ path, node: n });
  const name = n.childForFieldName("name")?.text ?? path.slice(path.lastIndexOf("/") + 1);
  if (name !== "_" && name !== ".") aliases.set(name, path);
}

function javaImport(n: Node, aliases: Aliases, out: ImportRef[]): void {
  const isStatic = n.children.some((c) => c?.type === "static");
  const name = kids(n).find((c) => c.type === "scoped_identifier" || c.type === "identifier")?.text;
  if (!name) return;
  const path = name.replace(/^java\.lang\./, "");
  out.push({ path: name, node: n });
  const wildcard = n.children.some((c) => c?.type === "asterisk");
  if (wildcard) return;
  const last = path.slice(path.lastIndexOf(".") + 1);
  aliases.set(last, isStatic || name.startsWith("java.lang.") ? path : name);
}

/**
 * A value worth an alias: a module or one member of it (`os.environ`, `process`), never a deeper value
 * (`process.env.HOME` read once into a variable is that read, not a new one at each use).
 */
const aliasable = (p: string | null, name: string): p is string =>
  p !== null && p !== name && !p.includes("?") && p !== "__import__" && (p.match(/\./g)?.length ?? 0) <= 1;

/** The file's aliases and imports, in document order. */
export function collectAliases(lang: LanguageId, root: Node): { aliases: Aliases; imports: ImportRef[] } {
  const aliases: Aliases = new Map();
  const imports: ImportRef[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    switch (n.type) {
      case "import_statement":
      case "import_from_statement":
        if (lang === "python") pythonImport(n, aliases, imports);
        else jsImport(n, aliases, imports);
        continue;
      case "import_spec":
        goImport(n, aliases, imports);
        continue;
      case "import_declaration":
        if (lang === "java") {
          javaImport(n, aliases, imports);
          continue;
        }
        break;
      case "assignment": {
        // Python: `e = os.environ` (a plain name on the left).
        const left = n.childForFieldName("left");
        const p = pathOf(lang, n.childForFieldName("right"), aliases);
        if (left?.type === "identifier" && aliasable(p, left.text)) aliases.set(left.text, p);
        break;
      }
      case "variable_declarator": {
        const name = n.childForFieldName("name");
        const p = pathOf(lang, n.childForFieldName("value"), aliases);
        if (name && aliasable(p, name.text)) {
          if (lang === "java") aliases.set(name.text, p);
          else jsPattern(lang, name, p, aliases);
        }
        break;
      }
      case "short_var_declaration": {
        // Go: `e := os.Getenv` binds a function value.
        const left = kids(n.childForFieldName("left"));
        const right = kids(n.childForFieldName("right"));
        left.forEach((l, i) => {
          const p = pathOf(lang, right[i] ?? null, aliases);
          if (l.type === "identifier" && aliasable(p, l.text)) aliases.set(l.text, p);
        });
        break;
      }
    }
    for (let i = n.namedChildCount - 1; i >= 0; i--) {
      const c = n.namedChild(i);
      if (c) stack.push(c);
    }
  }
  return { aliases, imports };
}
