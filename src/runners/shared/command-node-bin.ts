const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/**
 * Whether a word of a command starts an npm package's program, however it is spelled: its bare name
 * (`jest`, `_mocha`, as `npx` or a script runs it), `node_modules/.bin/<bin>`, or the file in the package
 * (`node node_modules/mocha/bin/_mocha`, `node_modules/jest/bin/jest.js`, `node_modules/vitest/vitest.mjs`).
 * A path outside `node_modules` (a test file called `jest.js`) starts nothing.
 */
export function startsNodeBin(word: string, bins: readonly string[], packages: readonly string[]): boolean {
  const bin = bins.map(escapeRegex).join("|");
  if (new RegExp(`^(${bin})$`).test(word)) return true;
  if (!/(^|\/)node_modules\//.test(word)) return false;
  if (new RegExp(`(?:^|/)node_modules/\\.bin/(${bin})$`).test(word)) return true;
  const pkg = packages.map(escapeRegex).join("|");
  return new RegExp(`(?:^|/)node_modules/(${pkg})/(?:bin/)?(${bin})(?:\\.[cm]?js)?$`).test(word);
}

/** The index of the first word that starts the program (see `startsNodeBin`), or -1. */
export const nodeBinAt = (
  words: readonly string[],
  bins: readonly string[],
  packages: readonly string[],
): number => words.findIndex((w) => startsNodeBin(w, bins, packages));
