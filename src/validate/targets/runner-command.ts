import { randomBytes } from "node:crypto";
import { type RepoConfig, runnerOfCommand } from "../../config/index.ts";
import { openTree, type TreeFs } from "../../core/tree-fs.ts";
import { RUNNER_NAMES, RUNNERS, type RunnerName, runnerFor } from "../../runners/index.ts";
import type { CommandContext, OwnReport } from "../../runners/parts/command.ts";
import { sharedTreesOf } from "../../sandbox/index.ts";

/**
 * A test command narrowed to some tests. The selected tests come from repository content and model
 * output: they travel as positional arguments of `sh -c '<command> "$@"'`, never as shell text, and each
 * is checked against its runner's form (a relative path, a dotted name, a package folder) first.
 */
export interface TargetedCommand {
  /** argv for the sandbox. */
  argv: string[];
  /** How the report shows it (the tests quoted). */
  display: string;
  /**
   * The only files whose tests count, when the runner may run more than it was given (a runner that takes
   * its files as filters matching any test file whose path holds them: `test/a.test.js` also runs
   * `lib/test/a.test.js`).
   */
  onlyFiles?: string[];
  /**
   * A JUnit report the command writes (`path` relative to the work tree, a fresh name per run), read for
   * the tests and their files instead of the output (where the runner's own output does not name a
   * test's file); see the runners' `OwnReport`.
   */
  report?: OwnReport;
  /**
   * JUnit report globs the runner writes on its own (Maven's surefire, Gradle), read when the
   * configuration names none (`test.reports`).
   */
  reports?: string[];
  /**
   * Why the runner's report options could not be added (a `validation.command` template, shell syntax,
   * a script, an unknown runner): when its output then names no passing test, single tests cannot be
   * judged (`TestRun.perTestUnavailable`).
   */
  noReportOptions?: string;
  /**
   * The targets run one after the other in the order given, each in its own process: in the output of
   * a run stopped part-way, a target is finished once a later one has started (see `splitStopped`).
   */
  sequential?: true;
  /** What the report should say about the words chosen (the runner's version could not be read). */
  notes?: string[];
}

/** Why a test command cannot be narrowed (validation then runs the whole suite and says so). */
export interface NotTargetable {
  reason: string;
}

