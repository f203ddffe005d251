/**
 * node --test's, mocha's, jest's and vitest's canaries: a test file beside one of the repository's own,
 * named like it, with its imports, its test function and its assertion (`assert.strictEqual` or
 * `assert.equal` as it imports them, `expect(…).toBe`), calling the repository's code the way it does.
 * Without a usable sample (no test file beside, no binding of the runner's test function or an
 * assertion), the canary imports what it needs itself and still reads like a test of the repository.
 */
import type { TestRunnerKind } from "../../config/index.ts";
import type { CanarySource, SourceInput } from "./python.ts";
import { type BorrowedCall, borrowCall, type Header, jsHeader, pickSample, type Sample } from "./sample.ts";

type JsRunner = Extract<TestRunnerKind, "node-test" | "mocha" | "jest" | "vitest">;

const JS_EXT = /\.[cm]?[jt]sx?$/;
/** A file name the runners take as a test file by its name alone. */
const JS_TEST_NAME = /(\.|_|-)(test|spec)\.[cm]?[jt]sx?$|^test([._-].*)?\.[cm]?[jt]sx?$/;
const ASSERT_MODULE = /^(node:)?assert(\/strict)?$|^chai$/;

/** How the canary asserts: `<fn>(<value>, <expected>)`, or `expect(<value>).<matcher>(<expected>)`. */
type Style = { kind: "assert"; fn: string } | { kind: "expect"; name: string; matcher: string };

function count(text: string, re: RegExp): number {
  return text.match(re)?.length ?? 0;
}

/** The sample's assertion, as its header binds it (or jest's global `expect`). */
function styleOf(runner: JsRunner, sample: Sample, header: Header): Style | null {
  const expectBound = header.names.get("expect");
  const usesExpect = /\bexpect\(/.test(sample.text);
  if (usesExpect && (expectBound === "vitest" || expectBound === "@jest/globals"))
    return { kind: "expect", name: "expect", matcher: "toBe" };
  if (usesExpect && runner === "jest" && expectBound === undefined)
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
function testFnOf(runner: JsRunner, sample: Sample, header: Header): string | null {
  const used = (n: string): boolean => new RegExp(`(^|[^\\w.$])${n}\\(`, "m").test(sample.text);
  for (const n of ["test", "it"]) {
    const bound = header.names.get(n);
    if (bound === undefined) {
      if ((runner === "mocha" || runner === "jest") && used(n)) return n;
      continue;
    }
    if (runner === "node-test" && /^(node:)?test$/.test(bound)) return n;
    if (runner === "vitest" && bound === "vitest") return n;
    if (runner === "jest" && bound === "@jest/globals") return n;
  }
  return null;
}

function isEsm(tree: SourceInput["tree"], sample: Sample, header: Header): boolean {
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
function fromSample(runner: JsRunner, input: SourceInput): Parts | null {
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
  const testFn = testFnOf(runner, sample, header);
  const style = styleOf(runner, sample, header);
  if (!testFn || !style) return null;
  const ofTree = (m: string): boolean => m.startsWith(".") || m.startsWith("/");
  const call = borrowCall(sample, header, ofTree, "js", input.focus);
  const repoName = [...header.names].find(([, m]) => ofTree(m))?.[0];
  return {
    lines: header.lines,
    testFn,
    style,
    esm: runner === "vitest" || (runner !== "jest" && isEsm(input.tree, sample, header)),
    call,
    name: fileName(sample, input.token),
    sample: sample.path,
    ...(repoName ? { repoName } : {}),
  };
}

/** The canary's own imports and names when no sample can lend them. */
function ownParts(runner: JsRunner, token: string): Parts {
  const esm = runner === "vitest";
  const lines =
    runner === "vitest"
      ? ['import { expect, test } from "vitest";']
      : runner === "node-test"
        ? ['const { test } = require("node:test");', 'const assert = require("node:assert");']
        : runner === "mocha"
          ? ['const assert = require("node:assert");']
          : [];
  const style: Style =
    runner === "vitest" || runner === "jest"
      ? { kind: "expect", name: "expect", matcher: "toBe" }
      : { kind: "assert", fn: "assert.strictEqual" };
  const ext = runner === "vitest" ? "mjs" : runner === "jest" ? "js" : "cjs";
  return {
    lines,
    testFn: runner === "mocha" ? "it" : "test",
    style,
    esm,
    call: null,
    name: `${token}.test.${ext}`,
  };
}

/** The JS canaries for `runner` in `input.dir`. */
export function jsCanary(runner: JsRunner, input: SourceInput): CanarySource {
  const p = fromSample(runner, input) ?? ownParts(runner, input.token);
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
