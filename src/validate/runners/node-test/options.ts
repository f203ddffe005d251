/**
 * The words that make `node --test` write a JUnit report to `report` (a file in the run's tree) and its
 * spec reporter to the output, put right after `--test` once the command's own reporters are dropped
 * (each reporter needs a destination of its own, paired in order).
 */
export function nodeTestReportFlags(report: string): string[] {
  return [
    "--test-reporter=junit",
    `--test-reporter-destination=${report}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
  ];
}
