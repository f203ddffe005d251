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
  positionals,
  skipDir,
} from "../shared/canaries-args.ts";
import { findTestFile } from "../shared/canaries-sample.ts";
import { MOCHA_DEFAULT_FILE, mochaConfigSpec, specFolder } from "./canaries-config.ts";
import { command } from "./command.ts";
import { type JsFlavour, jsCanary, jsSpot, targetedJsSpot } from "../shared/canaries-js.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^(-g|--grep(=.*)?|-f|--fgrep(=.*)?|-i|--invert|-b|--bail|--forbid-only)$/;

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

/**
 * Given as one more file, beside the first file the command or a targeted run names; with none named,
 * beside the files mocha's configuration names, or in ./test, where mocha looks by default. A package
 * manager's script is read as the words it runs.
 */
function spot({ tree, words, targets, valueOptions, scriptWords }: SpotInput): Spot | NoCanaries {
  if (targets) return targetedJsSpot(tree, targets);
  if (scriptWords && "reason" in scriptWords)
    return { unverified: `the test command does not start mocha directly (${scriptWords.reason})` };
  const all = scriptWords ?? words;
  const at = command.namedAt(all);
  if (at < 0) return { unverified: "the test command does not start mocha directly" };
  const own = all.slice(at);
  const stop = own.find((w) => DESELECTING.test(w));
  if (stop !== undefined)
    return {
      unverified: `the command's option \`${stop}\` could leave the check tests out or stop before them`,
    };
  const files = positionals(own, 1, valueOptions);
  if (files.length > 0) return { ...jsSpot(tree, files[0]), args: appended };
  const spec = own.some((w) => /^--(config|package|spec|file)(=|$)/.test(w)) ? null : mochaConfigSpec(tree);
  if (spec === null || "reason" in spec)
    return {
      unverified: `mocha finds its test files by its configuration; a file of check tests given to it would be one more scope${spec ? ` (${spec.reason})` : ""}`,
    };
  if (spec.length > 0) return { ...jsSpot(tree, specFolder(spec[0]!)), args: appended };
  const found = findTestFile(tree, (r) => MOCHA_DEFAULT_FILE.test(r), skipDir, "test");
  if (!found) return { unverified: "mocha looks for its test files in ./test, which holds none" };
  // A check-test file named `.cjs` is not one mocha 2 to 8 find there (`.js` only): `test` and it are given.
  return { ...jsSpot(tree, found), args: (file) => (file.endsWith(".js") ? [] : ["test", file]) };
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
