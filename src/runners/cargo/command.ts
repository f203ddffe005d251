import type { RunnerCommand } from "../parts/command.ts";
import { positionals } from "../shared/command-words.ts";

/** `cargo test`'s options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-p",
  "--package",
  "--exclude",
  "--test",
  "--bench",
  "--example",
  "--bin",
  "-F",
  "--features",
  "-j",
  "--jobs",
  "--profile",
  "--target",
  "--target-dir",
  "--manifest-path",
  "--color",
  "--message-format",
  "-Z",
  "--config",
]);

/** The index of `test` (or `t`) in `cargo test`, or -1. */
export const cargoTestAt = (words: readonly string[]): number =>
  words[0] === "cargo" && (words[1] === "test" || words[1] === "t") ? 1 : -1;

/**
 * `--no-fail-fast` (right after `test`): cargo stops at the first test binary that fails unless told,
 * and every binary's results are wanted. libtest lists every test's outcome on its own.
 */
function listingWords(words: readonly string[]): string[] {
  const at = cargoTestAt(words);
  if (at < 0 || words.includes("--no-fail-fast")) return [...words];
  const sep = words.indexOf("--");
  if (sep >= 0 && sep <= at) return [...words];
  return [...words.slice(0, at + 1), "--no-fail-fast", ...words.slice(at + 1)];
}

export const command: RunnerCommand = {
  title: "cargo test",
  spelled: true,
  namedAt: (words) => (cargoTestAt(words) < 0 ? -1 : 0),
  argsAfter: cargoTestAt,
  takesScriptArgs: false,
  targetForm: "path",
  suiteKind: "rust",
  singleTestId: () => false,
  targetWord: "integration test file",
  validTarget: (t) => /^tests\/[A-Za-z_][\w-]{0,200}\.rs$/.test(t),
  targetArgs: (targets) => [...targets],
  valueOptions: VALUE_OPTIONS,
  listingWords,
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
  suiteWords: (words) => ({ words: listingWords(words) }),
  // cargo builds every test target of the crate before it runs one: a targeted run saves little, and the
  // whole suite's results are read instead.
  targetedWords: () => ({
    reason: "cargo builds every test target of the crate at once",
  }),
  scope: (words) => {
    const at = cargoTestAt(words);
    if (at < 0) return null;
    const sep = words.indexOf("--");
    // `cargo test NAME`: a filter on test names, whose reach cannot be told from the files.
    return positionals(sep < 0 ? words : words.slice(0, sep), at, VALUE_OPTIONS).length > 0 ? null : [];
  },
  inScope: () => true,
  installedVersion: () => ({
    version: null,
    major: null,
    source: "cargo test's output (libtest's lines, `--no-fail-fast`) is the same in every cargo since 1.0",
  }),
};
