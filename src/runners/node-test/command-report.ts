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

/** node --test's words without its reporters and their destinations (`--test-reporter x`, `…=x`). */
export function withoutReporters(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--test-reporter" || w === "--test-reporter-destination") i++;
    else if (!w.startsWith("--test-reporter=") && !w.startsWith("--test-reporter-destination=")) out.push(w);
  }
  return out;
}
