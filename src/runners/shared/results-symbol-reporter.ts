import {
  FILE_ENTRY_NAME,
  fileEntryId,
  type ParsedTests,
  put,
  putFile,
  type TestOutcome,
} from "./results-outcomes.ts";
import { SuiteStack } from "./results-suite-stack.ts";
import {
  forEachLine,
  isSpace,
  nextSpace,
  skipSpaces,
  spaceRunStart,
  stripAnsi,
  trailingDuration,
  trimEndLinear,
} from "./results-text-scan.ts";

/**
 * Reporters that nest tests under suites by indentation (node's spec reporter, jest, vitest, mocha, and
 * TAP), read line by line in linear time: each suite level keeps its joined prefix, cut to the id cap.
 */

const SYMBOLS = ["✔", "✓", "√", "✖", "✕", "×", "﹣", "○", "↓", "-", "▶", "❯"] as const;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/**
 * Where a reporter starts repeating failures (node's, jest's, vitest's, mocha's recaps), and how the
 * recap is read: node's and mocha's name the file each failure comes from (`test at a.test.js:5:3`, a
 * stack frame), vitest's names it in the id (` FAIL  a.test.ts > suite > name`), jest's is not read.
 */
type Recap = "node" | "mocha" | "vitest" | "jest";

function recapAt(raw: string): Recap | null {
  const at = skipSpaces(raw);
  const c = raw[at];
  if (c === "✖") return raw.startsWith("✖ failing tests:", at) ? "node" : null;
  if (c === "S") return raw.startsWith("Summary of all failing tests", at) ? "jest" : null;
  if (c === "F") return raw.startsWith("Failed Tests ", at) && isDigit(raw[at + 13]) ? "vitest" : null;
  let d = at;
  while (isDigit(raw[d])) d++;
  return d > at && raw.length === d + 8 && raw.startsWith(" failing", d) ? "mocha" : null;
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

/** Removes a trailing ` (N tests…)` count (or vitest's ` (N)`) from a suite title. */
function dropTestCount(s: string): string {
  if (!s.endsWith(")")) return s;
  for (let p = s.indexOf("(", 1); p !== -1; p = s.indexOf("(", p + 1)) {
    if (!isSpace(s[p - 1])) continue;
    let d = p + 1;
    while (s[d] !== undefined && s[d]! >= "0" && s[d]! <= "9") d++;
    if (d > p + 1 && (s.startsWith(" test", d) || d === s.length - 1)) return s.slice(0, spaceRunStart(s, p));
  }
  return s;
}

/** vitest's collapsed suite line: a title that ends with its test count, ` (N)`. */
function countedSuite(s: string): boolean {
  if (!s.endsWith(")")) return false;
  let d = s.length - 2;
  while (d > 0 && isDigit(s[d])) d--;
  return d < s.length - 2 && s[d] === "(" && isSpace(s[d - 1]);
}

/** The location a stack frame names: `at f (path:1:2)` → `path:1:2`, `at path:1:2` → itself. */
function frameLocation(line: string): string | null {
  const at = skipSpaces(line);
  if (!line.startsWith("at ", at)) return null;
  const t = trimEndLinear(line);
  let loc = t.slice(at + 3);
  if (t.endsWith(")")) {
    const open = t.lastIndexOf("(");
    if (open < at) return null;
    loc = t.slice(open + 1, -1);
  }
  if (loc.startsWith("node:") || loc.includes("/node_modules/") || loc.startsWith("<")) return null;
  return loc;
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

/** A name without a trailing ` # SKIP`, duration or spaces (or a skip's reason after its duration). */
function cleanName(rest: string): string {
  let name = dropDirective(rest);
  // node: `﹣ name (0.1ms) # reason`.
  const hash = name.lastIndexOf(" # ");
  if (hash > 0 && trailingDuration(name.slice(0, hash), true) >= 0) name = name.slice(0, hash);
  const paren = trailingDuration(name, true);
  if (paren >= 0) name = name.slice(0, paren);
  const bare = trailingDuration(name, false);
  if (bare >= 0) name = name.slice(0, bare);
  return name.trim();
}

/**
 * vitest's ` FAIL  a.test.ts > suite > name`: the failed test's id (it starts with its file); or
 * ` FAIL  a.test.ts [ a.test.ts ]`, a file that failed as a whole (it did not load, or held no test):
 * the file's entry (`fileEntryId`), not a test.
 */
function vitestFailure(line: string): string | null {
  const at = skipSpaces(line);
  if (!line.startsWith("FAIL ", at)) return null;
  const id = line.slice(skipSpaces(line, at + 5));
  if (id.includes(" > ")) return id;
  const open = id.indexOf(" [ ");
  if (open > 0 && id.endsWith(" ]") && id.length === 2 * open + 5 && id.endsWith(`[ ${id.slice(0, open)} ]`))
    return fileEntryId(id.slice(0, open));
  return null;
}

/** A name that is a JavaScript or TypeScript file's path (no space, a JS/TS extension). */
const isTestFilePath = (name: string): boolean => !/\s/.test(name) && /\.[cm]?[jt]sx?$/.test(name);

/** jest's header for a test file that failed as a whole (it did not load, or held no test). */
const JEST_FILE_FAILED = "Test suite failed to run";

/** jest's `● suite › name` failure header, as the id the verbose tree gives (`suite > name`). */
function jestFailure(line: string): string | null {
  const at = skipSpaces(line);
  if (line[at] !== "●" || line[at + 1] !== " ") return null;
  const title = line.slice(at + 2).trim();
  if (title === "" || title === "Console") return null;
  return title.replaceAll(" › ", " > ");
}

/**
 * A block of what a test printed, as jest (`  console.log`, then the message indented) and vitest
 * (`stdout | file > test`, then the text, then a blank line) set it apart: its lines are not results.
 */
type Printed = "jest" | "vitest";

const JEST_CONSOLE = /^ {2}console\.(?:log|error|warn|info|debug|trace)$/;

function printedAt(raw: string, parser: string): Printed | null {
  if (parser === "jest" && JEST_CONSOLE.test(trimEndLinear(raw))) return "jest";
  if (parser === "vitest" && (raw.startsWith("stdout | ") || raw.startsWith("stderr | "))) return "vitest";
  return null;
}

/**
 * Whether `raw` is the first line after a printed block: jest indents every line of a message, so the
 * block ends at the first line that starts at its first column; vitest's ends at a blank line.
 */
function endsPrinted(printed: Printed, raw: string): boolean {
  if (printed === "vitest") return raw.trim() === "";
  return raw !== "" && !isSpace(raw[0]);
}

/**
 * Reporters that mark each test with a symbol, nested by indentation: node's spec reporter, jest and
 * vitest (verbose), mocha. Names are qualified by their enclosing suites and file headers (jest's
 * `PASS path`, vitest's `❯ path`), so their ids start with the file; node's and mocha's ids do not name
 * it, and the file each failure comes from is read from their recaps (`files`).
 */
export function parseSymbolReporter(output: string, parser = "spec"): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const files = new Map<string, string[]>();
  const stack = new SuiteStack();
  /** Failed ids by their own name, in order, and how many the recap has matched (node's recap names a failure by its name only). */
  const failedByName = new Map<string, { ids: string[]; next: number }>();
  /** mocha numbers each failure in the tree (`2) fails`) and again in its recap (`2) suite A`). */
  const byNumber = new Map<string, string>();
  let recap: Recap | null = null;
  let nodeLocation: string | null = null;
  let mochaId: string | null = null;
  let underFileHeader = false;
  const readRecap = (raw: string): boolean | undefined => {
    const line = trimEndLinear(raw);
    if (recap === "node") {
      const at = skipSpaces(line);
      if (line.startsWith("test at ", at) || line.startsWith("suite at ", at)) {
        nodeLocation = line.slice(line.indexOf(" at ", at) + 4);
        return;
      }
      const m = symbolLine(line);
      if (m && m.sym === "✖" && nodeLocation !== null) {
        const same = failedByName.get(cleanName(m.rest));
        const id = same?.ids[same.next];
        if (id !== undefined) {
          same!.next++;
          putFile(files, id, nodeLocation);
        }
      }
      nodeLocation = null;
      return;
    }
    if (recap === "mocha") {
      const m = symbolLine(line);
      if (m?.sym.endsWith(")") && m.indent <= 4) {
        mochaId = byNumber.get(m.sym) ?? null;
        return;
      }
      const loc = mochaId === null ? null : frameLocation(line);
      if (loc !== null) putFile(files, mochaId!, loc);
      return;
    }
    if (recap === "vitest") {
      const id = vitestFailure(line);
      if (id !== null) put(tests, id, "failed");
      return;
    }
    return false;
  };
  let printed: Printed | null = null;
  forEachLine(stripAnsi(output), (raw) => {
    if (recap !== null) return readRecap(raw);
    if (printed !== null && !endsPrinted(printed, raw)) return undefined;
    printed = printedAt(raw, parser);
    if (printed !== null) return undefined;
    recap = recapAt(raw);
    if (recap !== null) return recap === "jest" ? false : undefined;
    const line = trimEndLinear(raw);
    if (line.startsWith("PASS ") || line.startsWith("FAIL ")) {
      const at = skipSpaces(line, 5);
      if (at < line.length) {
        stack.reset(line.slice(at, nextSpace(line, at)));
        underFileHeader = true;
        return;
      }
    }
    if (parser === "vitest") {
      // A failure named in full outside the recap (` FAIL  a.test.ts > suite > name`).
      const id = vitestFailure(line);
      if (id !== null) {
        put(tests, id, "failed");
        return;
      }
    }
    const failure = underFileHeader ? jestFailure(line) : null;
    if (failure !== null) {
      // jest names each failure again in full under its file's header (without --verbose, only there);
      // a file that failed as a whole is the file's entry, not a test.
      stack.toRoot();
      put(tests, stack.join(failure === JEST_FILE_FAILED ? FILE_ENTRY_NAME : failure), "failed");
      return;
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
    let name = cleanName(rest);
    // jest: `○ skipped name`, `✎ todo name`.
    if (sym === "○" && name.startsWith("skipped ")) name = name.slice(8);
    // node's spec reporter closes a suite with a line of its own (`✖ suite (3ms)`): not a test.
    if ((parser === "node-test" || parser === "spec") && stack.closes(indent, name)) {
      stack.popTo(indent);
      return;
    }
    stack.popTo(indent);
    if (sym === "▶" || sym === "❯" || (parser === "vitest" && countedSuite(name))) {
      stack.push(indent, dropTestCount(name));
      return;
    }
    // A `- name` line is a pending test in mocha's tree (indented under its run), else only when marked.
    if (sym === "-" && !(parser === "mocha" && indent >= 2) && !/#\s*SKIP|pending/i.test(rest)) return;
    if (isFileSummary(name)) return;
    const outcome: TestOutcome =
      sym === "✔" || sym === "✓" || sym === "√"
        ? "passed"
        : sym === "﹣" || sym === "○" || sym === "↓" || sym === "-"
          ? "skipped"
          : "failed";
    // node's spec reporter names a test file that ran no test of its own (it failed to load, ended
    // early or held no test) as a test in no suite named after the file: the file's entry.
    const id =
      parser === "node-test" && stack.prefix() === "" && isTestFilePath(name)
        ? fileEntryId(name)
        : stack.join(name);
    put(tests, id, outcome);
    if (outcome === "failed") {
      const same = failedByName.get(name);
      if (same) same.ids.push(id);
      else failedByName.set(name, { ids: [id], next: 0 });
      if (sym.endsWith(")")) byNumber.set(sym, id);
    }
    return undefined;
  });
  return { parser, tests, ...(files.size > 0 ? { files } : {}) };
}