const SHELL_SYNTAX = /[;&|<>$`'"\\(){}*?!#~\n]/;
/** The runners a test command can start, as messages name them. */
const KNOWN_RUNNERS = RUNNERS.filter((r) => r.spelled)
  .map((r) => r.title)
  .join(", ");

/**
 * The tree a run's installed tools are read in (their versions): the work copy itself, or, when its
 * dependency folders are the tree it was copied from bound in at run time (an empty folder in the copy),
 * that tree.
 */
export function toolTreeOf(workdir: string): TreeFs {
  const shared = sharedTreesOf(workdir)[0];
  if (shared?.source.endsWith(`/${shared.rel}`))
    return openTree(shared.source.slice(0, -shared.rel.length - 1));
  return openTree(workdir);
}

/** Whether `target` has the form the runner takes (the caller also checked it names a file in the tree). */
export function validTarget(runner: RunnerName, target: string): boolean {
  return runnerFor(runner).validTarget(target);
}

/** A report file name in the run's tree, drawn per run (never guessed by the code under test). */
const reportName = (runner: string): string => `.junit-${runner}-${randomBytes(9).toString("hex")}.xml`;

const contextFor = (config: Pick<RepoConfig, "test">, runner: RunnerName, tree?: TreeFs): CommandContext => ({
  reportName: reportName(runner),
  reportsNamed: config.test.reports.length > 0,
  ...(tree ? { tree } : {}),
});

const isRunnerName = (s: string): s is RunnerName => (RUNNER_NAMES as readonly string[]).includes(s);

/**
 * The repository's whole-suite test command with its runner's report options added, so that per-test
 * outcomes are read whatever the command prints (a quiet option, a reporter that names only failures):
 * the runner's part words them for the version installed in `tree` (a version that cannot be read gets
 * the spelling every known version takes, and `notes` says so). A runner that writes JUnit reports
 * anyway gives their globs (`reports`). Which tests run is not changed. A command that writes JUnit
 * reports of its own (`test.reports`) runs as it is; one whose options cannot be added (shell syntax, a
 * script, an unknown runner, a runner that prints only failures) runs as it is with `noReportOptions`
 * saying why.
 */
export function suiteCommand(
  config: Pick<RepoConfig, "test" | "validation">,
  tree?: TreeFs,
): Omit<TargetedCommand, "argv" | "onlyFiles" | "sequential"> & { command: string } {
  const command = config.test.command ?? "";
  const asIs = (noReportOptions?: string) => ({
    command,
    display: command,
    ...(noReportOptions ? { noReportOptions } : {}),
  });
  if (config.test.reports.length > 0) return asIs();
  const framework = config.test.framework;
  const own = isRunnerName(framework) ? runnerFor(framework).ownReports : [];
  if (own.length > 0) return { ...asIs(), reports: [...own] };
  const refused = RUNNERS.map((r) => r.refusesSuite(command)).find((r) => r !== null);
  if (refused) return asIs(refused);
  if (SHELL_SYNTAX.test(command)) {
    return asIs(
      `the test command \`${command}\` uses shell syntax, so auto-fix cannot add its runner's report options`,
    );
  }
  // The runner the command itself starts (`validation.runner` may name the one a template starts).
  const name = runnerOfCommand(command, framework);
  const runner = name === null ? null : runnerFor(name);
  const notKnown = `the test command \`${command}\` does not start a runner whose report options auto-fix knows (${KNOWN_RUNNERS})`;
  if (runner === null || runner.ownReports.length > 0) return asIs(notKnown);
  const worded = runner.suiteWords(command.trim().split(/\s+/), contextFor(config, runner.name, tree));
  if ("reason" in worded) return asIs(worded.reason);
  const text = worded.words.join(" ");
  return {
    command: text,
    display: text,
    ...(worded.report ? { report: worded.report } : {}),
    ...(worded.notes ? { notes: worded.notes } : {}),
  };
}

/** Targets quoted for display (the shell never sees this text). */
const quote = (t: string): string => (/^[\w./:,=@+-]+$/.test(t) ? t : `'${t.replaceAll("'", "'\\''")}'`);

/** The targeted command of a `validation.command` template (`{tests}` standing for the tests). */
function templateCommand(
  config: Pick<RepoConfig, "test" | "validation">,
  runner: RunnerName,
  targets: readonly string[],
): TargetedCommand {
  const template = config.validation.command!;
  const part = runnerFor(runner);
  // A template is run as written: its report options are the repository's to choose.
  const own = config.test.reports.length > 0;
  const reports = own || part.ownReports.length === 0 ? undefined : part.ownReports;
  return {
    argv: ["/bin/sh", "-c", template.replaceAll("{tests}", '"$@"'), "sh", ...part.targetArgs(targets)],
    display: template.replaceAll("{tests}", targets.map(quote).join(" ")),
    ...(reports ? { reports: [...reports] } : {}),
    ...(own || reports
      ? {}
      : {
          noReportOptions: part.quietTemplate
            ? `${part.quietTemplate}; name the JUnit XML reports the \`validation.command\` template writes (\`test-reports\`)`
            : "the tests run through the `validation.command` template, whose runner options auto-fix does not change",
        }),
  };
}

/** Why the configuration's tests cannot be named at all, or null. */
function untargetable(config: Pick<RepoConfig, "test" | "validation">): NotTargetable | null {
  const command = config.test.command;
  if (!config.validation.runner) {
    if (command && SHELL_SYNTAX.test(command))
      return {
        reason: `the test command \`${command}\` uses shell syntax, so its tests cannot be named; set \`validation.runner\` and \`validation.command\` (with {tests}) to target it`,
      };
    return {
      reason: command
        ? `the test command \`${command}\` does not start a runner whose tests can be named (${KNOWN_RUNNERS}); set \`validation.runner\` and \`validation.command\` to target it`
        : "there is no test command",
    };
  }
  return null;
}

