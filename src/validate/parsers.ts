import type { TestFramework } from "../config/index.ts";
import {
  capHeadTail,
  forEachLine,
  forEachLineWith,
  isSpace,
  isWordChar,
  MAX_TEST_OUTPUT_CHARS,
  MAX_TEST_OUTPUT_LINES,
  nextSpace,
  skipSpaces,
  stripAnsi,
  trimEndLinear,
} from "./text-scan.ts";

import { parseSymbolReporter, parseTap } from "./nested-reporters.ts";
import { type ParsedTests, put, type TestOutcome } from "./outcomes.ts";

export { parseJUnitXml } from "./junit.ts";
export { parseSymbolReporter, parseTap } from "./nested-reporters.ts";
export type { ParsedTests, TestOutcome } from "./outcomes.ts";

const PYTEST: Record<string, TestOutcome> = {
  PASSED: "passed",
  XPASS: "passed",
  FAILED: "failed",
  ERROR: "failed",
  XFAIL: "skipped",
  SKIPPED: "skipped",
};

/** Index of the last `::` in `tok` that has a character before it and one after it; -1 when none. */
function lastNodeSep(tok: string): number {
  if (tok.length < 4) return -1;
  const k = tok.lastIndexOf("::", tok.length - 3);
  return k >= 1 ? k : -1;
}

/** The status word (PASSED, FAILED, …) at `at`, ending at a word boundary; null when none. */
function statusAt(line: string, at: number, words: readonly string[]): string | null {
  for (const w of words) {
    if (line.startsWith(w, at) && !isWordChar(line[at + w.length])) return w;
  }
  return null;
}

const SUMMARY_WORDS = ["PASSED", "FAILED", "ERROR", "XFAIL", "XPASS"] as const;
const VERBOSE_WORDS = ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"] as const;

/** `PASSED path::test[ - reason]` (the `-rA` short summary), or `ERROR path.py[ - reason]`. */
function pytestSummary(line: string): [string, TestOutcome] | null {
  const sp = line.indexOf(" ");
  if (sp < 0) return null;
  const word = line.slice(0, sp);
  if (!(SUMMARY_WORDS as readonly string[]).includes(word)) return null;
  const rest = line.slice(sp + 1);
  const tokEnd = nextSpace(rest);
  const tok = rest.slice(0, tokEnd);
  const sep = lastNodeSep(tok);
  if (sep >= 0) {
    const dash = rest.indexOf(" - ", sep + 3);
    return [dash < 0 ? rest : rest.slice(0, dash), PYTEST[word]!];
  }
  // A collection error names a file, not a test.
  if (word === "ERROR" && tok.length > 3 && tok.endsWith(".py")) {
    if (tokEnd === rest.length || rest.startsWith(" - ", tokEnd)) return [`${tok}::<collection>`, "failed"];
  }
  return null;
}

/** `path::test[params] STATUS …` (`-v` lines); params may hold spaces. */
function pytestVerbose(line: string): [string, TestOutcome] | null {
  const w = nextSpace(line);
  const head = line.slice(0, w);
  if (line[w] === " " && lastNodeSep(head) >= 0) {
    const word = statusAt(line, w + 1, VERBOSE_WORDS);
    if (word) return [head, PYTEST[word]!];
  }
  // `path::test[a b] STATUS`: the part before the last `[` of the first word holds the `::`.
  const bracket = head.lastIndexOf("[");
  if (bracket < 0 || lastNodeSep(head.slice(0, bracket)) < 0) return null;
  for (let p = line.indexOf("] ", w); p !== -1; p = line.indexOf("] ", p + 1)) {
    const word = statusAt(line, p + 2, VERBOSE_WORDS);
    if (word) return [line.slice(0, p + 1), PYTEST[word]!];
  }
  return null;
}

/** pytest: the `-rA` short summary (`PASSED path::test`) and `-v` lines (`path::test PASSED`). */
export function parsePytest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const text = stripAnsi(output);
  // Every line pytest reports a test on names it with `::`, except a collection error (`ERROR x.py`).
  const read = (raw: string): void => {
    const line = trimEndLinear(raw);
    const hit = pytestSummary(line) ?? pytestVerbose(line);
    if (hit) put(tests, hit[0], hit[1]);
  };
  forEachLineWith(text, "::", read);
  forEachLineWith(text, "ERROR ", (raw) => {
    if (raw.startsWith("ERROR ") && !raw.includes("::")) read(raw);
  });
  return { parser: "pytest", tests };
}

const UNITTEST: Record<string, TestOutcome> = {
  ok: "passed",
  "unexpected success": "passed",
  FAIL: "failed",
  ERROR: "failed",
  skipped: "skipped",
  "expected failure": "skipped",
};

const UNITTEST_WORDS = Object.keys(UNITTEST);

/** `name (dotted)` at the start of a line: the test's name, its dotted id and where the header ends. */
function unittestHead(line: string): { name: string; dotted: string; end: number } | null {
  let i = 0;
  while (isWordChar(line[i])) i++;
  if (i === 0 || !line.startsWith(" (", i)) return null;
  const name = line.slice(0, i);
  const open = i + 2;
  let j = open;
  while (isWordChar(line[j]) || line[j] === ".") j++;
  if (j === open || line[j] !== ")") return null;
  const dottedRaw = line.slice(open, j);
  return { name, dotted: dottedRaw.endsWith(`.${name}`) ? dottedRaw : `${dottedRaw}.${name}`, end: j + 1 };
}

