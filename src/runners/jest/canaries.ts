/**
 * jest's check tests: a test file with `test` (a global, or imported from `@jest/globals`) and
 * `expect(…).toBe`, named like jest's test files so that a run with no configuration takes it.
 */
import type { CanaryRules, RunnerCanaries } from "../parts/canaries.ts";
import { CANARY_DEFAULTS, deselectingAfter } from "../shared/canaries-args.ts";
import { countsOne, defaultRulesSpot, type JsFlavour, jsCanary } from "../shared/canaries-js.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING =
  /^(-t|--testNamePattern(=.*)?|-b|--bail(=.*)?|-o|--onlyChanged|--changedSince(=.*)?|--shard(=.*)?)$/;

const FLAVOUR: JsFlavour = {
  testModule: /^@jest\/globals$/,
  globalTestFns: true,
  globalExpect: true,
  esm: "never",
  own: { lines: [], style: { kind: "expect", name: "expect", matcher: "toBe" }, testFn: "test", ext: "js" },
};

/** jest settings of package.json that do not change which test files it takes. */
const NEUTRAL_SETTINGS: ReadonlySet<string> = new Set([
  "testEnvironment",
  "testEnvironmentOptions",
  "testTimeout",
  "verbose",
  "clearMocks",
  "resetMocks",
  "restoreMocks",
  "resetModules",
  "setupFiles",
  "setupFilesAfterEach",
  "setupFilesAfterEnv",
  "globals",
  "moduleNameMapper",
  "collectCoverage",
  "collectCoverageFrom",
  "coverageDirectory",
  "coverageReporters",
  "coverageThreshold",
  "coveragePathIgnorePatterns",
  "notify",
]);

/**
 * Whether package.json's `jest` settings may decide which test files jest takes: any setting but the ones
 * known not to (a `testMatch`, `roots`, a `preset` do; a `testEnvironment` does not).
 */
function jestSettingsDecide(settings: unknown): boolean {
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) return true;
  return Object.keys(settings).some((k) => !NEUTRAL_SETTINGS.has(k));
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, () => 0),
  spot: (input) =>
    defaultRulesSpot(input, {
      label: "jest",
      configs: /^jest\.config\.(js|ts|mjs|cjs|json)$/,
      packageKey: "jest",
      packageDecides: jestSettingsDecide,
      testFile: /((^|[./])(test|spec)\.[jt]sx?$|(^|\/)__tests__\/.*\.[jt]sx?$)/,
    }),
  source: (input) => jsCanary(FLAVOUR, input),
  ownProcessPerFile: true,
  onlyOneFailed: (output) =>
    countsOne(output, /^Test Suites:\s+(\d+) failed/gm) && countsOne(output, /^Tests:\s+(\d+) failed/gm),
};

export const canaries: RunnerCanaries = { canaries: rules };
