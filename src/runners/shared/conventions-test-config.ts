/**
 * The test configuration a patch may not change, whatever runner a repository uses: the general rules
 * (core/test-config.ts) joined with every runner's own (`testConfig` of its conventions part). A
 * repository may configure a runner other than the one detected, so every runner's rules always apply.
 */
import { type PathFacts, type PathVerdict, checkEditablePathBy } from "../../core/path-rules.ts";
import {
  GENERAL_TEST_CONFIG,
  isTestConfigFileBy,
  mayHoldTestConfigBy,
  type TestConfigRules,
  testConfigChangeBy,
} from "../../core/test-config.ts";
import { RUNNERS } from "../registry.ts";

const join = <K extends keyof TestConfigRules>(key: K): TestConfigRules[K] => {
  // `scripts` first: the package.json key every script-started runner reads.
  const [first, ...rest] = GENERAL_TEST_CONFIG[key] as readonly unknown[];
  const runners = RUNNERS.flatMap((r) => (r.testConfig?.[key] ?? []) as readonly unknown[]);
  return [...new Set(first === undefined ? runners : [first, ...runners, ...rest])] as TestConfigRules[K];
};

/** Every rule of test configuration: the general ones and each runner's. */
export const TEST_CONFIG: TestConfigRules = {
  wholeFiles: join("wholeFiles"),
  wholeDirs: join("wholeDirs"),
  packageKeys: join("packageKeys"),
  iniSections: join("iniSections"),
  tomlTables: join("tomlTables"),
  settingWords: join("settingWords"),
  buildFiles: join("buildFiles"),
  buildSettings: join("buildSettings"),
};

/** The whole file configures tests (pytest.ini, tox.ini, jest.config.js, .mocharc.yml, gradlew, ...). */
export const isTestConfigFile = (path: string): boolean => isTestConfigFileBy(TEST_CONFIG, path);

/** The file configures tests in whole or in part (the files validation restores from the unpatched tree). */
export const mayHoldTestConfig = (path: string): boolean => mayHoldTestConfigBy(TEST_CONFIG, path);

/** Whether a change of `path` changes how tests are found or run: the message when it does, else null. */
export const testConfigChange = (path: string, before: string | null, after: string | null): string | null =>
  testConfigChangeBy(TEST_CONFIG, path, before, after);

/** Whether a patch may touch `path` at all (core/path-rules' rules, with every runner's test configuration). */
export const checkEditablePath = (
  path: string,
  protectedGlobs: readonly string[],
  facts?: PathFacts,
): PathVerdict => checkEditablePathBy(TEST_CONFIG, path, protectedGlobs, facts);
