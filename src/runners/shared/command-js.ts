import type { TreeFs } from "../../core/tree-fs.ts";
import type { CommandContext, Refusal, RunnerCommand, TargetedWords, ToolVersion } from "../parts/command.ts";
import { nodeBinAt } from "./command-node-bin.ts";
import { nodePackageVersion, spellingFor } from "./command-versions.ts";
import { asPathArg, positionals, REL_PATH, sizedTarget, viaScript } from "./command-words.ts";

/** What a JavaScript runner started from `node_modules` is: its programs, its packages, its options per major version. */
export interface JsTool<Spelling> {
  /** The name it goes by in messages (`mocha`). */
  name: string;
  /** Program names (`mocha`, `_mocha`). */
  bins: readonly string[];
  /** npm packages that hold them; the version is read from the first one installed. */
  packages: readonly string[];
  /** The options each major version takes. */
  versions: Readonly<Record<number, Spelling>>;
  /** The spelling every known major takes, for a version not read or not known. */
  safest: Spelling;
}

/** The version of the first of the tool's packages that is installed (the first's reason when none is). */
function installedOf(tool: JsTool<unknown>, tree: TreeFs): ToolVersion {
  const read = tool.packages.map((p) => nodePackageVersion(tree, p));
  return read.find((v) => v.version !== null) ?? read[0]!;
}

/** The spelling of the installed version (see `spellingFor`). */
export function jsSpelling<S>(tool: JsTool<S>, ctx: CommandContext): { spelling: S; notes?: string[] } {
  const installed = ctx.tree ? installedOf(tool, ctx.tree) : null;
  const s = spellingFor(tool.name, installed, tool.versions, tool.safest);
  return { spelling: s.spelling, ...(s.note ? { notes: [s.note] } : {}) };
}

/** The index of the word that starts the tool, or -1. */
export const jsAt = (tool: JsTool<unknown>, words: readonly string[]): number =>
  nodeBinAt(words, tool.bins, tool.packages);

/**
 * The targeted words of a JavaScript runner: through a script, the targets after `--` and `flags`; run
 * directly, after its words and `flags`.
 */
export function jsTargeted(
  tool: JsTool<unknown>,
  words: readonly string[],
  targets: readonly string[],
  flags: readonly string[],
): TargetedWords | Refusal {
  const paths = targets.map(asPathArg);
  if (viaScript(words))
    return { words: [...words], args: [...(words.includes("--") ? [] : ["--"]), ...flags, ...paths] };
  if (jsAt(tool, words) < 0) return { reason: `the test command does not start ${tool.name}` };
  return { words: [...words], args: [...flags, ...paths] };
}

/**
 * What every JavaScript runner shares whatever starts it: test files named by path, no report of its
 * own, no listing words added.
 */
export const JS_FILE_TARGETS = {
  targetForm: "path",
  suiteKind: "javascript",
  singleTestId: () => false,
  targetWord: "test file",
  validTarget: (t: string) => sizedTarget(t) && REL_PATH.test(t),
  targetArgs: (targets: readonly string[]) => targets.map(asPathArg),
  listingWords: (words: readonly string[]) => [...words],
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
} as const satisfies Partial<RunnerCommand>;

/** The members every JavaScript runner started from `node_modules` shares. */
export function jsCommandBase(
  tool: JsTool<unknown>,
  values: ReadonlySet<string>,
): Pick<
  RunnerCommand,
  | "namedAt"
  | "argsAfter"
  | "takesScriptArgs"
  | "title"
  | "spelled"
  | "suiteKind"
  | "targetForm"
  | "singleTestId"
  | "targetWord"
  | "validTarget"
  | "targetArgs"
  | "valueOptions"
  | "listingWords"
  | "ownReports"
  | "refusesSuite"
  | "quietTemplate"
  | "scope"
  | "installedVersion"
> {
  const at = (words: readonly string[]) => jsAt(tool, words);
  return {
    namedAt: at,
    argsAfter: at,
    title: tool.name,
    spelled: true,
    takesScriptArgs: true,
    ...JS_FILE_TARGETS,
    valueOptions: values,
    scope: (words) => {
      const i = at(words);
      return i < 0 ? null : positionals(words, i, values);
    },
    installedVersion: (tree?: TreeFs): ToolVersion =>
      tree ? installedOf(tool, tree) : { version: null, major: null, source: "the work tree was not read" },
  };
}

/** Majors `from` to `to`, each taking `spelling`. */
export function sameFrom<S>(from: number, to: number, spelling: S): Record<number, S> {
  const out: Record<number, S> = {};
  for (let m = from; m <= to; m++) out[m] = spelling;
  return out;
}
