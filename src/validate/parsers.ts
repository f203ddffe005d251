import type { TestFramework } from "../config/index.ts";
import {
  capHeadTail,
  capId,
  forEachLine,
  forEachLineWith,
  isSpace,
  isWordChar,
  MAX_TEST_OUTPUT_CHARS,
  MAX_TEST_OUTPUT_LINES,
  nextSpace,
  skipSpaces,
  spaceRunStart,
  stripAnsi,
  trailingDuration,
  trimEndLinear,
} from "./text-scan.ts";

import { type ParsedTests, put, type TestOutcome } from "./outcomes.ts";

export { parseJUnitXml } from "./junit.ts";
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

/** unittest `-v`: `test_a (module.Class.test_a) ... ok|FAIL|ERROR|skipped`. */
export function parseUnittest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  forEachLineWith(output, ") ... ", (line) => {
    let i = 0;
    while (isWordChar(line[i])) i++;
    if (i === 0 || !line.startsWith(" (", i)) return;
    const name = line.slice(0, i);
    const open = i + 2;
    let j = open;
    while (isWordChar(line[j]) || line[j] === ".") j++;
    if (j === open || !line.startsWith(") ... ", j)) return;
    const dottedRaw = line.slice(open, j);
    const rest = line.slice(j + 6);
    const word = UNITTEST_WORDS.find((w) => rest.startsWith(w));
    if (!word) return;
    const dotted = dottedRaw.endsWith(`.${name}`) ? dottedRaw : `${dottedRaw}.${name}`;
    put(tests, dotted, UNITTEST[word]!);
  });
  return { parser: "unittest", tests };
}

const SYMBOLS = ["✔", "✓", "√", "✖", "✕", "×", "﹣", "○", "↓", "-", "▶", "❯"] as const;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** Where a reporter starts repeating failures (node's, jest's, vitest's, mocha's recaps). */
function isRecap(raw: string): boolean {
  const at = skipSpaces(raw);
  const c = raw[at];
  if (c === "✖") return raw.startsWith("✖ failing tests:", at);
  if (c === "S") return raw.startsWith("Summary of all failing tests", at);
  if (c === "F") return raw.startsWith("Failed Tests ", at) && isDigit(raw[at + 13]);
  let d = at;
  while (isDigit(raw[d])) d++;
  return d > at && raw.length === d + 8 && raw.startsWith(" failing", d);
}

const SYMBOL_SET = new Set<string>(SYMBOLS);

/** `<indent><symbol> <name>`: the symbol (or `N)` for mocha failures) and where the name starts. */
function symbolLine(line: string): { indent: number; sym: string; rest: string } | null {
  const indent = skipSpaces(line);
  const c = line[indent];
  let sym: string | null = null;
  if (c !== undefined && SYMBOL_SET.has(c) && line[indent + 1] === " ") sym = c;
  else if (isDigit(c)) {
    let d = indent;
    while (isDigit(line[d])) d++;
    if (line[d] === ")" && line[d + 1] === " ") sym = line.slice(indent, d + 1);
  }
  if (sym === null) return null;
  const rest = line.slice(indent + sym.length + 1);
  if (rest === "") return null;
  return { indent, sym, rest };
}

/** Removes ` # SKIP…` / ` # TODO…` (whitespace before the `#` required). */
function dropDirective(s: string): string {
  for (let h = s.indexOf("#", 1); h !== -1; h = s.indexOf("#", h + 1)) {
    if (!isSpace(s[h - 1])) continue;
    const at = skipSpaces(s, h + 1);
    if (s.startsWith("SKIP", at) || s.startsWith("TODO", at)) return s.slice(0, spaceRunStart(s, h));
  }
  return s;
}

/** Removes a trailing ` (N tests…)` count from a suite title. */
function dropTestCount(s: string): string {
  if (!s.endsWith(")")) return s;
  for (let p = s.indexOf("(", 1); p !== -1; p = s.indexOf("(", p + 1)) {
    if (!isSpace(s[p - 1])) continue;
    let d = p + 1;
    while (s[d] !== undefined && s[d]! >= "0" && s[d]! <= "9") d++;
    if (d > p + 1 && s.startsWith(" test", d)) return s.slice(0, spaceRunStart(s, p));
  }
  return s;
}

/** A file summary line such as `src/a.test.ts (3 tests) 12ms`. */
function isFileSummary(name: string): boolean {
  const sp = name.indexOf(" (");
  if (sp < 0 || nextSpace(name) !== sp) return false;
  const dot = name.lastIndexOf(".", sp);
  if (dot < 1 || !/^(?:[cm]?[jt]sx?)$/.test(name.slice(dot + 1, sp))) return false;
  let d = sp + 2;
  while (name[d] !== undefined && name[d]! >= "0" && name[d]! <= "9") d++;
  return d > sp + 2 && name.startsWith(" test", d);
}

const BARE_TITLE_SKIP = ["at ", "ℹ", "Test:", "Tests:", "Suite:", "Suites:", "Time:", "Snapshots:"];

