import { fileEntryId } from "./results-outcomes.ts";
import {
  isSpace,
  nextSpace,
  skipSpaces,
  spaceRunStart,
  trailingDuration,
  trimEndLinear,
} from "./results-text-scan.ts";

/** The shapes of the lines of reporters that mark each test with a symbol, nested by indentation. */

export const SYMBOLS = ["✔", "✓", "√", "✖", "✕", "×", "﹣", "○", "↓", "-", "▶", "❯"] as const;
export const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

export const SYMBOL_SET = new Set<string>(SYMBOLS);

/** `<indent><symbol> <name>`: the symbol (or `N)` for mocha failures) and where the name starts. */
export function symbolLine(line: string): { indent: number; sym: string; rest: string } | null {
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
export function dropDirective(s: string): string {
  for (let h = s.indexOf("#", 1); h !== -1; h = s.indexOf("#", h + 1)) {
    if (!isSpace(s[h - 1])) continue;
    const at = skipSpaces(s, h + 1);
    if (s.startsWith("SKIP", at) || s.startsWith("TODO", at)) return s.slice(0, spaceRunStart(s, h));
  }
  return s;
}

/** Removes a trailing ` (N tests…)` count (or vitest's ` (N)`) from a suite title. */
export function dropTestCount(s: string): string {
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
export function countedSuite(s: string): boolean {
  if (!s.endsWith(")")) return false;
  let d = s.length - 2;
  while (d > 0 && isDigit(s[d])) d--;
  return d < s.length - 2 && s[d] === "(" && isSpace(s[d - 1]);
}

/** The location a stack frame names: `at f (path:1:2)` → `path:1:2`, `at path:1:2` → itself. */
export function frameLocation(line: string): string | null {
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
export function isFileSummary(name: string): boolean {
  const sp = name.indexOf(" (");
  if (sp < 0 || nextSpace(name) !== sp) return false;
  const dot = name.lastIndexOf(".", sp);
  if (dot < 1 || !/^(?:[cm]?[jt]sx?)$/.test(name.slice(dot + 1, sp))) return false;
  let d = sp + 2;
  while (name[d] !== undefined && name[d]! >= "0" && name[d]! <= "9") d++;
  return d > sp + 2 && name.startsWith(" test", d);
}

export const BARE_TITLE_SKIP = ["at ", "ℹ", "Test:", "Tests:", "Suite:", "Suites:", "Time:", "Snapshots:"];

/** A bare indented title (jest and mocha describe blocks): `<indent><letter or _><no colon>`. */
export function bareTitle(line: string): { indent: number; name: string } | null {
  const indent = skipSpaces(line);
  if (indent === 0 || indent === line.length) return null;
  const c = line[indent]!;
  if (!((c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_")) return null;
  const name = line.slice(indent);
  if (name.includes(":") || BARE_TITLE_SKIP.some((p) => name.startsWith(p))) return null;
  return { indent, name: name.trim() };
}

/** A name without a trailing ` # SKIP`, duration or spaces (or a skip's reason after its duration). */
export function cleanName(rest: string): string {
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
export function vitestFailure(line: string): string | null {
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
export const isTestFilePath = (name: string): boolean => !/\s/.test(name) && /\.[cm]?[jt]sx?$/.test(name);

/** jest's header for a test file that failed as a whole (it did not load, or held no test). */
export const JEST_FILE_FAILED = "Test suite failed to run";

/** jest's `● suite › name` failure header, as the id the verbose tree gives (`suite > name`). */
export function jestFailure(line: string): string | null {
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
export type Printed = "jest" | "vitest";

export const JEST_CONSOLE = /^ {2}console\.(?:log|error|warn|info|debug|trace)$/;

export function printedAt(raw: string, parser: string): Printed | null {
  if (parser === "jest" && JEST_CONSOLE.test(trimEndLinear(raw))) return "jest";
  if (parser === "vitest" && (raw.startsWith("stdout | ") || raw.startsWith("stderr | "))) return "vitest";
  return null;
}

/**
 * Whether `raw` is the first line after a printed block: jest indents every line of a message, so the
 * block ends at the first line that starts at its first column; vitest's ends at a blank line.
 */
export function endsPrinted(printed: Printed, raw: string): boolean {
  if (printed === "vitest") return raw.trim() === "";
  return raw !== "" && !isSpace(raw[0]);
}
