import type { RunnerCommand } from "../parts/command.ts";
import { filterInScope, positionals, scriptSeparator } from "../shared/command-words.ts";
import { type JsTool, jsAt, jsCommandBase, jsSpelling, jsTargeted, sameFrom } from "../shared/command-js.ts";

/**
 * vitest's reporter that lists every test under its file (the default folds a passing file into one
 * line), per major version: `--reporter=verbose` in every vitest from 0 to 5.
 */
const VITEST: JsTool<string> = {
  name: "vitest",
  bins: ["vitest"],
  packages: ["vitest"],
  versions: sameFrom(0, 5, "--reporter=verbose"),
  safest: "--reporter=verbose",
};

/** vitest's own subcommands, which are not filters (`vitest run` runs every test file). */
const SUBCOMMANDS = new Set(["run", "watch", "dev"]);
const VALUE_OPTIONS: ReadonlySet<string> = new Set();

export const command: RunnerCommand = {
  ...jsCommandBase(VITEST, VALUE_OPTIONS),
  suiteWords(words, ctx) {
    const { spelling, notes } = jsSpelling(VITEST, ctx);
    return { words: [...words, ...scriptSeparator(words), spelling], ...(notes ? { notes } : {}) };
  },
  targetedWords(words, targets, ctx) {
    // vitest takes its files as filters before any `--` (after it they are ignored, and the whole
    // suite runs), and a filter matches any test file whose path holds it: only the files given count.
    const { spelling, notes } = jsSpelling(VITEST, ctx);
    const t = jsTargeted(VITEST, words, targets, [spelling]);
    return "reason" in t ? t : { ...t, onlyFiles: true, ...(notes ? { notes } : {}) };
  },
  scope(words) {
    const at = jsAt(VITEST, words);
    if (at < 0) return null;
    const sub = words[at + 1];
    if (sub === "related") return null;
    return positionals(words, sub !== undefined && SUBCOMMANDS.has(sub) ? at + 1 : at, VALUE_OPTIONS);
  },
  inScope: filterInScope,
};
