import { type ParsedTests, put, type TestOutcome } from "../shared/results-outcomes.ts";
import { forEachLine, isSpace, nextSpace, skipSpaces } from "../shared/results-text-scan.ts";

/** The verdict words CTest prints after a test's dots, and what each means. */
const CTEST_VERDICTS: readonly [string, TestOutcome][] = [
  ["Passed", "passed"],
  ["***Failed", "failed"],
  ["***Exception", "failed"],
  ["***Timeout", "failed"],
  ["Subprocess aborted", "failed"],
  ["***Not Run (Disabled)", "skipped"],
  ["***Skipped", "skipped"],
  ["***Not Run", "failed"],
  ["Failed", "failed"],
];

/**
 * One CTest result line (`3/4 Test #3: name ......   Passed    0.01 sec`, or without its `3/4` under
 * `-N`-less quiet runs): the test's name and outcome, or null. Read left to right, once.
 */
function ctestLine(line: string): [string, TestOutcome] | null {
  let at = skipSpaces(line);
  // `3/4 ` (its count) is optional: CTest leaves it out of a rerun's lines.
  if (line[at] !== undefined && line[at]! >= "0" && line[at]! <= "9") {
    const end = nextSpace(line, at);
    if (!/^\d+\/\d+$/.test(line.slice(at, end))) return null;
    at = skipSpaces(line, end);
  }
  if (!line.startsWith("Test", at)) return null;
  at = skipSpaces(line, at + 4);
  if (line[at] !== "#") return null;
  const colon = line.indexOf(": ", at);
  if (colon < 0 || !/^#\d+$/.test(line.slice(at, colon))) return null;
  const start = colon + 2;
  const end = nextSpace(line, start);
  if (end <= start || end >= line.length) return null;
  const name = line.slice(start, end);
  // The dots that pad the name (none when it is long), then the verdict.
  let k = end;
  while (isSpace(line[k]) || line[k] === ".") k++;
  for (const [word, outcome] of CTEST_VERDICTS) if (line.startsWith(word, k)) return [name, outcome];
  return null;
}

/** A GoogleTest verdict line: `[       OK ] Suite.Name (0 ms)`, `[  FAILED  ] Suite.Name (1 ms)`. */
function gtestLine(line: string): [string, TestOutcome] | null {
  if (!line.startsWith("[")) return null;
  const close = line.indexOf("] ");
  if (close < 0 || close > 12) return null;
  const word = line.slice(1, close).trim();
  const outcome: TestOutcome | null =
    word === "OK" ? "passed" : word === "FAILED" ? "failed" : word === "SKIPPED" ? "skipped" : null;
  if (!outcome) return null;
  const start = close + 2;
  const end = nextSpace(line, start);
  const name = line.slice(start, end);
  // A test's name is `Suite.Name` (a typed or parameterized one `Suite/0.Name/1`); its time follows.
  if (!/^[A-Za-z_][\w/]*\.[A-Za-z_][\w/]*$/.test(name)) return null;
  if (!/^ \(\d+ ms\)/.test(line.slice(end))) return null;
  return [name, outcome];
}

/**
 * CTest's per-test lines (ids: the CTest test names; a GoogleTest test registered by
 * `gtest_discover_tests` is `Suite.Name`), else GoogleTest's own verdict lines (a test binary run by
 * itself). A line a test printed that repeats another test's verdict cannot clear a failure: a test
 * seen twice keeps its worse outcome.
 */
export function parseCTest(output: string): ParsedTests {
  const ctest = new Map<string, TestOutcome>();
  const gtest = new Map<string, TestOutcome>();
  forEachLine(output, (raw) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const c = ctestLine(line);
    if (c) put(ctest, c[0], c[1]);
    else {
      const g = gtestLine(line);
      if (g) put(gtest, g[0], g[1]);
    }
    return undefined;
  });
  return ctest.size > 0 ? { parser: "ctest", tests: ctest } : { parser: "gtest", tests: gtest };
}
