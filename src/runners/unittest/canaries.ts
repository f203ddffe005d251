/**
 * unittest's check tests: a module with one TestCase asserting through `self.assertEqual`, beside the
 * module a target or the command names (given to it by its dotted name), else where discovery starts
 * (found by discovery's own pattern).
 */
import { posix } from "node:path";
import type { TreeFs } from "../../core/tree-fs.ts";
import type { CanaryRules, NoCanaries, RunnerCanaries, Spot, SpotInput } from "../parts/canaries.ts";
import {
  CANARY_DEFAULTS,
  deselectingAfter,
  folderOf,
  isOption,
  sampleAt,
  skipDir,
} from "../shared/canaries-args.ts";
import { pythonCanary, pythonLeftovers } from "../shared/canaries-python.ts";
import { findTestFile } from "../shared/canaries-sample.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^(-k|-f|--failfast|-k.+)$/;

/** The word `unittest` of `python -m unittest`, or -1. */
const start = (words: readonly string[]): number =>
  words.findIndex((w, i) => w === "unittest" && words[i - 1] === "-m");

/** Whether `name` matches a unittest discovery pattern (fnmatch: `*`, `?`, `[…]`). */
export function fnmatch(pattern: string, name: string): boolean {
  let re = "";
  for (const c of pattern) re += c === "*" ? ".*" : c === "?" ? "." : /[\w-]/.test(c) ? c : `\\${c}`;
  try {
    return new RegExp(`^${re}$`).test(name);
  } catch {
    return false;
  }
}

/** Beside the module `name` names (`tests.test_ops.Ops.test_add` → tests/), else at the root. */
function besideModule(tree: TreeFs, name: string | undefined): { dirs: string[]; sample?: string } {
  const parts = (name ?? "").split(".");
  for (let k = parts.length; k > 0; k--) {
    if (!parts.slice(0, k).every((p) => /^\w+$/.test(p))) continue;
    const rel = `${parts.slice(0, k).join("/")}.py`;
    const at = sampleAt(tree, rel);
    if (at.sample) return { dirs: [k > 1 ? parts.slice(0, k - 1).join("/") : ""], ...at };
  }
  return { dirs: [""] };
}

const asModule = (f: string): string[] => [f.replace(/\.py$/, "").replaceAll("/", ".")];

/** Beside the module a target or the command names, else where discovery starts. */
function spot({ tree, words, targets }: SpotInput): Spot | NoCanaries {
  if (targets) return { ...besideModule(tree, targets[0]), args: asModule };
  const at = start(words);
  if (at < 0) return { unverified: "the test command does not run `python -m unittest`" };
  const rest = words.slice(at + 1);
  const named = rest.filter((w) => !isOption(w));
  if (named.length > 0 && named[0] !== "discover") return { ...besideModule(tree, named[0]), args: asModule };
  // discover [-s start] [-p pattern] [-t top], or start, pattern and top given as words.
  const opt = (s: string, l: string): string | undefined => {
    const i = rest.findIndex((w) => w === s || w === l);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const given = [];
  for (let i = 1; i < rest.length; i++) {
    const w = rest[i]!;
    if (["-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory", "-k"].includes(w)) i++;
    else if (!isOption(w)) given.push(w);
  }
  const from = opt("-s", "--start-directory") ?? given[0] ?? ".";
  const pattern = opt("-p", "--pattern") ?? given[1] ?? "test*.py";
  const d = folderOf(tree, from);
  if (d === null) return { unverified: `the discovery folder \`${from}\` is not a folder of the tree` };
  // Discovery reaches a module through packages: beside a test module whose folders all are ones.
  const isPackage = (rel: string): boolean => sampleAt(tree, `${rel}/__init__.py`).sample !== undefined;
  const found = findTestFile(
    tree,
    (rel) => {
      if (!fnmatch(pattern, posix.basename(rel))) return false;
      const parts = posix.dirname(rel).split("/");
      const depth = d === "" ? 0 : d.split("/").length;
      for (let k = depth + 1; k <= parts.length && parts[0] !== "."; k++)
        if (!isPackage(parts.slice(0, k).join("/"))) return false;
      return true;
    },
    skipDir,
    d,
  );
  const near = found ? posix.dirname(found) : ".";
  return {
    dirs: [near === "." ? d : near],
    ...sampleAt(tree, found),
    args: () => [],
    refuses: (name) =>
      fnmatch(pattern, name)
        ? null
        : `unittest's discovery pattern \`${pattern}\` would not find the check tests' module`,
  };
}

/** Every `FAILED (…)` line of the run counts one failure and no error. */
function onlyOneFailed(output: string): boolean {
  const lines = [...output.matchAll(/^FAILED \(([^)]*)\)$/gm)].map((m) => m[1]!);
  return lines.length > 0 && lines.every((l) => /(^|, )failures=1(,|$)/.test(l) && !/errors=/.test(l));
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, start),
  spot,
  source: (input) => pythonCanary("testcase", input),
  // One process per module: each runs the check tests' module too, and each must leave its proof.
  perTargetProcesses: true,
  onlyOneFailed,
  leftovers: pythonLeftovers,
};

export const canaries: RunnerCanaries = { canaries: rules };
