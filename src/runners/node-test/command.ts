import type { RunnerCommand } from "../parts/command.ts";
import { asPathArg, pathInScope, positionals, withoutPositionals } from "../shared/command-words.ts";
import { JS_FILE_TARGETS } from "../shared/command-js.ts";
import { nodeTestReportFlags, withoutReporters } from "./command-report.ts";

/** node's options (with `--test`) that take their value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "--test-reporter",
  "--test-reporter-destination",
  "--test-name-pattern",
  "--test-concurrency",
  "--test-timeout",
  "--test-shard",
  "--import",
  "--require",
  "-r",
  "--loader",
  "--experimental-loader",
]);

const isNode = (words: readonly string[]): boolean => /(^|\/)node$/.test(words[0] ?? "");
/** The index of `--test` in a command that starts node, or -1. */
const startAt = (words: readonly string[]): number => (isNode(words) ? words.indexOf("--test") : -1);

export const command: RunnerCommand = {
  title: "node --test",
  spelled: true,
  namedAt: (words) => (startAt(words) >= 0 ? 0 : -1),
  argsAfter: startAt,
  takesScriptArgs: false,
  ...JS_FILE_TARGETS,
  valueOptions: VALUE_OPTIONS,
  suiteWords(words, ctx) {
    // Its junit reporter writes a report naming each test's file, and its spec reporter the output.
    const ws = withoutReporters(words);
    const at = ws.indexOf("--test");
    const flags = nodeTestReportFlags(ctx.reportName);
    return {
      words: [...ws.slice(0, at + 1), ...flags, ...ws.slice(at + 1)],
      report: { path: ctx.reportName, suites: "nesting" },
    };
  },
  targetedWords(words, targets, ctx) {
    const at = startAt(words);
    if (at < 0) return { reason: "the test command does not run `node --test`" };
    const base = withoutPositionals(words, at, VALUE_OPTIONS);
    const args = targets.map(asPathArg);
    if (ctx.reportsNamed) return { words: base, args };
    // One process (node runs each file in a process of its own anyway), its reporters replaced by the
    // junit report and the spec output (each needs a destination of its own).
    return {
      words: [...withoutReporters(base), ...nodeTestReportFlags(ctx.reportName)],
      args,
      report: { path: ctx.reportName, suites: "nesting" },
    };
  },
  scope: (words) => {
    const at = startAt(words);
    return at < 0 ? null : positionals(words, at, VALUE_OPTIONS);
  },
  inScope: pathInScope,
  installedVersion: () => ({
    version: null,
    major: null,
    source: "node --test is node's own: its junit reporter needs node 20.10 or later",
  }),
};