/**
 * The repository's test command narrowed to `targets`, or why it cannot be: a template from the
 * configuration (`validation.command`, `{tests}` standing for the tests), else the test command itself
 * when it starts a known runner without shell syntax, worded by the runner's part for the version
 * installed in `tree`.
 */
export function targetedCommand(
  config: Pick<RepoConfig, "test" | "validation">,
  targets: readonly string[],
  tree?: TreeFs,
): TargetedCommand | NotTargetable {
  const refused = untargetable(config);
  if (refused) return refused;
  const runner = config.validation.runner!;
  const part = runnerFor(runner);
  const bad = targets.find((t) => !part.validTarget(t));
  if (bad !== undefined) return { reason: `\`${bad.slice(0, 200)}\` is not a ${runner} test name` };
  if (config.validation.command) return templateCommand(config, runner, targets);
  const command = config.test.command;
  if (!command) return { reason: "there is no test command" };
  if (SHELL_SYNTAX.test(command)) {
    return {
      reason: `the test command \`${command}\` uses shell syntax, so its tests cannot be named; set \`validation.command\` (with {tests}) to target it`,
    };
  }
  const p = part.targetedWords(command.trim().split(/\s+/), targets, contextFor(config, runner, tree));
  if ("reason" in p) return p;
  const quoted = targets.map(quote);
  // A target shows as it was given (`-b.js`, not the `./-b.js` it is passed as).
  const given = (a: string): number => targets.indexOf(targets.includes(a) ? a : a.replace(/^\.\//, ""));
  const shown = p.args.map((a) => (given(a) >= 0 ? quoted[given(a)]! : a));
  const notes = p.notes ? { notes: p.notes } : {};
  if (p.sequential) {
    return {
      argv: [
        "/bin/sh",
        "-c",
        `rc=0; for t in "$@"; do ${p.words.join(" ")} "$t" || rc=1; done; exit $rc`,
        "sh",
        ...p.args,
      ],
      display: `${[...p.words, ...quoted].join(" ")} (one process per module)`,
      sequential: true,
      ...notes,
    };
  }
  const reports =
    config.test.reports.length === 0 && part.ownReports.length > 0 ? part.ownReports : undefined;
  return {
    ...(p.onlyFiles ? { onlyFiles: [...targets] } : {}),
    ...(p.report ? { report: p.report } : {}),
    ...(reports ? { reports: [...reports] } : {}),
    argv: ["/bin/sh", "-c", `${p.words.join(" ")} "$@"`, "sh", ...p.args],
    display: [...p.words, ...shown].join(" "),
    ...notes,
  };
}

/** A runner's options that take their value as the next word. */
export function valueOptionsOf(runner: RunnerName): ReadonlySet<string> {
  return runnerFor(runner).valueOptions;
}

/**
 * What the repository's test command itself runs, as the paths, packages, modules or filters it names
 * (`<runner> tests/test_api.py` → `tests/test_api.py`): null when it names none (the runner's default, the
 * whole suite) or when it cannot be told (a template, a script, shell syntax, `npm test`).
 */
export function commandScope(config: Pick<RepoConfig, "test" | "validation">): string[] | null {
  const runner = config.validation.runner;
  const command = config.test.command;
  if (!runner || !command || config.validation.command || SHELL_SYNTAX.test(command)) return null;
  const out = runnerFor(runner).scope(command.trim().split(/\s+/));
  if (out === null) return null;
  const all = out.some((w) => w === "." || w === "./" || w === "./..." || w === "...");
  return out.length === 0 || all ? null : out;
}

/** Whether a test target is among what the command's scope (`commandScope`) runs. */
export function inScope(runner: RunnerName, target: string, scope: readonly string[]): boolean {
  return runnerFor(runner).inScope(target, scope);
}
