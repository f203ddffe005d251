/**
 * One file's findings: every place its syntax tree reads the call stack, the environment or the runner's
 * state, uses or changes a test library, juggles loaded modules or ends the process, and every literal
 * it holds (for the shared-literal check). The diff scan (scan-diff.ts) keeps what the patch added.
 */
import type { Node } from "web-tree-sitter";
import { type LanguageId, parseSource } from "../languages/index.ts";
import { collectAliases } from "./aliases.ts";
import { type Aliases, callArgs, MUTATING_CALLS, pathOf, stringValue } from "./paths.ts";
import {
  familyOf,
  type FindingKind,
  isMutationTarget,
  COMPARING_CALLS,
  isRunnerString,
  isTestLibraryPath,
  isTestPath,
  kindOfPath,
  OUTSIDE_TESTS_ONLY,
  TEST_LIBRARY_EXTENSIONS,
} from "./rules.ts";

/** One finding in one version of a file. */
export interface SourceFinding {
  kind: FindingKind;
  /** What it matched: a resolved path (`os.environ.get`) or a string (`"PYTEST_CURRENT_TEST"`). */
  what: string;
  /** 1-based. */
  line: number;
  /** The kind's words are the reason; `assigns` says the code changes the object, not only reads it. */
  assigns: boolean;
}

export interface SourceScan {
  findings: SourceFinding[];
  /** Every string and number literal, as written without quotes (strings) or as the number's text. */
  literals: { value: string; line: number }[];
}

/** Node types that name a path, per language family. */
const PATH_NODES: Record<ReturnType<typeof familyOf>, ReadonlySet<string>> = {
  python: new Set(["attribute", "call", "subscript"]),
  js: new Set(["member_expression", "subscript_expression", "call_expression", "new_expression"]),
  go: new Set(["selector_expression"]),
  java: new Set(["method_invocation", "field_access", "object_creation_expression"]),
};

/** Children that are names, not expressions (`x.exit`'s `exit`), per node type. */
const NAME_FIELDS: Record<string, string> = {
  attribute: "attribute",
  method_invocation: "name",
  field_access: "field",
  keyword_argument: "name",
  function_definition: "name",
  class_definition: "name",
};

const NUMBER_NODES = new Set([
  "integer",
  "float",
  "number",
  "int_literal",
  "float_literal",
  "decimal_integer_literal",
  "hex_integer_literal",
  "decimal_floating_point_literal",
]);

const ASSIGNMENTS = new Set([
  "assignment",
  "augmented_assignment",
  "assignment_expression",
  "augmented_assignment_expression",
  "delete_statement",
]);

/** Whether an identifier stands where a name is called: `exit()`, `stack()` from `from inspect import stack`. */
function calledName(n: Node): boolean {
  const p = n.parent;
  return (
    !!p && (p.type === "call" || p.type === "call_expression") && p.childForFieldName("function")?.id === n.id
  );
}

/** Whether a string is compared with something: an operand of `==`/`in`, or the argument of `startswith`... */
function compared(n: Node): boolean {
  let p = n.parent;
  // A tuple or list of names (`name.startswith(("test", "spec"))`) is compared as its items are.
  while (
    p &&
    (p.type === "tuple" || p.type === "array" || p.type === "list" || p.type === "parenthesized_expression")
  )
    p = p.parent;
  if (!p) return false;
  if (p.type === "comparison_operator") return true;
  if (p.type === "binary_expression") {
    const op = p.childForFieldName("operator")?.text ?? "";
    return ["==", "!=", "===", "!==", "in"].includes(op);
  }
  if (p.type !== "argument_list" && p.type !== "arguments") return false;
  const call = p.parent;
  const fn = call?.childForFieldName("function") ?? call?.childForFieldName("name") ?? null;
  const name = fn?.type === "identifier" ? fn.text : (fn?.lastNamedChild?.text ?? fn?.text ?? "");
  return COMPARING_CALLS.has(name);
}

/** An exit where a program is meant to end: `if __name__ == "__main__":`, Go's and Java's `main`, a script. */
function exitAllowed(lang: LanguageId, n: Node, text: string): boolean {
  if (familyOf(lang) === "js") return text.startsWith("#!");
  for (let p = n.parent; p; p = p.parent) {
    if (lang === "python" && p.type === "if_statement") {
      const c = p.childForFieldName("condition")?.text ?? "";
      if (c.includes("__name__") && c.includes("__main__")) return true;
    }
    if (
      (p.type === "function_declaration" ||
        p.type === "method_declaration" ||
        p.type === "function_definition") &&
      p.childForFieldName("name")?.text === "main"
    )
      return true;
  }
  return false;
}

