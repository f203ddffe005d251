/**
 * What the canaries need to know of how a run finds its files: the words of the command that starts
 * mocha (through a package manager's script too), the test files mocha's configuration names, and whether
 * jest's settings in package.json decide which files it takes.
 */
import { parse as parseYaml } from "yaml";
import { jsRunnerOfWord, resolveScriptCommand } from "../../config/index.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";

const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * The words from mocha's own on (`mocha`, `_mocha`, `node_modules/mocha/bin/mocha.js`, …), the words of
 * the package-manager script the command runs when it runs one (`npm test -- <more>` → the script's words
 * and `<more>`); or why mocha is not found.
 */
export function mochaWords(tree: TreeFs, words: readonly string[]): string[] | { reason: string } {
  let own = [...words];
  if (/^(npm|pnpm|yarn)$/.test(words[0] ?? "")) {
    const sep = words.indexOf("--");
    const head = sep < 0 ? words : words.slice(0, sep);
    const script = resolveScriptCommand(tree.root, head.join(" "));
    if (script === null || "reason" in script)
      return {
        reason: `the test command does not start mocha directly${script ? ` (${script.reason})` : ""}`,
      };
    own = [...script.command.split(/\s+/), ...(sep < 0 ? [] : words.slice(sep + 1))];
  }
  const at = own.findIndex((w) => jsRunnerOfWord(w) === "mocha");
  if (at < 0) return { reason: "the test command does not start mocha directly" };
  return own.slice(at);
}

const RC_FILES = [
  ".mocharc.cjs",
  ".mocharc.js",
  ".mocharc.yaml",
  ".mocharc.yml",
  ".mocharc.jsonc",
  ".mocharc.json",
];

/**
 * The test files mocha's configuration names (`spec` of `.mocharc.{json,yaml,yml}` or of `package.json`'s
 * `mocha`, lines of `test/mocha.opts`), `[]` when none names any (mocha then looks in `./test`), or why they cannot be
 * known (a configuration in JavaScript, one that cannot be read).
 */
export function mochaConfigSpec(tree: TreeFs): string[] | { reason: string } {
  const read = (rel: string): string | null => {
    const bytes = tree.readIfExists(rel, { maxBytes: MAX_CONFIG_BYTES });
    return bytes === null ? null : bytes.toString("utf8");
  };
  const specOf = (cfg: unknown): string[] => {
    const spec = (cfg as { spec?: unknown } | null)?.spec;
    if (typeof spec === "string") return [spec];
    return Array.isArray(spec) ? spec.filter((s): s is string => typeof s === "string") : [];
  };
  try {
    for (const rc of RC_FILES) {
      const text = read(rc);
      if (text === null) continue;
      if (rc.endsWith("js")) return { reason: `mocha's configuration (${rc}) is a program` };
      try {
        return specOf(rc.endsWith(".json") ? JSON.parse(text) : parseYaml(text));
      } catch {
        return { reason: `mocha's configuration (${rc}) cannot be read` };
      }
    }
    const pkg = read("package.json");
    let fromPkg: string[] = [];
    try {
      fromPkg = pkg === null ? [] : specOf((JSON.parse(pkg) as { mocha?: unknown } | null)?.mocha);
    } catch {
      return { reason: "package.json cannot be read" };
    }
    if (fromPkg.length > 0) return fromPkg;
    // mocha 2 to 7 read ./test/mocha.opts: a line that is not an option names test files.
    const opts = read("test/mocha.opts");
    if (opts === null) return [];
    return opts
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("-") && !l.startsWith("#"));
  } catch (err) {
    if (err instanceof TreeFsError) return { reason: `mocha's configuration cannot be read: ${err.message}` };
    throw err;
  }
}

/** mocha's options that take a value (the word after them is not a file). */
export const MOCHA_VALUE_OPTIONS: ReadonlySet<string> = new Set([
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

/** A file mocha takes from ./test when no file is named (`./test/*.{js,cjs,mjs}`). */
export const MOCHA_DEFAULT_FILE = /^test\/[^/]+\.[cm]?js$/;

/** The folder a spec entry's files are in: the part before its first pattern character. */
export const specFolder = (spec: string): string => {
  const plain = spec.split(/[*?[{]/)[0]!;
  return plain.endsWith("/") || plain === spec ? plain : plain.slice(0, plain.lastIndexOf("/") + 1);
};

/** jest settings of package.json that do not change which test files it takes. */
const JEST_NEUTRAL_KEYS = new Set([
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
 * Whether package.json's `jest` (absent: undefined) may decide which test files jest takes: any setting
 * but the ones known not to (a `testMatch`, `roots`, a `preset` do; a `testEnvironment` does not).
 */
export function jestPackageDecides(jest: unknown): boolean {
  if (jest === undefined) return false;
  if (jest === null || typeof jest !== "object" || Array.isArray(jest)) return true;
  return Object.keys(jest).some((k) => !JEST_NEUTRAL_KEYS.has(k));
}
