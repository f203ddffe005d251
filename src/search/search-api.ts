import type { CodeIndex, SymbolHit } from "../index/code-index.ts";
import type { FileRecord } from "../index/types.ts";
import {
  enclosingAt,
  findAncestorMethod,
  findCallables,
  findClasses,
  methodsOf,
  similarNames,
} from "../index/lookup.ts";
import { codeAroundLine, enclosingLines, searchCode } from "./code-search.ts";
import { filesNamedIn } from "./focus.ts";
import {
  classSignature,
  DISPLAY_LIMIT,
  numbered,
  plural,
  renderMatches,
  type SearchMatch,
  type ShownMatch,
} from "./format.ts";

/** The search APIs the model may call: name, parameters (in order) and what each does. */
export const API_SPECS = [
  {
    name: "search_class",
    params: ["class_name"],
    description:
      "Find classes (also interfaces, enums, records, Go types) by name; shows each one's signature: header, attributes and method signatures.",
  },
  {
    name: "search_class_in_file",
    params: ["class_name", "file_name"],
    description: "Find a class by name in one file; shows its full code.",
  },
  {
    name: "search_method",
    params: ["method_name"],
    description: "Find functions and methods by name anywhere in the repository; shows their full code.",
  },
  {
    name: "search_method_in_class",
    params: ["method_name", "class_name"],
    description:
      "Find a method of a class; when the class does not define it, the nearest ancestor's definition is shown.",
  },
  {
    name: "search_method_in_file",
    params: ["method_name", "file_name"],
    description: "Find functions and methods by name in one file; shows their full code.",
  },
  {
    name: "search_code",
    params: ["code_str"],
    description:
      "Find a literal piece of code (not a regex) anywhere in the repository; shows each hit in context.",
  },
  {
    name: "search_code_in_file",
    params: ["code_str", "file_name"],
    description: "Find a literal piece of code (not a regex) in one file; shows each hit in context.",
  },
  {
    name: "get_code_around_line",
    params: ["file_name", "line_number", "window_size"],
    description: "Show lines line_number - window_size .. line_number + window_size of a file.",
  },
] as const satisfies readonly { name: string; params: readonly string[]; description: string }[];

export type ApiName = (typeof API_SPECS)[number]["name"];

/** What one API call returns: the text the model sees and every match (not cut to the display limit). */
export interface SearchResult {
  ok: boolean;
  text: string;
  results: SearchMatch[];
}

export interface SearchOptions {
  /** Search test files too (by default they are left out). */
  includeTests?: boolean;
}

const CALLABLE_KINDS: ReadonlySet<string> = new Set(["method", "function"]);
const CLASS_KINDS: ReadonlySet<string> = new Set(["class"]);

function fail(text: string): SearchResult {
  return { ok: false, text, results: [] };
}

/** The eight search APIs over one CodeIndex. */
const OPENERS: Record<string, string> = { ")": "(", ">": "<", "]": "[" };

/**
 * A name as models write it (`save()`, `Repository<T>`, `List[int]`) without its trailing bracketed
 * part: cut at the first opener of the bracket that ends the name. One pass, no backtracking.
 */
export function plainName(v: string): string {
  const t = v.trimEnd();
  const opener = OPENERS[t[t.length - 1] ?? ""];
  if (!opener) return t;
  const k = t.indexOf(opener);
  if (k < 0 || k === t.length - 1) return t;
  return t.slice(0, k).trimEnd();
}

export class SearchApis {
  readonly index: CodeIndex;
  readonly includeTests: boolean;
  /** Files named in the issue or shown earlier: their hits are shown first. */
  readonly focus = new Set<string>();

  constructor(index: CodeIndex, opts: SearchOptions = {}) {
    this.index = index;
    this.includeTests = opts.includeTests ?? false;
  }

  /** Files that `text` (the issue, a traceback) names go first in later search results. */
  noteText(text: string): void {
    for (const f of filesNamedIn(this.index, text)) this.focus.add(f);
  }

