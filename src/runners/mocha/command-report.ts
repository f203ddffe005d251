import { sameFrom } from "../shared/command-js.ts";

/**
 * How each major version of mocha spells its reporter's options. A later `--reporter` replaces an
 * earlier one (`--reporter spec`, `-R spec`) in every mocha from 2 to 12, so the xunit report is written
 * whatever reporter the command chose. mocha 2 to 5 know only `--reporter-options` (given
 * `--reporter-option`, mocha 2 and 3 print the report to the output and write no file); mocha 6 and later
 * take `--reporter-option` and keep `--reporter-options` as its alias.
 */
export const MOCHA_REPORTER_OPTIONS: Readonly<Record<number, readonly string[]>> = {
  ...sameFrom(2, 5, ["--reporter-options"]),
  ...sameFrom(6, 12, ["--reporter-options", "--reporter-option"]),
};
/** The spelling every mocha from 2 to 12 takes. */
export const SAFEST_REPORTER_OPTIONS = "--reporter-options";

/** The words that make mocha write its xunit report to `report` (a file in the run's tree), added after the command's own. */
export function mochaReportFlags(report: string, spelling: string = SAFEST_REPORTER_OPTIONS): string[] {
  return ["--reporter", "xunit", spelling, `output=${report}`];
}
