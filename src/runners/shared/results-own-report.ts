import type { ParsedTests } from "../parts/results.ts";
import { parseJUnitXml } from "./results-junit-xml.ts";
import { fileEntryId } from "./results-outcomes.ts";

/**
 * A JUnit report a run had a JavaScript runner write: where its test's suites are named (`classname`:
 * mocha's xunit reporter, the full title of the test's suites; `nesting`: node's junit reporter, the
 * `<testsuite>`s it is in) and the one file the run was given (mocha before 6 names no test's file).
 */
export interface OwnReport {
  suites: "classname" | "nesting";
  file?: string;
}

/** Whether a test's name is the path of its file as node prints it (relative to where it ran, or whole). */
const namesFile = (name: string, file: string): boolean =>
  name !== "" && (name === file || file.endsWith(`/${name.replace(/^\.\//, "")}`));

/**
 * The tests of such a report, ids `file > suite > name` with the file as `relFile` makes it, as the
 * other JavaScript runners' ids. node --test names a file that ran no test of its own (it failed to
 * load, or ended before any test) as a test in no suite named after the file: the file's entry, not a
 * test. A report that names no test is a run that collected none.
 */
export function parseOwnReport(xml: string, report: OwnReport, relFile: (f: string) => string): ParsedTests {
  const sole = report.file ?? "";
  const idOf = (classname: string, name: string, reported: string, suites: readonly string[]): string => {
    const file = reported === "" ? sole : relFile(reported);
    return report.suites === "nesting" && suites.length === 0 && file !== "" && namesFile(name, reported)
      ? fileEntryId(file)
      : [file, ...(report.suites === "classname" ? [classname] : suites), name].filter(Boolean).join(" > ");
  };
  const parsed = parseJUnitXml(xml, new Map(), new Map(), idOf);
  return { ...parsed, parser: report.suites === "classname" ? "mocha-xunit" : "node-test-junit" };
}