  /** Runs one API by name. Unknown names and wrong argument counts give ok:false with the reason. */
  async call(name: string, args: readonly (string | number)[]): Promise<SearchResult> {
    const spec = API_SPECS.find((s) => s.name === name);
    if (!spec) {
      return fail(
        `Unknown search API \`${name}\`. The available APIs are: ${API_SPECS.map((s) => `${s.name}(${s.params.join(", ")})`).join(", ")}.`,
      );
    }
    if (args.length !== spec.params.length) {
      return fail(
        `${name} takes ${plural(spec.params.length, "argument")} (${spec.params.join(", ")}), but ${args.length} ${args.length === 1 ? "was" : "were"} given.`,
      );
    }
    const s = (i: number): string => {
      const v = String(args[i] ?? "").trim();
      // Names as models write them: `save()`, `Repository<T>`, `List[int]` mean the plain name.
      return /_name$/.test(spec.params[i] ?? "") && !/^file/.test(spec.params[i] ?? "")
        ? plainName(v.replace(/^(?:def|class|func|function)\s+/, ""))
        : v;
    };
    for (let i = 0; i < args.length; i++) {
      if (s(i) === "" && spec.params[i] !== "window_size") {
        return fail(`${name}: the argument ${spec.params[i]} is empty.`);
      }
    }
    try {
      switch (name as ApiName) {
        case "search_class":
          return await this.searchClass(s(0));
        case "search_class_in_file":
          return await this.searchClassInFile(s(0), s(1));
        case "search_method":
          return await this.searchMethod(s(0));
        case "search_method_in_class":
          return await this.searchMethodInClass(s(0), s(1));
        case "search_method_in_file":
          return await this.searchMethodInFile(s(0), s(1));
        case "search_code":
          return await searchCode(this.index, String(args[0]), null, this.includeTests, this.focus);
        case "search_code_in_file":
          return await this.inFile(s(1), (file) => searchCode(this.index, String(args[0]), file, true));
        case "get_code_around_line":
          return await this.inFile(s(0), (file) => codeAroundLine(this.index, file, args[1]!, args[2]!));
      }
    } catch (err) {
      return fail(`${name} failed: ${(err as Error).message}`);
    }
    return fail(`Unknown search API \`${name}\`.`);
  }

