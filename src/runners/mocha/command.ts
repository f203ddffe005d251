import type { RunnerCommand } from "../parts/command.ts";
import { type JsTool, jsAt, jsCommandBase, jsSpelling, jsTargeted } from "../shared/command-js.ts";
import { pathInScope, scriptSeparator, viaScript, withoutPositionals } from "../shared/command-words.ts";
import { MOCHA_REPORTER_OPTIONS, mochaReportFlags, SAFEST_REPORTER_OPTIONS } from "./command-report.ts";

/** mocha's options that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-r",
  "--require",
  "-R",
  "--reporter",
  "-O",
  "--reporter-option",
  "--reporter-options",
  "-u",
  "--ui",
  "-g",
  "--grep",
  "-f",
  "--fgrep",
  "-t",
  "--timeout",
  "-s",
  "--slow",
  "--retries",
  "--config",
  "--package",
  "--extension",
  "--file",
  "--ignore",
  "--exclude",
  "-j",
  "--jobs",
  "--spec",
]);

const MOCHA: JsTool<string> = {
  name: "mocha",
  bins: ["mocha", "_mocha"],
  packages: ["mocha"],
  // The first spelling each major takes (`--reporter-options` in all of them).
  versions: Object.fromEntries(Object.entries(MOCHA_REPORTER_OPTIONS).map(([m, s]) => [m, s[0]!])),
  safest: SAFEST_REPORTER_OPTIONS,
};

export const command: RunnerCommand = {
  ...jsCommandBase(MOCHA, VALUE_OPTIONS),
  suiteWords(words, ctx) {
    const { spelling, notes } = jsSpelling(MOCHA, ctx);
    return {
      words: [...words, ...scriptSeparator(words), ...mochaReportFlags(ctx.reportName, spelling)],
      report: { path: ctx.reportName, suites: "classname" },
      ...(notes ? { notes } : {}),
    };
  },
  targetedWords(words, targets, ctx) {
    // mocha runs the folders and files its command names besides those it is given: they are dropped
    // (the selected tests stand for them; the command's scope keeps the selection within them).
    const at = jsAt(MOCHA, words);
    const base = viaScript(words) || at < 0 ? words : withoutPositionals(words, at, VALUE_OPTIONS);
    const plain = jsTargeted(MOCHA, base, targets, []);
    if ("reason" in plain || ctx.reportsNamed) return plain;
    // One process, its xunit reporter writing a report that names each test's file: mocha adds the
    // files its configuration names (`spec` in .mocharc) to those it is given, so a process per file
    // would run them too and credit their tests to the file it was given. Tests of files that were not
    // selected are not counted (onlyFiles). A later --reporter replaces the command's own.
    const { spelling, notes } = jsSpelling(MOCHA, ctx);
    const paths = plain.args.slice(plain.args.length - targets.length);
    const fixed = plain.args.slice(0, plain.args.length - targets.length);
    return {
      words: [...plain.words, ...fixed, ...mochaReportFlags(ctx.reportName, spelling)],
      args: paths,
      report: {
        path: ctx.reportName,
        suites: "classname",
        ...(targets.length === 1 && !viaScript(words) ? { file: targets[0]! } : {}),
      },
      onlyFiles: true,
      ...(notes ? { notes } : {}),
    };
  },
  inScope: pathInScope,
};
