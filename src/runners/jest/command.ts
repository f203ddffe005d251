import type { RunnerCommand } from "../parts/command.ts";
import { filterInScope, scriptSeparator } from "../shared/command-words.ts";
import { type JsTool, jsCommandBase, jsSpelling, jsTargeted, sameFrom } from "../shared/command-js.ts";

/**
 * jest's words, per major version: `--verbose` lists every test under its file (without it jest names
 * only failures), and `--runTestsByPath` takes the files given as paths, not patterns (jest 21 and later).
 */
interface JestSpelling {
  verbose: string;
  byPath: string;
}
const JEST: JsTool<JestSpelling> = {
  name: "jest",
  bins: ["jest"],
  packages: ["jest", "jest-cli"],
  versions: sameFrom(21, 30, { verbose: "--verbose", byPath: "--runTestsByPath" }),
  safest: { verbose: "--verbose", byPath: "--runTestsByPath" },
};

export const command: RunnerCommand = {
  ...jsCommandBase(JEST, new Set()),
  suiteWords(words, ctx) {
    const { spelling, notes } = jsSpelling(JEST, ctx);
    const ws = words.includes(spelling.verbose)
      ? [...words]
      : [...words, ...scriptSeparator(words), spelling.verbose];
    return { words: ws, ...(notes ? { notes } : {}) };
  },
  targetedWords(words, targets, ctx) {
    const { spelling, notes } = jsSpelling(JEST, ctx);
    const flags = [...(words.includes(spelling.verbose) ? [] : [spelling.verbose]), spelling.byPath];
    const t = jsTargeted(JEST, words, targets, flags);
    return "reason" in t || !notes ? t : { ...t, notes };
  },
  // Its positional words filter test paths by what the path holds.
  inScope: filterInScope,
};
