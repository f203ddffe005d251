/**
 * Test configuration a patch may not change: files that configure how tests are found and run, as a
 * whole or in part. The rules come in two halves: `GENERAL_TEST_CONFIG` below (the tools that are no
 * test runner of auto-fix's: tox, nox, coverage, browser test tools, package managers' settings) and what
 * each runner's folder lists (`RunnerConventions.testConfig`); `runners/shared/conventions-test-config.ts`
 * joins them, and callers use the joined rules from there.
 */
import { iniTestPart, MAX_TOML_CHARS, tomlTestPart } from "./test-settings.ts";

/** What marks test configuration. Every list is matched item by item; none is ever empty of meaning. */
export interface TestConfigRules {
  /** File names (any depth) whose whole text configures tests. */
  wholeFiles: readonly RegExp[];
  /** Folders (matched against the path) whose every file configures tests (`.mvn/`). */
  wholeDirs: readonly RegExp[];
  /** package.json keys that run or configure tests. */
  packageKeys: readonly string[];
  /** INI section names that configure tests (setup.cfg, tox.ini). */
  iniSections: readonly RegExp[];
  /** Dotted TOML paths that configure tests (pyproject.toml). */
  tomlTables: readonly RegExp[];
  /** Settings that configure tests wherever they stand in setup.cfg or pyproject.toml. */
  settingWords: readonly RegExp[];
  /** Build files (a Java build's, by name): a file holding one of `buildSettings` is test configuration as a whole. */
  buildFiles: readonly RegExp[];
  /** Build-file text that configures tests (test tasks, surefire, JUnit). */
  buildSettings: readonly RegExp[];
}

/** Test configuration of the tools that are no runner of auto-fix's. */
export const GENERAL_TEST_CONFIG: TestConfigRules = {
  wholeFiles: [
    /^tox\.ini$/,
    /^noxfile\.py$/,
    /^\.coveragerc$/,
    /^(karma|playwright|cypress|ava|wdio|jasmine)\.(config|conf)\.[cm]?[jt]s(on)?$/,
    /^cypress\.json$/,
    /^jasmine\.json$/,
    /^\.nycrc(\.[\w]+)?$/,
    /^\.c8rc(\.[\w]+)?$/,
    /^\.taprc$/,
    // Run by every Python interpreter that finds them on its path, any test runner's included.
    /^(sitecustomize|usercustomize)\.py$/,
    // Package managers' settings: `script-shell`, `node-options` or `yarnPath` decide what `npm test` runs.
    /^(\.npmrc|\.yarnrc|\.yarnrc\.yml|bunfig\.toml)$/,
  ],
  wholeDirs: [],
  packageKeys: ["scripts", "ava", "c8", "nyc", "jasmine", "tap", "xo"],
  iniSections: [/^(tox(:.*)?|testenv(:.*)?|coverage:.*|aliases)$/],
  tomlTables: [
    /^(tool\.tox|tool\.coverage|tool\.nox|tool\.hatch\.envs|tool\.poe|tool\.pdm\.scripts|tool\.rye\.scripts|tool\.uv\.scripts)(\.|\[|$)/,
  ],
  settingWords: [/\btox\b|coverage|\bnox\b|test_suite|tests_require/i],
  buildFiles: [],
  buildSettings: [],
};

/** Files that mix test configuration with other settings whatever the runner: a patch may change only their other parts. */
const SECTIONED = /^(setup\.cfg|pyproject\.toml|package\.json)$/;

const normalisePath = (path: string): string => path.replaceAll("\\", "/").replace(/^(\.\/)+/, "");
const baseName = (path: string): string => normalisePath(path).split("/").pop() ?? "";

/** The whole file configures tests (tox.ini, karma.conf.js, .nycrc, a runner's own configuration files, ...). */
export function isTestConfigFileBy(rules: TestConfigRules, path: string): boolean {
  const p = normalisePath(path);
  const base = baseName(p);
  return rules.wholeFiles.some((re) => re.test(base)) || rules.wholeDirs.some((re) => re.test(p));
}

/** The file configures tests in whole or in part (the files validation restores from the unpatched tree). */
export function mayHoldTestConfigBy(rules: TestConfigRules, path: string): boolean {
  const base = baseName(path);
  return (
    isTestConfigFileBy(rules, path) || SECTIONED.test(base) || rules.buildFiles.some((re) => re.test(base))
  );
}

function packageTestPart(text: string, keys: readonly string[]): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const obj = parsed as Record<string, unknown>;
  return JSON.stringify(keys.map((k) => [k, obj[k] ?? null]));
}

/**
 * Whether changing `path` from `before` to `after` (null = absent) changes how tests are found or run;
 * a message the model can act on when it does, null when it does not.
 */
export function testConfigChangeBy(
  rules: TestConfigRules,
  path: string,
  before: string | null,
  after: string | null,
): string | null {
  if (before === after) return null;
  const p = normalisePath(path);
  const base = baseName(p);
  const refuse = (what: string) =>
    `${p} ${what}; test configuration is part of the tests, which patches may not change. Fix the code under test instead, and leave how tests are selected and run as it is.`;
  if (isTestConfigFileBy(rules, p)) return refuse("configures how tests are found and run");
  if (base === "setup.cfg") {
    return iniTestPart(before ?? "", rules) === iniTestPart(after ?? "", rules)
      ? null
      : refuse("has test settings (a test runner's, tox, coverage or test aliases) that this patch changes");
  }
  if (base === "pyproject.toml") {
    const a = tomlTestPart(before ?? "", rules);
    const b = tomlTestPart(after ?? "", rules);
    if (a === null || b === null) {
      return refuse(
        `cannot be judged (not valid TOML, or over ${MAX_TOML_CHARS / 1024} kB), and it may hold test settings`,
      );
    }
    return a === b
      ? null
      : refuse("has test settings (a test runner's, tox, coverage or test scripts) that this patch changes");
  }
  if (base === "package.json") {
    const a = packageTestPart(before ?? "{}", rules.packageKeys);
    const b = packageTestPart(after ?? "{}", rules.packageKeys);
    if (b === null) return refuse("would no longer be valid JSON, and its scripts run the tests");
    return a === b
      ? null
      : refuse(
          `has test settings (${rules.packageKeys.slice(0, 4).join(", ")}, ...) that this patch changes`,
        );
  }
  if (rules.buildFiles.some((re) => re.test(base))) {
    const configures = (t: string | null) => rules.buildSettings.some((re) => re.test(t ?? ""));
    return configures(before) || configures(after)
      ? refuse(
          "holds test settings (test tasks, surefire/failsafe, JUnit), so the whole file is test configuration",
        )
      : null;
  }
  return null;
}
