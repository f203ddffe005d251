/**
 * Which repository files are tests. Search leaves them out unless asked; patches never edit them.
 * Paths are repo-relative and `/`-separated.
 */

const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "testing",
  "spec",
  "specs",
  "testdata",
  "__mocks__",
]);

const TEST_NAME_PATTERNS: RegExp[] = [
  // Python
  /^test_.*\.pyi?$/,
  /^.*_tests?\.pyi?$/,
  /^conftest\.py$/,
  // JavaScript / TypeScript
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /\.(test|spec)-d\.ts$/,
  // Java
  /^.*Tests?\.java$/,
  /^Test[A-Z].*\.java$/,
  /^.*IT\.java$/,
  // Go
  /_test\.go$/,
];

export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const base = parts[parts.length - 1] ?? "";
  for (let i = 0; i < parts.length - 1; i++) {
    if (TEST_DIRS.has(parts[i]!.toLowerCase())) return true;
  }
  // Maven/Gradle layout: src/test/java/...
  if (/(^|\/)src\/(test|it|integrationTest)\//.test(path)) return true;
  return TEST_NAME_PATTERNS.some((re) => re.test(base));
}
