/**
 * The words that make mocha write its xunit report to `report` (a file in the run's tree), added after
 * the command's own: a later `--reporter` replaces an earlier one (`--reporter spec`, `-R spec`) in every
 * mocha from 2 to 12, so the report is written whatever reporter the command chose.
 *
 * The reporter's options are spelled `--reporter-options`: mocha 2 to 5 know only that spelling (given
 * `--reporter-option`, mocha 2 and 3 print the report to the output and write no file), and mocha 6 and
 * later take it as an alias of `--reporter-option`.
 */
export function mochaReportFlags(report: string): string[] {
  return ["--reporter", "xunit", "--reporter-options", `output=${report}`];
}
