/**
 * JavaScript check tests, for node --test, mocha, jest and vitest: a test file beside one of the
 * repository's own, named like it, with its imports, its test function and its assertion
 * (`assert.strictEqual` or `assert.equal` as it imports them, `expect(…).toBe`), calling the repository's
 * code the way it does. Without a usable sample (no test file beside, no binding of the runner's test
 * function or an assertion), the file imports what it needs itself and still reads like a test of the
 * repository. What differs between the runners is their `JsFlavour`, given by each runner's folder.
 */
import type { TreeFs } from "../../core/tree-fs.ts";
import type { CanarySource, NoCanaries, SourceInput, Spot, SpotInput } from "../parts/canaries.ts";
import { appended, folderOf, isOption, sampleAt, skipDir } from "./canaries-args.ts";
import {
  type BorrowedCall,
  borrowCall,
  findTestFile,
  type Header,
  pickSample,
  type Sample,
} from "./canaries-sample.ts";

/** How the check tests assert: `<fn>(<value>, <expected>)`, or `expect(<value>).<matcher>(<expected>)`. */
export type Style = { kind: "assert"; fn: string } | { kind: "expect"; name: string; matcher: string };

/** What a JavaScript runner's test files look like, as its check tests copy them. */
export interface JsFlavour {
  /** The module its test functions (`test`, `it`) are imported from; null: none is. */
  testModule: RegExp | null;
  /** `test` and `it` are globals of its test files (no import needed). */
  globalTestFns: boolean;
  /** `expect` is a global of its test files. */
  globalExpect: boolean;
  /** Its check-test file is an ES module always, never, or as the sample is. */
  esm: "always" | "never" | "sample";
  /** The file written when no sample beside it can lend its parts. */
  own: { lines: string[]; style: Style; testFn: string; ext: string };
}

const JS_EXT = /\.[cm]?[jt]sx?$/;
/** A file name the runners take as a test file by its name alone. */
const JS_TEST_NAME = /(\.|_|-)(test|spec)\.[cm]?[jt]sx?$|^test([._-].*)?\.[cm]?[jt]sx?$/;
const ASSERT_MODULE = /^(node:)?assert(\/strict)?$|^chai$/;

function count(text: string, re: RegExp): number {
  return text.match(re)?.length ?? 0;
}

