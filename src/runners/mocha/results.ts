import type { ParsedTests, RunnerResults } from "../parts/results.ts";
import { JS_FAILURE_REPORT, jsResults } from "../shared/results-js.ts";
import { parseJUnitXml } from "../shared/results-junit-xml.ts";

/**
 * mocha's xunit report written to its output (a mocha that took `--reporter xunit` but not the option
 * that names its file, as mocha before 4 spells it): the report from the first line that opens a
 * `<testsuite` to the last `</testsuite>`, which ends the output. Ids are `suite titles > name`; the file each test names is
 * kept apart (`files`). Empty when the output holds no such report.
 */
export function parseXunitOutput(output: string): ParsedTests {
  const empty = { parser: "mocha-xunit", tests: new Map() };
  const open = output.startsWith("<testsuite") ? 0 : output.indexOf("\n<testsuite") + 1;
  if (open === 0 && !output.startsWith("<testsuite")) return empty;
  const close = output.lastIndexOf("</testsuite>");
  // mocha writes the report last, after every test ran: a report with more after it was printed by a
  // test (the spec and TAP reporters end with their summary).
  if (close < open || output.slice(close + "</testsuite>".length).trim() !== "") return empty;
  const xml = output.slice(open, close + "</testsuite>".length);
  const r = parseJUnitXml(xml, new Map(), new Map(), (classname, name) =>
    [classname, name].filter(Boolean).join(" > "),
  );
  return { ...r, parser: "mocha-xunit" };
}

const reporters = jsResults("mocha");

/**
 * mocha: its xunit report when the output holds one (the reporter it ran then was xunit: a line a test
 * printed before it is not a result), else its spec reporter (the default) or TAP.
 */
export const results: RunnerResults = {
  ...reporters,
  // mocha's reporters write to stdout: what a test prints to stderr is not read with them.
  reportStream: "stdout",
  parseOutput: (output) => {
    const xunit = parseXunitOutput(output);
    return xunit.tests.size > 0 ? xunit : reporters.parseOutput(output);
  },
  failureReport: JS_FAILURE_REPORT,
};
