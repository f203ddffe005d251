import type { RunnerCommand } from "../parts/command.ts";
import { positionals, REL_PATH, sizedTarget, withoutPositionals } from "../shared/command-words.ts";

/** `go test`'s options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-run",
  "-skip",
  "-count",
  "-timeout",
  "-p",
  "-parallel",
  "-tags",
  "-coverprofile",
  "-covermode",
  "-coverpkg",
  "-bench",
  "-benchtime",
  "-cpu",
  "-o",
  "-exec",
  "-mod",
  "-shuffle",
]);

/** The index of `test` in `go test`, or -1. */
const startAt = (words: readonly string[]): number =>
  words.findIndex((w, i) => w === "test" && words[i - 1] === "go");

/** `go test -json` (right after `test`): every test's outcome, one JSON event a line. */
function listingWords(words: readonly string[]): string[] {
  if (words.some((w) => w === "-json" || w === "--json" || w === "-json=true")) return [...words];
  const at = startAt(words);
  return at < 0 ? [...words] : [...words.slice(0, at + 1), "-json", ...words.slice(at + 1)];
}

const norm = (p: string): string => p.replace(/^(\.\/)+/, "").replace(/\/+$/, "");

export const command: RunnerCommand = {
  title: "go test",
  spelled: true,
  namedAt: (words) => (words[0] === "go" && words[1] === "test" ? 0 : -1),
  argsAfter: startAt,
  takesScriptArgs: false,
  targetForm: "package",
  suiteKind: "go",
  singleTestId: () => false,
  targetWord: "test package",
  validTarget: (t) => sizedTarget(t) && (t === "." || (t.startsWith("./") && REL_PATH.test(t.slice(2)))),
  targetArgs: (targets) => [...targets],
  valueOptions: VALUE_OPTIONS,
  listingWords,
  ownReports: [],
  refusesSuite: () => null,
  quietTemplate: null,
  suiteWords: (words) => ({ words: listingWords(words) }),
  targetedWords(words, targets) {
    const at = startAt(words);
    if (at < 0) return { reason: "the test command does not run `go test`" };
    return { words: listingWords(withoutPositionals(words, at, VALUE_OPTIONS)), args: [...targets] };
  },
  scope: (words) => {
    const at = startAt(words);
    return at < 0 ? null : positionals(words, at, VALUE_OPTIONS);
  },
  inScope: (target, s) =>
    s.some((raw) => {
      const t = norm(target);
      if (!raw.endsWith("/...")) return t === norm(raw);
      const base = norm(raw.slice(0, -4));
      return t === base || t.startsWith(`${base}/`);
    }),
  installedVersion: () => ({
    version: null,
    major: null,
    source: "go test's options (-json) are those of every Go since 1.10",
  }),
};
