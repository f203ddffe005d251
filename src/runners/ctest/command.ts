import type { RunnerCommand } from "../parts/command.ts";
import { sizedTarget } from "../shared/command-words.ts";

/** CTest's options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "--test-dir",
  "-R",
  "--tests-regex",
  "-E",
  "--exclude-regex",
  "-L",
  "--label-regex",
  "-LE",
  "--label-exclude",
  "-j",
  "--parallel",
  "-C",
  "--build-config",
  "--timeout",
  "--repeat",
  "-I",
  "--tests-information",
  "--output-junit",
  "--output-log",
  "-O",
  "-FA",
  "--fixture-exclude-any",
]);

/** Options that choose which tests run: a targeted run replaces them with its own `-R`. */
const SELECTING = new Set([
  "-R",
  "--tests-regex",
  "-E",
  "--exclude-regex",
  "-L",
  "--label-regex",
  "-LE",
  "--label-exclude",
  "-I",
  "--tests-information",
]);

/** A CTest test name auto-fix passes on: no blank, no shell or regular-expression syntax but `.`, `/`, `-`, `:`. */
const TEST_NAME = /^[A-Za-z0-9_][\w.:/-]*$/;

/** The index of the `ctest` word (`ctest`, `/usr/bin/ctest`), or -1. */
const startAt = (words: readonly string[]): number =>
  words.findIndex((w) => w === "ctest" || w.endsWith("/ctest"));

/** `-R '^(a|b)$'`: exactly the named tests (a name's `.` matched as itself). */
export const nameRegex = (targets: readonly string[]): string =>
  `^(${targets.map((t) => t.replace(/[.]/g, "\\.")).join("|")})$`;

/** The words with every option that selects tests (and its value) dropped. */
function withoutSelection(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (SELECTING.has(w)) {
      i++;
      continue;
    }
    if ([...SELECTING].some((o) => o.startsWith("--") && w.startsWith(`${o}=`))) continue;
    out.push(w);
  }
  return out;
}

/** The regular expressions the command selects tests by (`-R x`), [] when none. */
function selection(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "-R" || words[i] === "--tests-regex") out.push(words[i + 1] ?? "");
  }
  return out;
}

/** The build folder the command's ctest reads (`--test-dir X`), "." (where it runs) when none is named. */
function testDir(words: readonly string[]): string {
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "--test-dir" && words[i + 1]) return words[i + 1]!;
    if (words[i]!.startsWith("--test-dir=")) return words[i]!.slice("--test-dir=".length) || ".";
  }
  return ".";
}

/**
 * The words run after CMake rebuilds the build folder they test: the setup step built the unpatched
 * tree, and a patched tree's copy holds that build, so CTest alone would run the unpatched binaries. The
 * folder comes from the command's own words (no shell syntax in them); a build that fails runs no test.
 */
export const rebuilt = (words: readonly string[]): string[] => [
  "cmake",
  "--build",
  testDir(words),
  "&&",
  ...words,
];

/** `--output-on-failure` makes no difference to which tests run; CTest prints every test's verdict line anyway. */
const listingWords = (words: readonly string[]): string[] => [...words];

export const command: RunnerCommand = {
  title: "ctest",
  spelled: true,
  namedAt: (words) => (startAt(words) === 0 ? 0 : -1),
  argsAfter: startAt,
  takesScriptArgs: false,
  targetForm: "dotted",
  // validate has no suite map of C++ test names yet: it finds no test target in a C++ tree and runs
  // the whole suite, saying why.
  suiteKind: "go",
  singleTestId: (id) => TEST_NAME.test(id),
  targetWord: "CTest test",
  validTarget: (t) => sizedTarget(t) && TEST_NAME.test(t),
  targetArgs: (targets) => ["-R", nameRegex(targets)],
  valueOptions: VALUE_OPTIONS,
  listingWords,
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
  suiteWords: (words) => ({ words: rebuilt(listingWords(words)) }),
  targetedWords(words, targets) {
    const at = startAt(words);
    if (at < 0) return { reason: "the test command does not run `ctest`" };
    return { words: rebuilt(withoutSelection(words)), args: ["-R", nameRegex(targets)] };
  },
  scope: (words) => (startAt(words) < 0 ? null : selection(words)),
  // A command's `-R` is a regular expression written by the repository: whether a name is among what it
  // selects is CTest's to say; auto-fix counts only the names it passes itself.
  inScope: (target, s) => s.some((r) => r === nameRegex([target])),
  installedVersion: () => ({
    version: null,
    major: null,
    source: "ctest's options used here (-R, --test-dir) are those of every CMake since 3.20",
  }),
};
