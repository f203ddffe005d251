import type { TreeFs } from "../../core/tree-fs.ts";
import type { CommandContext, RunnerCommand } from "../parts/command.ts";
import { pythonDistVersion, spellingFor } from "../shared/command-versions.ts";
import {
  asPathArg,
  pathInScope,
  positionals,
  REL_PATH,
  sizedTarget,
  withoutPositionals,
} from "../shared/command-words.ts";

/** pytest's options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-p",
  "-r",
  "-k",
  "-m",
  "-c",
  "-o",
  "-W",
  "-n",
  "--rootdir",
  "--junitxml",
  "--junit-xml",
  "--tb",
  "--maxfail",
  "--durations",
  "--ignore",
  "--ignore-glob",
  "--deselect",
  "--confcutdir",
  "--basetemp",
  "--import-mode",
  "--log-level",
  "--cov",
]);

/**
 * The short-summary option that lists every test's outcome (`PASSED path::test`), per major version of
 * pytest: `-rA` in every pytest from 6 to 9 (a later `-r` replaces an earlier one).
 */
const LISTING: Readonly<Record<number, string>> = { 6: "-rA", 7: "-rA", 8: "-rA", 9: "-rA" };
const SAFEST_LISTING = "-rA";

/** The program words that start pytest: `pytest`, `py.test`, `pytest-3`, any path to them, `-m pytest`. */
const PROGRAM = /(^|\/)(py\.test|pytest(-3)?)$/;
const startAt = (words: readonly string[]): number =>
  words.findIndex((w, i) => PROGRAM.test(w) || (w === "pytest" && words[i - 1] === "-m"));

function listing(words: readonly string[], flag: string): string[] {
  const last = words.findLast((w) => w.startsWith("-r") && !w.startsWith("--"));
  return last === flag ? [...words] : [...words, flag];
}

const version = (ctx: CommandContext) =>
  spellingFor("pytest", ctx.tree ? command.installedVersion(ctx.tree) : null, LISTING, SAFEST_LISTING);

export const command: RunnerCommand = {
  title: "pytest",
  spelled: true,
  namedAt: startAt,
  argsAfter: startAt,
  takesScriptArgs: false,
  targetForm: "path",
  suiteKind: "python",
  singleTestId: (id) => id.includes("::") && !/[\n\r\0]/.test(id),
  targetWord: "test file",
  validTarget: (t) => sizedTarget(t) && REL_PATH.test(t),
  targetArgs: (targets) => targets.map(asPathArg),
  valueOptions: VALUE_OPTIONS,
  listingWords: (words) => listing(words, SAFEST_LISTING),
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
  suiteWords(words, ctx) {
    const v = version(ctx);
    return { words: listing(words, v.spelling), ...(v.note ? { notes: [v.note] } : {}) };
  },
  targetedWords(words, targets, ctx) {
    const at = startAt(words);
    if (at < 0) return { reason: "the test command does not start pytest" };
    const v = version(ctx);
    return {
      words: listing(withoutPositionals(words, at, VALUE_OPTIONS), v.spelling),
      args: targets.map(asPathArg),
      ...(v.note ? { notes: [v.note] } : {}),
    };
  },
  scope: (words) => {
    const at = startAt(words);
    return at < 0 ? null : positionals(words, at, VALUE_OPTIONS);
  },
  inScope: pathInScope,
  installedVersion: (tree?: TreeFs) =>
    tree
      ? pythonDistVersion(tree, "pytest")
      : { version: null, major: null, source: "the work tree was not read" },
};