  private async inFile(arg: string, run: (file: string) => Promise<SearchResult>): Promise<SearchResult> {
    const r = this.index.resolveFile(arg);
    if (r.ok) return run(r.file);
    // Files the index does not parse (configs, docs) may still be read by exact path.
    if (r.reason === "not-found" && (await this.index.readText(arg.replace(/^\.\//, ""))) !== null) {
      return run(arg.replace(/^\.\//, ""));
    }
    return fail(r.message);
  }

  private async shownCode(hit: SymbolHit): Promise<ShownMatch> {
    const lines = (await this.index.readLines(hit.file.path)) ?? [];
    return { ...matchOf(hit), code: numbered(lines, hit.sym.start, hit.sym.end) };
  }

  private async searchClass(name: string): Promise<SearchResult> {
    const { hits, usedName } = findClasses(this.index, name, this.includeTests);
    if (hits.length === 0) return this.classNotFound(name, null);
    const shown: ShownMatch[] = [];
    for (const h of hits.slice(0, 3))
      shown.push({ ...matchOf(h), code: await classSignature(this.index, h) });
    const note = usedName !== name ? ` (no class is named \`${name}\`; searched for \`${usedName}\`)` : "";
    const text = renderMatches(
      `Found ${plural(hits.length, "class", "classes")} named \`${usedName}\`${note}, shown as signatures (use search_class_in_file for the full code)`,
      shown,
      matchesOf(hits),
      "Use search_class_in_file(class_name, file_name) to see one of them.",
    );
    return { ok: true, text, results: matchesOf(hits) };
  }

  private async searchClassInFile(name: string, fileArg: string): Promise<SearchResult> {
    const r = this.index.resolveFile(fileArg);
    if (!r.ok) return fail(r.message);
    const { hits } = findClasses(this.index, name, true);
    const inFile = hits.filter((h) => h.file.path === r.file);
    if (inFile.length === 0) return this.classNotFound(name, r.file);
    const shown = await Promise.all(inFile.slice(0, 3).map((h) => this.shownCode(h)));
    const text = renderMatches(
      `Found ${plural(inFile.length, "class", "classes")} named \`${name}\` in ${r.file}`,
      shown,
      matchesOf(inFile),
      "",
    );
    return { ok: true, text, results: matchesOf(inFile) };
  }

  private async classNotFound(name: string, file: string | null): Promise<SearchResult> {
    const where = file ? `in ${file}` : "in the repository";
    const parts = [`Could not find a class named \`${name}\` ${where}.`];
    if (file) {
      const elsewhere = findClasses(this.index, name, this.includeTests).hits.map((h) => h.file.path);
      if (elsewhere.length > 0)
        parts.push(`It is defined in: ${[...new Set(elsewhere)].slice(0, 5).join(", ")}.`);
    } else if (!this.includeTests) {
      const inTests = findClasses(this.index, name, true).hits.filter((h) => h.file.isTest);
      if (inTests.length > 0) {
        parts.push(
          `It exists only in test files (${[...new Set(inTests.map((h) => h.file.path))].slice(0, 5).join(", ")}), which are not searched.`,
        );
      }
    }
    const similar = similarNames(this.index, name, CLASS_KINDS, this.includeTests);
    if (similar.length > 0) parts.push(`Classes with similar names: ${similar.join(", ")}.`);
    parts.push(
      `Try search_code("${name}") to find where the name appears, or search_method("${name}") if it is a function.`,
    );
    return fail(parts.join(" "));
  }

  private async searchMethod(name: string): Promise<SearchResult> {
    const dot = name.lastIndexOf(".");
    let hits = findCallables(this.index, name, this.includeTests);
    if (hits.length === 0 && dot > 0) {
      const r = await this.searchMethodInClass(name.slice(dot + 1), name.slice(0, dot));
      if (r.ok) return r;
    }
    if (hits.length === 0) return this.methodNotFound(name, null, null);
    hits = hits.slice();
    const shown = await Promise.all(hits.slice(0, 3).map((h) => this.shownCode(h)));
    const text = renderMatches(
      `Found ${plural(hits.length, "function or method", "functions or methods")} named \`${name}\``,
      shown,
      matchesOf(hits),
      "Use search_method_in_file(method_name, file_name) or search_method_in_class(method_name, class_name) to see one of them.",
    );
    return { ok: true, text, results: matchesOf(hits) };
  }

  private async searchMethodInClass(method: string, className: string): Promise<SearchResult> {
    const { hits: classes } = findClasses(this.index, className, this.includeTests);
    if (classes.length === 0) {
      const r = await this.classNotFound(className, null);
      return fail(`${r.text} (looked for method \`${method}\` in it)`);
    }
    const direct: SymbolHit[] = [];
    for (const c of classes) direct.push(...methodsOf(this.index, c).filter((m) => m.sym.name === method));
    if (direct.length > 0) {
      const shown = await Promise.all(direct.slice(0, 3).map((h) => this.shownCode(h)));
      const text = renderMatches(
        `Found ${plural(direct.length, "method")} \`${method}\` in class \`${className}\``,
        shown,
        matchesOf(direct),
        "Use search_method_in_file(method_name, file_name) to see one of them.",
      );
      return { ok: true, text, results: matchesOf(direct) };
    }
    for (const c of classes) {
      const inherited = findAncestorMethod(this.index, c, method, this.includeTests);
      if (inherited) {
        const shown = await this.shownCode(inherited.method);
        const text = renderMatches(
          `Class \`${className}\` (${c.file.path}) does not define \`${method}\`; it inherits it from \`${inherited.owner.sym.qualName}\``,
          [shown],
          [matchOf(inherited.method)],
          "",
        );
        return { ok: true, text, results: [matchOf(inherited.method)] };
      }
    }
    // Not in the class or an ancestor the index resolves (a base from a package, a mixin made at run
    // time): a few definitions of the name elsewhere are shown with their code, not only named.
    const elsewhere = findCallables(this.index, method, this.includeTests);
    if (elsewhere.length > 0 && elsewhere.length <= DISPLAY_LIMIT) {
      const shown = await Promise.all(elsewhere.map((h) => this.shownCode(h)));
      const bases = [...new Set(classes.flatMap((c) => c.sym.bases))];
      const text = renderMatches(
        `Class \`${className}\` does not define \`${method}\`, and no ancestor the index resolves does${bases.length > 0 ? ` (its bases: ${bases.join(", ")})` : ""}; these ${plural(elsewhere.length, "definition")} of \`${method}\` elsewhere may be the one it uses`,
        shown,
        matchesOf(elsewhere),
        "",
      );
      return { ok: true, text, results: matchesOf(elsewhere) };
    }
    return this.methodNotFound(method, className, null);
  }

  private async searchMethodInFile(method: string, fileArg: string): Promise<SearchResult> {
    const r = this.index.resolveFile(fileArg);
    if (!r.ok) return fail(r.message);
    let name = method;
    let hits = findCallables(this.index, name, true).filter((h) => h.file.path === r.file);
    const dot = method.lastIndexOf(".");
    if (hits.length === 0 && dot > 0) {
      name = method.slice(dot + 1);
      hits = findCallables(this.index, name, true).filter((h) => h.file.path === r.file);
    }
    if (hits.length === 0) return this.methodNotFound(method, null, r.file);
    const shown = await Promise.all(hits.slice(0, 3).map((h) => this.shownCode(h)));
    const text = renderMatches(
      `Found ${plural(hits.length, "function or method", "functions or methods")} named \`${name}\` in ${r.file}`,
      shown,
      matchesOf(hits),
      "Use search_method_in_class(method_name, class_name) to pick one of them.",
    );
    return { ok: true, text, results: matchesOf(hits) };
  }

  private methodNotFound(method: string, className: string | null, file: string | null): SearchResult {
    const where = className
      ? `in class \`${className}\` or its ancestors`
      : file
        ? `in ${file}`
        : "in the repository";
    const parts = [`Could not find a function or method named \`${method}\` ${where}.`];
    if (className || file) {
      const elsewhere = findCallables(this.index, method, this.includeTests);
      if (elsewhere.length > 0) {
        const names = elsewhere.slice(0, 5).map((h) => `${h.sym.qualName} (${h.file.path})`);
        parts.push(`It is defined elsewhere: ${names.join(", ")}.`);
      }
    } else if (!this.includeTests) {
      const inTests = findCallables(this.index, method, true).filter((h) => h.file.isTest);
      if (inTests.length > 0) {
        parts.push(
          `It exists only in test files (${[...new Set(inTests.map((h) => h.file.path))].slice(0, 5).join(", ")}), which are not searched.`,
        );
      }
    }
    const similar = similarNames(this.index, method, CALLABLE_KINDS, this.includeTests);
    if (similar.length > 0) parts.push(`Functions or methods with similar names: ${similar.join(", ")}.`);
    parts.push(
      `Try search_code("${method}") to find where the name appears (e.g. an attribute or a dynamic definition).`,
    );
    return fail(parts.join(" "));
  }
}

/** The JSON form of a symbol match. */
/**
 * matchOf for many hits: the enclosing class of plain functions is found for all of a file's hits in
 * one sweep (a file of thousands of same-named functions costs their number, not its square).
 */
export function matchesOf(hits: readonly SymbolHit[]): SearchMatch[] {
  const lines = new Map<FileRecord, number[]>();
  for (const h of hits) {
    if (h.sym.kind === "class" || h.sym.kind === "method") continue;
    const list = lines.get(h.file);
    if (list) list.push(h.sym.start);
    else lines.set(h.file, [h.sym.start]);
  }
  const enclosing = new Map<FileRecord, Map<number, { className: string | null }>>();
  for (const [file, starts] of lines) enclosing.set(file, enclosingLines(file.symbols, starts));
  return hits.map((hit) => {
    const s = hit.sym;
    if (s.kind === "class" || s.kind === "method") return matchOf(hit);
    const cls = enclosing.get(hit.file)?.get(s.start)?.className ?? null;
    return { file: hit.file.path, class: cls, method: s.name, start: s.start, end: s.end };
  });
}

export function matchOf(hit: SymbolHit): SearchMatch {
  const s = hit.sym;
  if (s.kind === "class")
    return { file: hit.file.path, class: s.qualName, method: null, start: s.start, end: s.end };
  const cls = s.kind === "method" ? s.className : enclosingAt(hit.file, s.start).className;
  return { file: hit.file.path, class: cls, method: s.name, start: s.start, end: s.end };
}