/**
 * unittest `-v`: `test_a (module.Class.test_a) ... ok|FAIL|ERROR|skipped`, or, for a test with a
 * docstring, the header alone on its line and `First docstring line ... ok` on the next.
 */
export function parseUnittest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const outcome = (rest: string): TestOutcome | null => {
    const word = UNITTEST_WORDS.find((w) => rest.startsWith(w));
    return word ? UNITTEST[word]! : null;
  };
  let pending: string | null = null;
  forEachLine(output, (line) => {
    const head = unittestHead(line);
    if (head && line.startsWith(" ... ", head.end)) {
      const o = outcome(line.slice(head.end + 5));
      if (o) put(tests, head.dotted, o);
      pending = null;
      return;
    }
    if (head && trimEndLinear(line).length === head.end) {
      pending = head.dotted;
      return;
    }
    if (pending !== null) {
      const at = line.lastIndexOf(" ... ");
      const o = at >= 0 ? outcome(line.slice(at + 5)) : null;
      if (o) put(tests, pending, o);
      pending = null;
    }
    return;
  });
  return { parser: "unittest", tests };
}

/** Lines starting with `{` that fail to parse as JSON before the go parser stops trying. */
const MAX_BAD_JSON_LINES = 1000;

/** `go test -json` events, or `go test -v` text (`--- PASS: TestX`, qualified by the package line). */
export function parseGoTest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  let sawJson = false;
  const textPending: [string, TestOutcome][] = [];
  // `go test -json` writes only valid events: after a few lines that are not, stop trying (a failed
  // JSON.parse throws, which costs microseconds per line).
  let badJson = 0;
  forEachLine(output, (line) => {
    if (line.startsWith("{") && badJson < MAX_BAD_JSON_LINES) {
      try {
        const ev = JSON.parse(line) as { Action?: unknown; Package?: unknown; Test?: unknown };
        if (typeof ev?.Action !== "string") return;
        sawJson = true;
        const pkg = typeof ev.Package === "string" ? ev.Package : "";
        const action = ev.Action;
        if (typeof ev.Test === "string" && ev.Test !== "") {
          if (action === "pass" || action === "fail" || action === "skip") {
            put(
              tests,
              `${pkg}.${ev.Test}`,
              action === "pass" ? "passed" : action === "fail" ? "failed" : "skipped",
            );
          }
        } else if (action === "fail" && pkg) put(tests, `${pkg}.<package>`, "failed");
        return;
      } catch {
        badJson++;
      }
    }
    const at = skipSpaces(line);
    if (line.startsWith("--- ", at)) {
      const word = statusAt(line, at + 4, ["PASS", "FAIL", "SKIP"]);
      if (word && line[at + 8] === ":" && line[at + 9] === " " && !isSpace(line[at + 10])) {
        const name = line.slice(at + 10, nextSpace(line, at + 10));
        if (name !== "") {
          textPending.push([name, word === "PASS" ? "passed" : word === "FAIL" ? "failed" : "skipped"]);
          return;
        }
      }
    }
    const head = line.startsWith("ok") ? 2 : line.startsWith("FAIL") ? 4 : 0;
    if (head > 0 && isSpace(line[head])) {
      const start = skipSpaces(line, head);
      const end = nextSpace(line, start);
      if (end > start && end < line.length) {
        const pkg = line.slice(start, end);
        for (const [t, o] of textPending.splice(0)) put(tests, `${pkg}.${t}`, o);
        // `FAIL\tpkg [build failed]` (or `[setup failed]`): go before 1.24 writes it as text even
        // under -json; the package's tests never ran.
        const why = trimEndLinear(line.slice(skipSpaces(line, end)));
        if (head === 4 && (why === "[build failed]" || why === "[setup failed]"))
          put(tests, `${pkg}.<package>`, "failed");
      }
    }
  });
  for (const [t, o] of textPending) put(tests, t, o);
  return { parser: sawJson ? "go-json" : "go", tests };
}

/**
 * Reads per-test results from a run's output with the parser for its framework; null when none fits.
 * Output past MAX_TEST_OUTPUT_CHARS or MAX_TEST_OUTPUT_LINES is cut in the middle (head and tail kept)
 * and not parsed; the result's `note` says so.
 */
export function parseTestOutput(
  framework: TestFramework,
  stdout: string,
  stderr: string,
): ParsedTests | null {
  const { text, note } = capHeadTail(
    `${stdout}\n${stderr}`,
    MAX_TEST_OUTPUT_CHARS,
    "The test output",
    MAX_TEST_OUTPUT_LINES,
  );
  const attempts: (() => ParsedTests)[] = [];
  switch (framework) {
    case "pytest":
      attempts.push(() => parsePytest(text));
      break;
    case "unittest":
      attempts.push(() => parseUnittest(text));
      break;
    case "go":
      attempts.push(() => parseGoTest(text));
      break;
    case "node-test":
    case "jest":
    case "vitest":
    case "mocha":
    case "npm":
      attempts.push(
        () => parseSymbolReporter(text, framework),
        () => parseTap(text),
      );
      break;
    default:
      attempts.push(
        () => parsePytest(text),
        () => parseUnittest(text),
        () => parseGoTest(text),
        () => parseSymbolReporter(text),
        () => parseTap(text),
      );
  }
  for (const attempt of attempts) {
    const r = attempt();
    // `go test -json` events that name no test are a run that collected none, not a run without a
    // per-test report.
    if (r.tests.size > 0 || (framework === "go" && r.parser === "go-json")) return note ? { ...r, note } : r;
  }
  return null;
}
