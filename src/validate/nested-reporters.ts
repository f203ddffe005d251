import { type ParsedTests, put, type TestOutcome } from "./outcomes.ts";
import {
  capId,
  forEachLine,
  isSpace,
  nextSpace,
  skipSpaces,
  spaceRunStart,
  stripAnsi,
  trailingDuration,
  trimEndLinear,
} from "./text-scan.ts";

/**
 * Reporters that nest tests under suites by indentation (node's spec reporter, jest, vitest, mocha, and
 * TAP), read line by line in linear time: each suite level keeps its joined prefix, cut to the id cap.
 */

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
    return undefined;
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