class Walker {
  readonly findings: SourceFinding[] = [];
  readonly literals: SourceScan["literals"] = [];
  private readonly fam: ReturnType<typeof familyOf>;
  readonly testFile: boolean;
  private readonly lang: LanguageId;
  private readonly text: string;
  private readonly aliases: Aliases;

  constructor(lang: LanguageId, path: string, text: string, aliases: Aliases) {
    this.lang = lang;
    this.text = text;
    this.aliases = aliases;
    this.fam = familyOf(lang);
    this.testFile = isTestPath(path);
  }

  add(kind: FindingKind, what: string, n: Node, assigns = false): void {
    if (OUTSIDE_TESTS_ONLY.has(kind) && this.testFile && !assigns) return;
    if (kind === "exit" && exitAllowed(this.lang, n, this.text)) return;
    this.findings.push({ kind, what, line: n.startPosition.row + 1, assigns });
  }

  /** Checks a path at `n`; true when it matched (its parts are then not looked at again). */
  path(n: Node, p: string | null): boolean {
    if (p === null) return false;
    const kind = kindOfPath(this.lang, p);
    if (kind) this.add(kind, p, n);
    return kind !== null;
  }

  /** An assignment (or `setattr`, `Object.defineProperty`) whose target is a test library or the runner. */
  mutation(n: Node, target: Node | null | undefined): void {
    // Binding a plain name changes nothing outside the code; only a member or element does.
    if (!target || target.type === "identifier" || target.type.endsWith("pattern")) return;
    const p = pathOf(this.lang, target, this.aliases);
    if (p === null || !p.includes(".")) return;
    if (!isMutationTarget(this.lang, p)) return;
    this.add(kindOfPath(this.lang, p) ?? (isTestLibraryPath(p) ? "test-library" : "modules"), p, n, true);
  }

  visit(n: Node): boolean {
    const t = n.type;
    if (ASSIGNMENTS.has(t)) {
      const targets = t === "delete_statement" ? n.namedChildren : [n.childForFieldName("left")];
      for (const x of targets) this.mutation(n, x);
    }
    if (t === "call" || t === "call_expression") {
      const f = pathOf(this.lang, n.childForFieldName("function"), this.aliases);
      if (f && MUTATING_CALLS.has(f)) this.mutation(n, callArgs(n)[0]);
      if (f && TEST_LIBRARY_EXTENSIONS.has(f)) this.add("test-library", f, n, true);
    }
    if (PATH_NODES[this.fam].has(t)) return this.path(n, pathOf(this.lang, n, this.aliases));
    if (t === "identifier" && (calledName(n) || this.aliases.has(n.text)) && this.fam !== "go")
      return this.path(n, pathOf(this.lang, n, this.aliases));
    const s = stringValue(n);
    if (s !== null) {
      this.literals.push({ value: s, line: n.startPosition.row + 1 });
      // A docstring or a bare string statement is prose, not a value the code compares.
      const prose = n.parent?.type === "expression_statement";
      if (!prose && isRunnerString(s, { inTest: this.testFile, compared: compared(n) }))
        this.add("runner", JSON.stringify(s), n);
      return true;
    }
    // A regular expression (JavaScript) that looks for the reproducer or the product in a stack or a path.
    if (t === "regex" && isRunnerString(n.text, { inTest: this.testFile, compared: false })) {
      this.add("runner", n.text, n);
      return true;
    }
    if (NUMBER_NODES.has(t)) this.literals.push({ value: n.text, line: n.startPosition.row + 1 });
    return false;
  }
}

/** Scans one version of a file; null when its language is not one the scan reads. */
export async function scanSource(lang: LanguageId, path: string, text: string): Promise<SourceScan> {
  const tree = await parseSource(lang, text);
  try {
    const root = tree.rootNode;
    const { aliases, imports } = collectAliases(lang, root);
    const w = new Walker(lang, path, text, aliases);
    for (const imp of imports) w.path(imp.node, imp.path.replace(/^java\.lang\./, ""));
    const stack: Node[] = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (
        n.type === "import_statement" ||
        n.type === "import_from_statement" ||
        n.type === "import_declaration"
      )
        continue;
      if (n.type === "import_spec" || n.type === "comment") continue;
      if (w.visit(n)) continue;
      const skip = NAME_FIELDS[n.type] ? n.childForFieldName(NAME_FIELDS[n.type]!)?.id : undefined;
      for (let i = n.namedChildCount - 1; i >= 0; i--) {
        const c = n.namedChild(i);
        if (c && c.id !== skip) stack.push(c);
      }
    }
    return { findings: w.findings, literals: w.literals };
  } finally {
    tree.delete();
  }
}
