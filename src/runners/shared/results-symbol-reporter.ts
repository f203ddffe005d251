import { FILE_ENTRY_NAME, fileEntryId, type ParsedTests, put, type TestOutcome } from "./results-outcomes.ts";
import { RecapReader, recapAt } from "./results-symbol-recap.ts";
import {
  bareTitle,
  cleanName,
  countedSuite,
  dropTestCount,
  endsPrinted,
  isFileSummary,
  isTestFilePath,
  JEST_FILE_FAILED,
  jestFailure,
  type Printed,
  printedAt,
  symbolLine,
  vitestFailure,
} from "./results-symbol-lines.ts";
import { SuiteStack } from "./results-suite-stack.ts";
import { forEachLine, nextSpace, skipSpaces, stripAnsi, trimEndLinear } from "./results-text-scan.ts";

/**
 * Reporters that nest tests under suites by indentation (node's spec reporter, jest, vitest, mocha, and
 * TAP), read line by line in linear time: each suite level keeps its joined prefix, cut to the id cap.
 */

/**
 * Reporters that mark each test with a symbol, nested by indentation: node's spec reporter, jest and
 * vitest (verbose), mocha. Names are qualified by their enclosing suites and file headers (jest's
 * `PASS path`, vitest's `❯ path`), so their ids start with the file; node's and mocha's ids do not name
 * it, and the file each failure comes from is read from their recaps (`files`).
 */
export function parseSymbolReporter(output: string, parser = "spec"): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const files = new Map<string, string[]>();
  const tree = new TreeReader(tests, parser, new RecapReader(tests, files));
  forEachLine(stripAnsi(output), (raw) => tree.read(raw));
  return { parser, tests, ...(files.size > 0 ? { files } : {}) };
}

/** Reads the tree of tests line by line, up to the recap (read by `recap`). */
class TreeReader {
  private readonly stack = new SuiteStack();
  private underFileHeader = false;
  private printed: Printed | null = null;

  private readonly tests: Map<string, TestOutcome>;
  private readonly parser: string;
  private readonly recap: RecapReader;

  constructor(tests: Map<string, TestOutcome>, parser: string, recap: RecapReader) {
    this.tests = tests;
    this.parser = parser;
    this.recap = recap;
  }

  /** Reads one line; false when the rest of the output is not read. */
  read(raw: string): boolean | undefined {
    if (this.recap.kind !== null) return this.recap.read(raw);
    if (this.printed !== null && !endsPrinted(this.printed, raw)) return undefined;
    this.printed = printedAt(raw, this.parser);
    if (this.printed !== null) return undefined;
    this.recap.kind = recapAt(raw);
    if (this.recap.kind !== null) return this.recap.kind === "jest" ? false : undefined;
    const line = trimEndLinear(raw);
    if (this.fileHeader(line) || this.failureLine(line)) return undefined;
    const m = symbolLine(line);
    if (m) this.testLine(m);
    else {
      const title = bareTitle(line);
      if (title) {
        this.stack.popTo(title.indent);
        this.stack.push(title.indent, title.name);
      }
    }
    return undefined;
  }

  /** jest's `PASS path` / `FAIL path`: the file the tests under it are in. */
  private fileHeader(line: string): boolean {
    if (!line.startsWith("PASS ") && !line.startsWith("FAIL ")) return false;
    const at = skipSpaces(line, 5);
    if (at >= line.length) return false;
    this.stack.reset(line.slice(at, nextSpace(line, at)));
    this.underFileHeader = true;
    return true;
  }

  /** A failure named in full outside the tree (vitest's ` FAIL  a.test.ts > suite > name`, jest's `●`). */
  private failureLine(line: string): boolean {
    if (this.parser === "vitest") {
      const id = vitestFailure(line);
      if (id !== null) {
        put(this.tests, id, "failed");
        return true;
      }
    }
    const failure = this.underFileHeader ? jestFailure(line) : null;
    if (failure === null) return false;
    // jest names each failure again in full under its file's header (without --verbose, only there);
    // a file that failed as a whole is the file's entry, not a test.
    this.stack.toRoot();
    put(this.tests, this.stack.join(failure === JEST_FILE_FAILED ? FILE_ENTRY_NAME : failure), "failed");
    return true;
  }

  private testLine({ indent, sym, rest }: { indent: number; sym: string; rest: string }): void {
    const { parser, stack } = this;
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
    put(this.tests, id, outcome);
    if (outcome === "failed") this.recap.failed(name, id, sym);
  }
}
