import type { ParsedTests, RunnerResults } from "../parts/results.ts";
import { JS_FAILURE_REPORT, jsResults } from "../shared/results-js.ts";
import { parseJUnitXml } from "../shared/results-junit-xml.ts";

/**
 * mocha's xunit report written to its output (a mocha that took `--reporter xunit` but not the option
 * that names its file): the report from the first line that opens a `<testsuite` to the last
 * `</testsuite>`. Ids are `suite titles > name`, the file each test names kept apart (`files`).
 */
export function parseXunitOutput(output: string): ParsedTests {
  const open = output.startsWith("<testsuite") ? 0 : output.indexOf("\n<testsuite") + 1;
  const close = output.lastIndexOf("</testsuite>");
  if (open <= 0 && !output.startsWith("<testsuite")) return { parser: "mocha-xunit", tests: new Map() };
  if (close < open) return { parser: "mocha-xunit", tests: new Map() };
  const xml = output.slice(open, close + "</testsuite>".length);
  const r = parseJUnitXml(xml, new Map(), new Map(), (classname, name) =>
    [classname, name].filter(Boolean).join(" > "),
  );
  return { ...r, parser: "mocha-xunit" };
}

/** mocha: its spec reporter (the default), TAP, or its xunit report written to its output. */
export const results: RunnerResults = {
  ...jsResults("mocha", [parseXunitOutput]),
  failureReport: JS_FAILURE_REPORT,
};
