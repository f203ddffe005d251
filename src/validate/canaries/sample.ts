/**
 * What a canary borrows from one of the repository's own test files (its "sample"): the statements that
 * bind the code it tests (imports), a call of that code whose arguments are plain literals, and its
 * naming. The canary then calls the repository's code the way that test does and asserts the way it
 * does, under a name that reads like its siblings, so a stub that spares the canaries has nothing to go
 * by that it could not also see in the repository's tests.
 *
 * The borrowing is textual and conservative: a sample whose header could skip or end its module is not
 * used, and a call is borrowed only when every argument is a literal (no fixture, local or global of the
 * test is needed). Without a usable sample the canary still uses the repository's naming and its
 * runner's usual assertion, only without a call of its code.
 */
import { randomInt } from "node:crypto";
import { posix } from "node:path";
import { isVirtualEnvMarker } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import { type Focus, isChangedModule } from "./focus.ts";

/** A test file of the repository the canaries imitate. */
export interface Sample {
  /** Relative to the tree's root. */
  path: string;
  text: string;
}

/** A call of the repository's code, borrowed from a sample. */
export interface BorrowedCall {
  /** The call, as the sample spells it (`add(2, 3)`, `calc.Ops().mul(1, 2)`). */
  text: string;
  /** The name its callee is bound to by the sample's header (`add`, `calc`). */
  root: string;
  /** The sample awaits it. */
  awaited: boolean;
}

/** The leading statements of a sample that bind what its tests use, and the names they bind. */
export interface Header {
  lines: string[];
  /** Every name the header binds, with the module it comes from. */
  names: Map<string, string>;
}

const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";

/** A fresh lowercase word of `syllables` syllables (`kavelomi`): random, pronounceable, unmarked. */
export function word(syllables = 4): string {
  let w = "";
  for (let i = 0; i < syllables; i++) w += CONSONANTS[randomInt(CONSONANTS.length)]! + VOWELS[randomInt(5)]!;
  return w;
}

const MAX_SAMPLE_BYTES = 256 * 1024;

function readText(tree: TreeFs, rel: string): string | null {
  try {
    return tree.readIfExists(rel, { maxBytes: MAX_SAMPLE_BYTES })?.toString("utf8") ?? null;
  } catch (err) {
    if (err instanceof TreeFsError) return null;
    throw err;
  }
}

/**
 * A test file of `dir` whose name `accept` takes: `preferred` when it is one, else the first by name that
 * `usable` takes (its text read, at most 256 KiB).
 */
export function pickSample(
  tree: TreeFs,
  dir: string,
  accept: (name: string) => boolean,
  usable: (text: string) => boolean,
  preferred?: string,
  focus?: Focus,
): Sample | null {
  const tried: string[] = [];
  if (preferred && posix.dirname(preferred) === (dir || ".") && accept(posix.basename(preferred)))
    tried.push(preferred);
  let names: string[] = [];
  try {
    names = tree
      .list(dir)
      .filter((e) => e.kind === "file" && accept(e.name))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
  }
  for (const n of names.slice(0, 20)) tried.push(dir ? `${dir}/${n}` : n);
  let first: Sample | null = null;
  for (const path of tried) {
    const text = readText(tree, path);
    if (text === null || !usable(text)) continue;
    // A test that names a changed definition first: the canaries then call the code the patch changed.
    if (path === preferred || !focus || mentions(text, focus)) return { path, text };
    first ??= { path, text };
  }
  return first;
}

/** Whether `text` names one of the focus's changed definitions. */
export function mentions(text: string, focus: Focus): boolean {
  for (const n of focus.names)
    if (n.length > 2 && new RegExp(`(?<![\\w$])${n.replace(/\$/g, "\\$")}\\(`).test(text)) return true;
  return false;
}

/**
 * A file the runner takes by `accept` under the folder `under` ("" = the root): the first by path of a
 * bounded walk that skips hidden folders, those `skip` names and virtual environments.
 */