/** A bare indented title (jest and mocha describe blocks): `<indent><letter or _><no colon>`. */
function bareTitle(line: string): { indent: number; name: string } | null {
  const indent = skipSpaces(line);
  if (indent === 0 || indent === line.length) return null;
  const c = line[indent]!;
  if (!((c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_")) return null;
  const name = line.slice(indent);
  if (name.includes(":") || BARE_TITLE_SKIP.some((p) => name.startsWith(p))) return null;
  return { indent, name: name.trim() };
}

/**
 * A stack of enclosing suites whose joined prefix is kept per level, cut to the id cap, so that a
 * test line costs the same however deep it is nested.
 */
class SuiteStack {
  private levels: { indent: number; prefix: string }[] = [];
  private root = "";
  reset(root: string): void {
    this.root = root;
    this.levels.length = 0;
  }
  /** Leaves the suites at `indent` or deeper (`strict`: deeper only). */
  popTo(indent: number, strict = false): void {
    const l = this.levels;
    while (l.length > 0 && (strict ? l[l.length - 1]!.indent > indent : l[l.length - 1]!.indent >= indent))
      l.pop();
  }
  prefix(): string {
    return this.levels.length > 0 ? this.levels[this.levels.length - 1]!.prefix : this.root;
  }
  join(name: string): string {
    const p = this.prefix();
    return capId(p === "" ? name : name === "" ? p : `${p} > ${name}`);
  }
  push(indent: number, name: string): void {
    this.levels.push({ indent, prefix: this.join(name) });
  }
  top(): { indent: number } | undefined {
    return this.levels[this.levels.length - 1];
  }
  pop(): void {
    this.levels.pop();
  }
}

/**
 * Reporters that mark each test with a symbol, nested by indentation: node's spec reporter, jest and
 * vitest (verbose), mocha. Names are qualified by their enclosing suites and file headers.
 */
export function parseSymbolReporter(output: string, parser = "spec"): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const stack = new SuiteStack();
  forEachLine(stripAnsi(output), (raw) => {
    if (isRecap(raw)) return false;
    const line = trimEndLinear(raw);
    if (line.startsWith("PASS ") || line.startsWith("FAIL ")) {
      const at = skipSpaces(line, 5);
      if (at < line.length) {
        stack.reset(line.slice(at, nextSpace(line, at)));
        return;
      }
    }
    const m = symbolLine(line);
    if (!m) {
      const title = bareTitle(line);
      if (title) {
        stack.popTo(title.indent);
        stack.push(title.indent, title.name);
      }
      return;
    }
    const { indent, sym, rest } = m;
    let name = dropDirective(rest);
    const paren = trailingDuration(name, true);
    if (paren >= 0) name = name.slice(0, paren);
    const bare = trailingDuration(name, false);
    if (bare >= 0) name = name.slice(0, bare);
    name = name.trim();
    stack.popTo(indent);
    if (sym === "▶" || sym === "❯") {
      stack.push(indent, dropTestCount(name));
      return;
    }
    if (sym === "-" && !/#\s*SKIP|pending/i.test(rest)) return;
    if (isFileSummary(name)) return;
    const outcome: TestOutcome =
      sym === "✔" || sym === "✓" || sym === "√"
        ? "passed"
        : sym === "﹣" || sym === "○" || sym === "↓" || sym === "-"
          ? "skipped"
          : "failed";
    put(tests, stack.join(name), outcome);
  });
  return { parser, tests };
}

/** `ok N - name # SKIP` / `not ok N name`: the pass flag, the name and whether a directive skips it. */
function tapLine(line: string): { indent: number; ok: boolean; name: string; skip: boolean } | null {
  const indent = skipSpaces(line);
  const low = line.slice(indent, indent + 7).toLowerCase();
  const ok = !low.startsWith("not ok ");
  if (ok && !low.startsWith("ok ")) return null;
  let i = indent + (ok ? 3 : 7);
  const digits = i;
  while (line[i] !== undefined && line[i]! >= "0" && line[i]! <= "9") i++;
  if (i === digits) return null;
  let rest = line.slice(i);
  if (rest.startsWith(" - ")) rest = rest.slice(3);
  else if (rest !== "" && !rest.startsWith("#") && !rest.startsWith(" #")) return null;
  const hash = rest.indexOf("#");
  let skip = false;
  if (hash >= 0) {
    const at = skipSpaces(rest, hash + 1);
    const word = rest.slice(at, at + 4).toUpperCase();
    if (word !== "SKIP" && word !== "TODO") return null;
    skip = true;
    rest = rest.slice(0, hash);
  }
  return { indent, ok, name: rest.trim(), skip };
}

/** TAP (node --test --test-reporter=tap and others): `ok N - name` / `not ok N - name`, nested by indentation. */
export function parseTap(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const pending = new SuiteStack();
  forEachLine(output, (line) => {
    const indent = skipSpaces(line);
    if (line.startsWith("# Subtest: ", indent) && line.length > indent + 11) {
      pending.popTo(indent);
      pending.push(indent, line.slice(indent + 11));
      return;
    }
    const m = tapLine(line);
    if (!m) return;
    pending.popTo(m.indent, true);
    // The subtest this result closes is announced at the same indentation.
    const closes = pending.top()?.indent === m.indent;
    if (closes) pending.pop();
    put(tests, pending.join(m.name), m.skip ? "skipped" : m.ok ? "passed" : "failed");
  });
  return { parser: "tap", tests };
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
    if (r.tests.size > 0) return note ? { ...r, note } : r;
  }
  return null;
}
