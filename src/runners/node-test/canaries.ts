/**
 * node --test's check tests: a test file importing `test` from `node:test` and asserting through
 * `node:assert` as the repository's tests do, given to node as one more file, or found by node's own rules
 * beside one of its test files when the command names none.
 */
import type { CanaryRules, NoCanaries, RunnerCanaries, Spot, SpotInput } from "../parts/canaries.ts";
import {
  appended,
  CANARY_DEFAULTS,
  deselectingAfter,
  positionals,
  skipDir,
} from "../shared/canaries-args.ts";
import { countsOne, type JsFlavour, jsCanary, jsSpot, targetedJsSpot } from "../shared/canaries-js.ts";
import { findTestFile } from "../shared/canaries-sample.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^(--test-name-pattern(=.*)?|--test-skip-pattern(=.*)?|--test-only|--test-shard(=.*)?)$/;
/** The test files node --test takes by its own default rules. */
const NODE_TEST_FILE = /([._-]test\.[cm]?js$|(^|\/)test(-[^/]*)?\.[cm]?js$|(^|\/)test\/.*\.[cm]?js$)/;

const FLAVOUR: JsFlavour = {
  testModule: /^(node:)?test$/,
  globalTestFns: false,
  globalExpect: false,
  esm: "sample",
  own: {
    lines: ['const { test } = require("node:test");', 'const assert = require("node:assert");'],
    style: { kind: "assert", fn: "assert.strictEqual" },
    testFn: "test",
    ext: "cjs",
  },
};

function spot({ tree, words, targets, valueOptions, focus }: SpotInput): Spot | NoCanaries {
  if (targets) return targetedJsSpot(tree, targets);
  const at = words.indexOf("--test");
  if (at < 0 || !/(^|\/)node$/.test(words[0] ?? ""))
    return { unverified: "the test command does not run `node --test`" };
  // With no file given, node finds its test files by its own rules (the check tests beside one of them,
  // named like it); with files, the check tests' file is one more.
  const pos = positionals(words, at + 1, valueOptions);
  if (pos.length > 0) return { ...jsSpot(tree, pos[0]), args: appended };
  return {
    ...jsSpot(
      tree,
      findTestFile(tree, (r) => NODE_TEST_FILE.test(r), skipDir, "", focus),
    ),
    args: () => [],
  };
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, () => 0),
  spot,
  source: (input) => jsCanary(FLAVOUR, input),
  ownProcessPerFile: true,
  onlyOneFailed: (output) => countsOne(output, /^(?:ℹ|#) fail (\d+)$/gm),
};

export const canaries: RunnerCanaries = { canaries: rules };
