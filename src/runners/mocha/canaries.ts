/**
 * mocha's check tests: a test file with `it` (a global of mocha's files) asserting through `node:assert`
 * (or chai's `expect`) as the repository's tests do, given to mocha as one more file beside the first
 * file the command or a targeted run names.
 */
import type { CanaryRules, NoCanaries, RunnerCanaries, Spot, SpotInput } from "../parts/canaries.ts";
import {
  appended,
  CANARY_DEFAULTS,
  deselectingAfter,
  isOption,
  positionals,
} from "../shared/canaries-args.ts";
import { type JsFlavour, jsCanary, jsSpot } from "../shared/canaries-js.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^(-g|--grep(=.*)?|-f|--fgrep(=.*)?|-i|--invert|-b|--bail|--forbid-only)$/;
/** mocha's options that take their value as the next word, as the check tests' placement reads them. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "--reporter",
  "-R",
  "--require",
  "-r",
  "--timeout",
  "-t",
  "--ui",
  "-u",
  "--config",
  "--extension",
  "--ignore",
  "--reporter-option",
  "--reporter-options",
  "-O",
]);

const FLAVOUR: JsFlavour = {
  testModule: null,
  globalTestFns: true,
  globalExpect: false,
  esm: "sample",
  own: {
    lines: ['const assert = require("node:assert");'],
    style: { kind: "assert", fn: "assert.strictEqual" },
    testFn: "it",
    ext: "cjs",
  },
};

/** Given as one more file, beside the first file the command or a targeted run names. */
function spot({ tree, words, targets }: SpotInput): Spot | NoCanaries {
  if (targets)
    return {
      ...jsSpot(
        tree,
        targets.find((t) => !isOption(t)),
      ),
      args: appended,
    };
  const at = words.findIndex((w) => w === "mocha" || w.endsWith("/mocha"));
  if (at < 0) return { unverified: "the test command does not start mocha directly" };
  const files = positionals(words, at + 1, VALUE_OPTIONS);
  if (files.length === 0)
    return {
      unverified:
        "mocha finds its test files by its configuration; a file of check tests given to it would be one more scope",
    };
  return { ...jsSpot(tree, files[0]), args: appended };
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, () => 0),
  spot,
  source: (input) => jsCanary(FLAVOUR, input),
  // mocha's exit status is its count of failures.
  failExitCode: (failing) => failing,
};

export const canaries: RunnerCanaries = { canaries: rules };
