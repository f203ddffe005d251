import type { RunnerCommand } from "../parts/command.ts";
import { DOTTED, sizedTarget, withoutPositionals } from "../shared/command-words.ts";

/** `python -m unittest`'s options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(["-k", "-s", "-p", "-t"]);

const startAt = (words: readonly string[]): number =>
  words.findIndex((w, i) => w === "unittest" && words[i - 1] === "-m");

/** The words with `-v` (every test's outcome listed), after any `-q`; at the end, where `discover` takes it too. */
function listingWords(words: readonly string[]): string[] {
  const last = words.findLast((w) => ["-v", "--verbose", "-q", "--quiet"].includes(w));
  return last === "-v" || last === "--verbose" ? [...words] : [...words, "-v"];
}

/** discover's own words (the subcommand; its start folder, pattern and top level) mean nothing for named modules. */
const discoverWords = (w: string): "word" | "with-value" | null =>
  w === "discover" ? "word" : w === "-s" || w === "-p" || w === "-t" ? "with-value" : null;

/** What the command runs: the modules it names, and discover's start folder as the dotted package of its modules. */
function scope(words: readonly string[]): string[] | null {
  const at = startAt(words);
  if (at < 0) return null;
  const out: string[] = [];
  for (let i = at + 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "discover") continue;
    if (w === "-s" && i + 1 < words.length) {
      const start = words[++i]!.replace(/^\.\//, "").replace(/\/+$/, "");
      if (start !== "" && start !== ".") out.push(start.replaceAll("/", "."));
      continue;
    }
    if (w.startsWith("-")) {
      if (VALUE_OPTIONS.has(w)) i++;
      continue;
    }
    out.push(w);
  }
  return out;
}

export const command: RunnerCommand = {
  title: "unittest",
  spelled: true,
  namedAt: startAt,
  argsAfter: startAt,
  takesScriptArgs: false,
  targetForm: "dotted",
  suiteKind: "python",
  singleTestId: (id) => /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/.test(id),
  targetWord: "test module",
  validTarget: (t) => sizedTarget(t) && DOTTED.test(t),
  targetArgs: (targets) => [...targets],
  valueOptions: VALUE_OPTIONS,
  listingWords,
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
  suiteWords: (words) => ({ words: listingWords(words) }),
  targetedWords(words, targets) {
    const at = startAt(words);
    if (at < 0) return { reason: "the test command does not run `python -m unittest`" };
    // One process per module: a module that cannot be loaded here (it skips at import on this
    // platform, an optional dependency is missing) fails alone instead of stopping every other's tests.
    return {
      words: listingWords(withoutPositionals(words, at, VALUE_OPTIONS, discoverWords)),
      args: [...targets],
      sequential: true,
    };
  },
  scope,
  inScope: (target, s) => s.some((raw) => target === raw || target.startsWith(`${raw}.`)),
  installedVersion: () => ({
    version: null,
    major: null,
    source: "unittest is part of Python's standard library: its options are those of every Python 3",
  }),
};
