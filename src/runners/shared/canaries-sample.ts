/**
 * What check tests borrow from one of the repository's own test files (their "sample"): the statements
 * that bind the code it tests (imports), a call of that code whose arguments are plain literals, and its
 * naming. The check tests then call the repository's code the way that test does and assert the way it
 * does, under a name that reads like its siblings, so a stub that spares them has nothing to go by that
 * it could not also see in the repository's tests.
 *
 * The borrowing is textual and conservative: a sample whose header could skip or end its module is not
 * used, and a call is borrowed only when every argument is a literal (no fixture, local or global of the
 * test is needed). Without a usable sample the check tests still use the repository's naming and their
 * runner's usual assertion, only without a call of its code. Shared by every language's sources.
 */
import { posix } from "node:path";
import { isVirtualEnvMarker } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { Focus } from "../parts/canaries.ts";

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

const MAX_SAMPLE_BYTES = 256 * 1024;

export function readText(tree: TreeFs, rel: string): string | null {
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

/** Whether a module a test imports (`calc.ops`, `../src/calc.js`) is one of the changed files. */
export function isChangedModule(focus: Focus, module: string, from: string): boolean {
  const strip = (f: string): string =>
    f.replace(/(\/__init__|\/index)?\.[cm]?[jt]sx?$|(\/__init__)?\.py$/, "");
  if (module.startsWith(".") && /[/]/.test(module)) {
    const at = strip(posix.normalize(posix.join(posix.dirname(from), module)));
    return focus.files.some((f) => strip(f) === at);
  }
  const dotted = module.replace(/^\.+/, "");
  return focus.files.some((f) => {
    const m = strip(f).replaceAll("/", ".");
    return m === dotted || m.endsWith(`.${dotted}`);
  });
}
