/**
 * vitest's check tests: an ES module importing `test` and `expect` from `vitest`, asserting with
 * `expect(…).toBe`, named like vitest's test files so that a run with no configuration takes it.
 */
import type { CanaryRules, RunnerCanaries } from "../parts/canaries.ts";
import { CANARY_DEFAULTS, deselectingAfter } from "../shared/canaries-args.ts";
import { countsOne, defaultRulesSpot, type JsFlavour, jsCanary } from "../shared/canaries-js.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^(-t|--testNamePattern(=.*)?|--bail(=.*)?|--changed(=.*)?|--shard(=.*)?)$/;

const FLAVOUR: JsFlavour = {
  testModule: /^vitest$/,
  globalTestFns: false,
  globalExpect: false,
  esm: "always",
  own: {
    lines: ['import { expect, test } from "vitest";'],
    style: { kind: "expect", name: "expect", matcher: "toBe" },
    testFn: "test",
    ext: "mjs",
  },
};

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, () => 0),
  spot: (input) =>
    defaultRulesSpot(input, {
      label: "vitest",
      configs: /^(vitest|vite)\.config\.(js|ts|mjs|cjs|mts|cts)$/,
      testFile: /\.(test|spec)\.[cm]?[jt]sx?$/,
    }),
  source: (input) => jsCanary(FLAVOUR, input),
  ownProcessPerFile: true,
  onlyOneFailed: (output) =>
    countsOne(output, /^\s*Test Files\s+(\d+) failed/gm) && countsOne(output, /^\s*Tests\s+(\d+) failed/gm),
};

export const canaries: RunnerCanaries = { canaries: rules };