export function findTestFile(
  tree: TreeFs,
  accept: (rel: string) => boolean,
  skip: (name: string) => boolean,
  under = "",
  focus?: Focus,
): string | null {
  const inside = (rel: string): boolean =>
    under === "" || rel === under || rel.startsWith(`${under}/`) || under.startsWith(`${rel}/`);
  try {
    const { entries } = tree.walk({
      maxDepth: 8,
      maxEntries: 20_000,
      descend: (rel, name) => !name.startsWith(".") && !skip(name) && inside(rel),
      keep: (_rel, listing) => !listing.some((e) => isVirtualEnvMarker(e.name, e.kind)),
    });
    const hits = entries
      .filter((e) => e.kind === "file" && accept(e.rel) && (under === "" || e.rel.startsWith(`${under}/`)))
      .map((e) => e.rel)
      .sort();
    if (focus && focus.names.size > 0)
      for (const rel of hits.slice(0, 50)) {
        const text = readText(tree, rel);
        if (text !== null && mentions(text, focus)) return rel;
      }
    return hits[0] ?? null;
  } catch (err) {
    if (err instanceof TreeFsError) return null;
    throw err;
  }
}

/** A Python header: the import statements and what they bind, or null when the module could skip. */
export function pythonHeader(text: string): Header | null {
  const all = text.split(/\r?\n/);
  const end = all.findIndex((l) => /^(def |async def |class |@|if __name__)/.test(l));
  const lines = all.slice(0, end < 0 ? all.length : end);
  // A module-level skip, a mark, a collection hook or an exit would act on the canaries' module too.
  if (
    lines.length > 300 ||
    /skip|pytestmark|xfail|collect_ignore|__test__|exit\(|unittest\.main|setUpModule|load_tests/.test(
      lines.join("\n"),
    )
  )
    return null;
  const names = new Map<string, string>();
  const joined = lines.join("\n").replace(/\(([^)]*)\)/g, (_m, inner: string) => inner.replace(/\n/g, " "));
  for (const stmt of joined.split("\n")) {
    const from = /^from\s+(\S+)\s+import\s+(.+)$/.exec(stmt);
    if (from) {
      for (const part of from[2]!.replace(/#.*$/, "").split(",")) {
        const m = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (m) names.set(m[2] ?? m[1]!, from[1]!);
      }
      continue;
    }
    const imp = /^import\s+(.+)$/.exec(stmt);
    if (imp) {
      for (const part of imp[1]!.replace(/#.*$/, "").split(",")) {
        const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (m) names.set(m[2] ?? m[1]!.split(".")[0]!, m[1]!);
      }
    }
  }
  return { lines, names };
}

/** Whether a Python module is the repository's own: relative, or a package or module of the tree. */
export function pythonModuleOfTree(tree: TreeFs, dir: string, module: string): boolean {
  if (module.startsWith(".")) return true;
  const top = module.split(".")[0]!;
  for (const base of ["", "src", "lib", dir]) {
    for (const rel of [`${top}/__init__.py`, `${top}.py`]) {
      const p = base ? `${base}/${rel}` : rel;
      if (readText(tree, p) !== null) return true;
    }
  }
  return false;
}

/** A JS header: the leading import and require statements, or null when anything else comes first. */
export function jsHeader(text: string): Header {
  const names = new Map<string, string>();
  const lines: string[] = [];
  const src = text.split(/\r?\n/);
  let i = 0;
  while (i < src.length) {
    const line = src[i]!;
    const t = line.trim();
    if (t === "" || t.startsWith("//") || /^["']use strict["'];?$/.test(t)) {
      lines.push(line);
      i++;
      continue;
    }
    if (t.startsWith("/*")) {
      let j = i;
      while (j < src.length && !src[j]!.includes("*/")) j++;
      lines.push(...src.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const isImport = /^import[\s{*"']/.test(t) && !/^import\s*\(/.test(t);
    const isRequire = /^(const|let|var)\s/.test(t);
    if (!isImport && !isRequire) break;
    // The statement runs to the line that closes its braces and names its module.
    let j = i;
    let stmt = line;
    const done = (s: string): boolean =>
      (s.match(/[{(]/g)?.length ?? 0) <= (s.match(/[})]/g)?.length ?? 0) &&
      (isImport ? /["'][^"']+["']\s*;?\s*$/.test(s) : true);
    while (!done(stmt) && j + 1 < src.length && j - i < 40) stmt += `\n${src[++j]}`;
    const flat = stmt.replace(/\s+/g, " ");
    const spec = isImport
      ? /from\s*["']([^"']+)["']|^import\s*["']([^"']+)["']/.exec(flat)
      : /=\s*(?:await\s+)?require\(\s*["']([^"']+)["']\s*\)(?:\.\w+)*\s*;?\s*$/.exec(flat);
    if (!spec) break;
    const module = spec[1] ?? spec[2]!;
    const bindings = isImport
      ? (/^import\s+(?:type\s+)?(.*?)\s*from/.exec(flat)?.[1] ?? "")
      : (/^(?:const|let|var)\s+(.*?)\s*=/.exec(flat)?.[1] ?? "");
    for (const [name] of bindingNames(bindings)) names.set(name, module);
    lines.push(...src.slice(i, j + 1));
    i = j + 1;
  }
  return { lines, names };
}

/** The names a binding list declares: `a`, `* as a`, `{ a, b as c }` / `{ a, b: c }`, `a, { b }`. */
function bindingNames(list: string): Map<string, string> {
  const out = new Map<string, string>();
  const braces = /\{([^}]*)\}/.exec(list);
  for (const part of braces?.[1]?.split(",") ?? []) {
    const m = /^\s*(?:type\s+)?(\w+)(?:\s*(?:as|:)\s*(\w+))?\s*$/.exec(part);
    if (m) out.set(m[2] ?? m[1]!, m[1]!);
  }
  const rest = list.replace(/\{[^}]*\}/, "").split(",");
  for (const part of rest) {
    const m = /^\s*(?:\*\s+as\s+)?(\w+)\s*$/.exec(part);
    if (m) out.set(m[1]!, "default");
  }
  return out;
}

/** Whether `args` holds literals alone: numbers, strings, booleans, null-likes, lists, tuples, maps. */
function literalArgs(args: string, words: RegExp): boolean {
  if (args.length > 200) return false;
  const rest = args
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, " ")
    .replace(words, " ")
    .replace(/\b0[xob][0-9a-f_]+\b/gi, " ")
    .replace(/(?<![\w.])\d[\d_]*(\.\d+)?(e[+-]?\d+)?j?n?\b/gi, " ");
  return /^[\s,+\-[\](){}:.]*$/.test(rest) && !/`/.test(args);
}

/** The text of a balanced call's arguments starting after `(` at `open`, or null (a string cut short). */
function argsAt(text: string, open: number): string | null {
  let depth = 1;
  let quote: string | null = null;
  for (let i = open; i < text.length && i - open < 400; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      else if (c === "\n") return null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return c === ")" ? text.slice(open, i) : null;
    }
  }
  return null;
}

/**
 * A call of code the header binds from the repository (`ofTree` says which modules are), whose
 * arguments are literals: the first on a line that asserts, else the first anywhere past the header.
 */
export function borrowCall(
  sample: Sample,
  header: Header,
  ofTree: (module: string) => boolean,
  language: "python" | "js",
  focus?: Focus,
): BorrowedCall | null {
  const roots = [...header.names].filter(([, m]) => ofTree(m)).map(([n]) => n);
  if (roots.length === 0) return null;
  const words = language === "python" ? /\b(True|False|None)\b/g : /\b(true|false|null|undefined)\b/g;
  const body = sample.text.split(/\r?\n/).slice(header.lines.length).join("\n");
  const alt = roots.map((r) => r.replace(/\$/g, "\\$")).join("|");
  const re = new RegExp(`(?<![\\w.$])(await\\s+)?((?:${alt})(?:\\.\\w+|\\(\\))*)\\(`, "g");
  let best: BorrowedCall | null = null;
  let bestScore = -1;
  for (const m of body.matchAll(re)) {
    const open = m.index + m[0].length;
    const args = argsAt(body, open);
    if (args === null || !literalArgs(args, words)) continue;
    const lineStart = body.lastIndexOf("\n", m.index) + 1;
    const line = body.slice(lineStart, body.indexOf("\n", open) < 0 ? undefined : body.indexOf("\n", open));
    // A callee that is the line's own definition (`def add(`, `function add(`) is not a call.
    if (/^\s*(def|class|function|async\s+function)\b/.test(line)) continue;
    const call: BorrowedCall = {
      text: `${m[2]}(${args.replace(/\s*\n\s*/g, " ")})`,
      root: m[2]!.split(/[.(]/)[0]!,
      awaited: m[1] !== undefined,
    };
    // A call of a changed definition first, then one of a changed module, then one a test asserts on.
    const callee = m[2]!.replace(/\(\)/g, "").split(".");
    let score = /\bassert|\bexpect\(/.test(line) ? 1 : 0;
    if (focus) {
      if (callee.some((n) => focus.names.has(n))) score += 4;
      else if (isChangedModule(focus, header.names.get(call.root) ?? "", sample.path)) score += 2;
    }
    if (score > bestScore) {
      best = call;
      bestScore = score;
    }
  }
  return best;
}