/** The sample's assertion, as its header binds it (or jest's global `expect`). */
function styleOf(flavour: JsFlavour, sample: Sample, header: Header): Style | null {
  const expectBound = header.names.get("expect");
  const usesExpect = /\bexpect\(/.test(sample.text);
  if (usesExpect && (expectBound === "vitest" || expectBound === "@jest/globals"))
    return { kind: "expect", name: "expect", matcher: "toBe" };
  if (usesExpect && flavour.globalExpect && expectBound === undefined)
    return { kind: "expect", name: "expect", matcher: "toBe" };
  for (const [local, module] of header.names) {
    if (!ASSERT_MODULE.test(module) || local === "expect") continue;
    const esc = local.replace(/\$/g, "\\$");
    const methods = ["strictEqual", "equal", "deepStrictEqual", "deepEqual"];
    const counts = methods.map((m) => count(sample.text, new RegExp(`\\b${esc}\\.${m}\\(`, "g")));
    const best = counts.indexOf(Math.max(...counts));
    if (counts[best]! > 0) return { kind: "assert", fn: `${local}.${methods[best]}` };
    if (["strictEqual", "equal"].includes(local)) return { kind: "assert", fn: local };
    if (new RegExp(`\\b${esc}[.(]`).test(sample.text)) return { kind: "assert", fn: `${local}.strictEqual` };
  }
  if (usesExpect && expectBound === "chai") return { kind: "expect", name: "expect", matcher: "to.equal" };
  return null;
}

/** The runner's test function, as the sample has it (bound by its header, or a global of the runner). */
function testFnOf(flavour: JsFlavour, sample: Sample, header: Header): string | null {
  const used = (n: string): boolean => new RegExp(`(^|[^\\w.$])${n}\\(`, "m").test(sample.text);
  for (const n of ["test", "it"]) {
    const bound = header.names.get(n);
    if (bound === undefined) {
      if (flavour.globalTestFns && used(n)) return n;
      continue;
    }
    if (flavour.testModule?.test(bound)) return n;
  }
  return null;
}

function isEsm(tree: TreeFs, sample: Sample, header: Header): boolean {
  if (/\.m[jt]s$/.test(sample.path)) return true;
  if (/\.c[jt]s$/.test(sample.path)) return false;
  if (header.lines.some((l) => /^import[\s{*"']/.test(l.trim()))) return true;
  for (const rel of [`${sample.path.replace(/[^/]*$/, "")}package.json`, "package.json"]) {
    try {
      const pkg = tree.readIfExists(rel.replace(/^\//, ""), { maxBytes: 1024 * 1024 });
      if (pkg) return /"type"\s*:\s*"module"/.test(pkg.toString("utf8"));
    } catch {
      return false;
    }
  }
  return false;
}

/** A name for the canary file like the sample's (`calc.test.js` → `<token>-calc.test.js`). */
function fileName(sample: Sample, token: string): string {
  const base = sample.path.slice(sample.path.lastIndexOf("/") + 1);
  const sep = base.includes("_") && !base.includes("-") ? "_" : "-";
  if (/^test/i.test(base)) return base.replace(/\./, `${sep}${token}.`);
  return `${token}${sep}${base}`;
}

interface Parts {
  lines: string[];
  testFn: string;
  style: Style;
  esm: boolean;
  call: BorrowedCall | null;
  name: string;
  repoName?: string;
  sample?: string;
}

/** What the canary borrows from a sample beside it, or null when nothing usable is there. */
function fromSample(flavour: JsFlavour, input: SourceInput): Parts | null {
  const sample = pickSample(
    input.tree,
    input.dir,
    (n) =>
      JS_EXT.test(n) && (JS_TEST_NAME.test(n) || /(^|\/)(test|tests|__tests__|spec)(\/|$)/.test(input.dir)),
    (text) => text.length > 0,
    input.preferred,
    input.focus,
  );
  if (!sample) return null;
  const header = jsHeader(sample.text);
  const testFn = testFnOf(flavour, sample, header);
  const style = styleOf(flavour, sample, header);
  if (!testFn || !style) return null;
  const ofTree = (m: string): boolean => m.startsWith(".") || m.startsWith("/");
  const call = borrowCall(sample, header, ofTree, "js", input.focus);
  const repoName = [...header.names].find(([, m]) => ofTree(m))?.[0];
  return {
    lines: header.lines,
    testFn,
    style,
    esm: flavour.esm === "always" || (flavour.esm === "sample" && isEsm(input.tree, sample, header)),
    call,
    name: fileName(sample, input.token),
    sample: sample.path,
    ...(repoName ? { repoName } : {}),
  };
}

/** The check tests' own imports and names when no sample can lend them. */
function ownParts(flavour: JsFlavour, token: string): Parts {
  const { lines, style, testFn, ext } = flavour.own;
  return { lines, testFn, style, esm: flavour.esm === "always", call: null, name: `${token}.test.${ext}` };
}

/** The JavaScript check tests of a runner of `flavour` in `input.dir`. */
export function jsCanary(flavour: JsFlavour, input: SourceInput): CanarySource {
  const p = fromSample(flavour, input) ?? ownParts(flavour, input.token);
  const callee = p.call?.text.replace(/\(.*$/s, "").split(".").at(-1) ?? "";
  const subject = p.call?.text ?? p.repoName ?? JSON.stringify(input.other);
  const passName = `${/^\w+$/.test(callee) ? `${callee} ` : ""}${input.token}`;
  const failName = `${passName} ${input.other}`;
  const taken = new Set([...(p.call?.text.match(/[\w$]+/g) ?? [])]);
  const pick = (c: string[]): string => c.find((n) => !taken.has(n)) ?? `${c[0]}_`;
  const value = pick(["result", "value", "actual", "got"]);
  const error = pick(["error", "err", "e"]);
  const awaited = p.call?.awaited ?? false;
  const async = awaited || p.esm;
  const get = awaited ? `await ${subject}` : subject;
  const assertThat = (v: string, expected: string): string =>
    p.style.kind === "assert"
      ? `${p.style.fn}(${v}, ${expected});`
      : `${p.style.name}(${v}).${p.style.matcher}(${expected});`;
  const proofText = JSON.stringify(`${input.proofValue}\n`);
  const proof = p.esm
    ? `(await import("node:fs")).appendFileSync(new URL(${JSON.stringify(`./${input.proofName}`)}, import.meta.url), ${proofText});`
    : `require("node:fs").appendFileSync(require("node:path").join(__dirname, ${JSON.stringify(input.proofName)}), ${proofText});`;
  const fn = async ? "async () =>" : "() =>";
  const lines = [...p.lines];
  while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
  lines.push(
    "",
    `${p.testFn}(${JSON.stringify(passName)}, ${fn} {`,
    `  let ${value};`,
    "  try {",
    `    ${value} = ${get};`,
    `  } catch (${error}) {`,
    `    ${value} = ${error};`,
    "  }",
    `  ${proof}`,
    `  ${assertThat(value, value)}`,
    "});",
    "",
    `${p.testFn}(${JSON.stringify(failName)}, ${awaited ? "async () =>" : "() =>"} {`,
    `  ${assertThat(get, JSON.stringify(input.impossible))}`,
    "});",
    "",
  );
  return {
    name: p.name,
    text: lines.join("\n"),
    passName,
    failName,
    ...(p.sample ? { sample: p.sample } : {}),
  };
}

/** A JS header: the leading import and require statements, or null when anything else comes first. */
function jsHeader(text: string): Header {
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

/** A JavaScript check-test file's folder: beside `arg` when it is a file, in it when a folder, else at the root. */
export function jsSpot(tree: TreeFs, arg: string | null | undefined): { dirs: string[]; sample?: string } {
  const d = arg ? folderOf(tree, arg) : null;
  return { dirs: [d ?? ""], ...sampleAt(tree, arg) };
}

/** A targeted run's check tests: one more file given beside its first target. */
export function targetedJsSpot(tree: TreeFs, targets: readonly string[]): Spot {
  return {
    ...jsSpot(
      tree,
      targets.find((t) => !isOption(t)),
    ),
    args: appended,
  };
}

/** How jest or vitest is told apart from its configuration, and the files it takes by its default rules. */
export interface DefaultRules {
  /** The runner's name as the run's note gives it. */
  label: string;
  /** Its configuration files at the root. */
  configs: RegExp;
  /** The key of `package.json` that configures it, if any. */
  packageKey?: string;
  /** Whether the settings under `packageKey` may decide which files it takes (default: any setting does). */
  packageDecides?: (settings: unknown) => boolean;
  /** The test files it takes with no configuration. */
  testFile: RegExp;
}

/**
 * Whether `package.json` at the root holds `key` with settings that may decide which files the runner
 * takes (unreadable or not JSON: it may).
 */
function packageDecides(tree: TreeFs, key: string, decides: (settings: unknown) => boolean): boolean {
  try {
    const pkg = JSON.parse(
      tree.readIfExists("package.json", { maxBytes: 4 * 1024 * 1024 })?.toString("utf8") ?? "{}",
    ) as Record<string, unknown>;
    return pkg !== null && typeof pkg === "object" && key in pkg && decides(pkg[key]);
  } catch {
    return true;
  }
}

/**
 * A runner that takes the test files its configuration or default rules name (jest, vitest): no check
 * tests when a configuration decides; else a file named like its test files is one of them: a targeted
 * run is given it as one more file, a whole-suite run finds it (beside one of the repository's test
 * files, named alike).
 */
export function defaultRulesSpot(input: SpotInput, rules: DefaultRules): Spot | NoCanaries {
  const { tree, targets, focus } = input;
  const config = tree
    .list("")
    .map((e) => e.name)
    .find((n) => rules.configs.test(n));
  const decides = rules.packageDecides ?? (() => true);
  if (config || (rules.packageKey !== undefined && packageDecides(tree, rules.packageKey, decides)))
    return {
      unverified: `${rules.label}'s configuration (${config ?? "package.json"}) decides which test files it takes`,
    };
  if (targets) return targetedJsSpot(tree, targets);
  return {
    ...jsSpot(
      tree,
      findTestFile(tree, (r) => rules.testFile.test(r), skipDir, "", focus),
    ),
    args: () => [],
  };
}

/** Whether the summary lines `re` matches (its first group a count) are there and each counts one. */
export function countsOne(output: string, re: RegExp): boolean {
  const all = [...output.matchAll(re)];
  return all.length > 0 && all.every((m) => m[1] === "1");
}
