import { randomBytes } from "node:crypto";
import { jsRunnerOfWord, type RepoConfig, runnerOfCommand, type TestRunnerKind } from "../../config/index.ts";
import { reportFlags } from "../runners/index.ts";

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
   * The only files whose tests count, when the runner may run more than it was given: vitest takes its
   * files as filters that match any test file whose path holds them (`test/a.test.js` also runs
   * `lib/test/a.test.js` and `test/a.test.jsx`).
   */
  onlyFiles?: string[];
  /**
   * A JUnit report the command writes (`path` relative to the work tree, a fresh name per run), read for
   * the tests and their files instead of the output (mocha's and node's own reporters do not name a
   * test's file), and where a test's suites are named: its `classname` (mocha's xunit reporter) or the
   * `<testsuite>`s it is in (node's junit reporter).
   */
  report?: {
    path: string;
    suites: "classname" | "nesting";
    /**
     * The one test file the run was given, its positional words dropped (mocha started directly): the
     * file of the tests a report names no file for (mocha before 6).
     */
    file?: string;
  };
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
}

/** Why a test command cannot be narrowed (validation then runs the whole suite and says so). */
export interface NotTargetable {
  reason: string;
}

const SHELL_SYNTAX = /[;&|<>$`'"\\(){}*?!#~\n]/;
const DOTTED = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const REL_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\0\n\r]+$/;

/** Whether `target` has the form the runner takes (the caller also checked it names a file in the tree). */
export function validTarget(runner: TestRunnerKind, target: string): boolean {
  if (target.length === 0 || target.length > 1000) return false;
  switch (runner) {
    case "unittest":
    case "maven":
    case "gradle":
    case "junit":
      return DOTTED.test(target);
    case "go":
      return target === "." || (target.startsWith("./") && REL_PATH.test(target.slice(2)));
    default:
      return REL_PATH.test(target);
  }
}

/** A path argument that can never read as an option: `-x.py` becomes `./-x.py`. */
const asPathArg = (p: string): string => (p.startsWith("-") ? `./${p}` : p);

/** Options of each runner that take their value as the next word. */
const VALUE_OPTIONS: Partial<Record<TestRunnerKind, ReadonlySet<string>>> = {
  pytest: new Set([
    "-p",
    "-r",
    "-k",
    "-m",
    "-c",
    "-o",
    "-W",
    "-n",
    "--rootdir",
    "--junitxml",
    "--junit-xml",
    "--tb",
    "--maxfail",
    "--durations",
    "--ignore",
    "--ignore-glob",
    "--deselect",
    "--confcutdir",
    "--basetemp",
    "--import-mode",
    "--log-level",
    "--cov",
  ]),
  unittest: new Set(["-k", "-s", "-p", "-t"]),
  mocha: new Set([
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
  ]),
  "node-test": new Set([
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
  ]),
  go: new Set([
    "-run",
    "-skip",
    "-count",
    "-timeout",
    "-p",
    "-parallel",
    "-tags",
    "-coverprofile",
    "-covermode",
    "-coverpkg",
    "-bench",
    "-benchtime",
    "-cpu",
    "-o",
    "-exec",
    "-mod",
    "-shuffle",
  ]),
};

/**
 * The words of the command with the runner's own positional arguments (the scope it runs: `tests/`,
 * `./...`, `discover -s tests`) dropped from `from` on: the selected tests replace them.
 */
function withoutPositionals(words: string[], from: number, runner: TestRunnerKind): string[] {
  const values = VALUE_OPTIONS[runner] ?? new Set<string>();
  const out = words.slice(0, from);
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (runner === "unittest" && w === "discover") continue;
    // discover's own options (start folder, pattern, top level) mean nothing for named modules.
    if (runner === "unittest" && (w === "-s" || w === "-p" || w === "-t")) {
      i++;
      continue;
    }
    if (w.startsWith("-")) {
      out.push(w);
      if (values.has(w) && i + 1 < words.length) out.push(words[++i]!);
    }
  }
  return out;
}

/** node --test's words without its reporters and their destinations (`--test-reporter x`, `…=x`). */
function withoutReporters(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--test-reporter" || w === "--test-reporter-destination") i++;
    else if (!w.startsWith("--test-reporter=") && !w.startsWith("--test-reporter-destination=")) out.push(w);
  }
  return out;
}

/**
 * The words with the option that makes the runner list every test's outcome, for a command that lacks
 * it (it changes no test that runs): pytest's `-rA` short summary (`PASSED path::test`, a later `-r`
 * replaces an earlier one), unittest's `-v` (after any `-q`; at the end, where `discover` takes it too),
 * `go test -json` (right after `test`). Other runners' words come back as they are.
 */
export function listingWords(runner: TestRunnerKind, words: readonly string[]): string[] {
  switch (runner) {
    case "pytest": {
      const last = words.findLast((w) => w.startsWith("-r") && !w.startsWith("--"));
      return last === "-rA" ? [...words] : [...words, "-rA"];
    }
    case "unittest": {
      const last = words.findLast((w) => ["-v", "--verbose", "-q", "--quiet"].includes(w));
      return last === "-v" || last === "--verbose" ? [...words] : [...words, "-v"];
    }
    case "go": {
      if (words.some((w) => w === "-json" || w === "--json" || w === "-json=true")) return [...words];
      const at = words.findIndex((w, i) => w === "test" && words[i - 1] === "go");
      return at < 0 ? [...words] : [...words.slice(0, at + 1), "-json", ...words.slice(at + 1)];
    }
    default:
      return [...words];
  }
}

/** A report file name in the run's tree, drawn per run (never guessed by the code under test). */
const reportName = (runner: string): string => `.junit-${runner}-${randomBytes(9).toString("hex")}.xml`;

/** The JUnit reports Maven's surefire and Gradle write, read when the configuration names none. */
export const RUNNER_REPORTS: Partial<Record<TestRunnerKind, readonly string[]>> = {
  maven: ["target/surefire-reports/TEST-*.xml", "**/target/surefire-reports/TEST-*.xml"],
  gradle: ["build/test-results/test/*.xml", "**/build/test-results/test/*.xml"],
};

/**
 * The repository's whole-suite test command with its runner's report options added, so that per-test
 * outcomes are read whatever the command prints (`pytest -q`, `go test ./...`, jest's default
 * reporter): the options of `listingWords`, node's junit reporter (a report naming each test's file,
 * and the spec output), mocha's xunit reporter, jest's `--verbose`, vitest's verbose reporter (after
 * `--` for `npm test`); Maven and Gradle write JUnit reports anyway (`reports`). Which tests run is
 * not changed. A command that writes JUnit reports of its own (`test.reports`) runs as it is; one whose
 * options cannot be added (shell syntax, a script, an unknown runner, JUnitCore) runs as it is with
 * `noReportOptions` saying why.
 */
export function suiteCommand(
  config: Pick<RepoConfig, "test" | "validation">,
): Omit<TargetedCommand, "argv" | "onlyFiles" | "sequential"> & { command: string } {
  const command = config.test.command ?? "";
  const asIs = (noReportOptions?: string) => ({
    command,
    display: command,
    ...(noReportOptions ? { noReportOptions } : {}),
  });
  if (config.test.reports.length > 0) return asIs();
  const framework = config.test.framework;
  if (framework === "maven" || framework === "gradle")
    return { ...asIs(), reports: [...RUNNER_REPORTS[framework]!] };
  if (/\bJUnitCore\b/.test(command)) {
    return asIs(
      "JUnitCore prints only the tests that failed; name the JUnit XML reports the test command writes (`test-reports`)",
    );
  }
  if (SHELL_SYNTAX.test(command)) {
    return asIs(
      `the test command \`${command}\` uses shell syntax, so auto-fix cannot add its runner's report options`,
    );
  }
  // The runner the command itself starts (`validation.runner` may name the one a template starts).
  const runner = runnerOfCommand(command, framework);
  if (runner === null || runner === "junit" || runner === "maven" || runner === "gradle") {
    return asIs(
      `the test command \`${command}\` does not start a runner whose report options auto-fix knows (pytest, unittest, node --test, jest, vitest, mocha, go test, Maven, Gradle)`,
    );
  }
  const words = command.trim().split(/\s+/);
  const viaScript = /^(npm|pnpm|yarn)$/.test(words[0] ?? "");
  const sep = viaScript && !words.includes("--") ? ["--"] : [];
  const out = (ws: string[], report?: TargetedCommand["report"]) => {
    const text = ws.join(" ");
    return { command: text, display: text, ...(report ? { report } : {}) };
  };
  switch (runner) {
    case "pytest":
    case "unittest":
    case "go":
      return out(listingWords(runner, words));
    case "node-test": {
      const report = reportName("node-test");
      const ws = withoutReporters(words);
      const at = ws.indexOf("--test");
      const flags = reportFlags("node-test", report);
      return out([...ws.slice(0, at + 1), ...flags, ...ws.slice(at + 1)], {
        path: report,
        suites: "nesting",
      });
    }
    case "mocha": {
      const report = reportName("mocha");
      return out([...words, ...sep, ...reportFlags("mocha", report)], {
        path: report,
        suites: "classname",
      });
    }
    case "jest":
      return out(words.includes("--verbose") ? words : [...words, ...sep, "--verbose"]);
    case "vitest":
      return out([...words, ...sep, "--reporter=verbose"]);
  }
}

/** The base words and the arguments that name the targets, per runner; or why it cannot be done. */
function plan(
  runner: TestRunnerKind,
  words: string[],
  targets: readonly string[],
): { words: string[]; args: string[] } | NotTargetable {
  const idx = (pred: (w: string, i: number) => boolean): number => words.findIndex(pred);
  switch (runner) {
    case "pytest": {
      const at = idx(
        (w, i) => /(^|\/)(py\.test|pytest(-3)?)$/.test(w) || (w === "pytest" && words[i - 1] === "-m"),
      );
      if (at < 0) return { reason: "the test command does not start pytest" };
      return {
        words: listingWords(runner, withoutPositionals(words, at + 1, runner)),
        args: targets.map(asPathArg),
      };
    }
    case "unittest": {
      const at = idx((w, i) => w === "unittest" && words[i - 1] === "-m");
      if (at < 0) return { reason: "the test command does not run `python -m unittest`" };
      return { words: listingWords(runner, withoutPositionals(words, at + 1, runner)), args: [...targets] };
    }
    case "node-test": {
      const at = idx((w) => w === "--test");
      if (at < 0 || !/(^|\/)node$/.test(words[0] ?? ""))
        return { reason: "the test command does not run `node --test`" };
      return { words: withoutPositionals(words, at + 1, runner), args: targets.map(asPathArg) };
    }
    case "go": {
      const at = idx((w, i) => w === "test" && words[i - 1] === "go");
      if (at < 0) return { reason: "the test command does not run `go test`" };
      return { words: listingWords(runner, withoutPositionals(words, at + 1, runner)), args: [...targets] };
    }
    case "jest":
    case "vitest":
    case "mocha": {
      const viaScript = /^(npm|pnpm|yarn)$/.test(words[0] ?? "");
      const paths = targets.map(asPathArg);
      // jest and vitest list every test (under its file) only in their verbose reporters: without it, jest
      // names only failures and vitest folds a passing file into one line, and a test that passed
      // before would have nothing to be compared with. vitest takes its files as filters before any
      // `--` (after it they are ignored, and the whole suite runs); `./-x` keeps a path from reading as
      // an option.
      const flag =
        runner === "jest"
          ? [...(words.includes("--verbose") ? [] : ["--verbose"]), "--runTestsByPath"]
          : runner === "vitest"
            ? ["--reporter=verbose"]
            : [];
      if (viaScript) return { words, args: [...(words.includes("--") ? [] : ["--"]), ...flag, ...paths] };
      const at = idx((w) => jsRunnerOfWord(w) === runner);
      if (at < 0) return { reason: `the test command does not start ${runner}` };
      // mocha runs the folders and files its command names besides those it is given: they are dropped
      // (the selected tests stand for them; `commandScope` keeps the selection within them).
      if (runner === "mocha") return { words: withoutPositionals(words, at + 1, runner), args: [...paths] };
      return { words, args: [...flag, ...paths] };
    }
    case "maven":
      return {
        words: words.filter((w) => !w.startsWith("-Dtest=")),
        args: [
          `-Dtest=${targets.join(",")}`,
          "-Dsurefire.failIfNoSpecifiedTests=false",
          "-DfailIfNoTests=false",
        ],
      };
    case "gradle":
      return { words, args: targets.flatMap((t) => ["--tests", t]) };
    case "junit":
      return {
        reason: "JUnit runs need a `validation.command` template naming where the classes go ({tests})",
      };
  }
}

/**
 * The repository's test command narrowed to `targets`, or why it cannot be: a template from the
 * configuration (`validation.command`, `{tests}` standing for the tests), else the test command itself
 * when it starts a known runner without shell syntax.
 */
export function targetedCommand(
  config: Pick<RepoConfig, "test" | "validation">,
  targets: readonly string[],
): TargetedCommand | NotTargetable {
  const runner = config.validation.runner;
  if (!runner && config.test.command && SHELL_SYNTAX.test(config.test.command)) {
    return {
      reason: `the test command \`${config.test.command}\` uses shell syntax, so its tests cannot be named; set \`validation.runner\` and \`validation.command\` (with {tests}) to target it`,
    };
  }
  if (!runner) {
    return {
      reason: config.test.command
        ? `the test command \`${config.test.command}\` does not start a runner whose tests can be named (pytest, unittest, node --test, jest, vitest, mocha, go test, Maven, Gradle); set \`validation.runner\` and \`validation.command\` to target it`
        : "there is no test command",
    };
  }
  const bad = targets.find((t) => !validTarget(runner, t));
  if (bad !== undefined) return { reason: `\`${bad.slice(0, 200)}\` is not a ${runner} test name` };
  const quoted = targets.map((t) => (/^[\w./:,=@+-]+$/.test(t) ? t : `'${t.replaceAll("'", "'\\''")}'`));
  if (config.validation.command) {
    const template = config.validation.command;
    const args =
      runner === "pytest" ||
      runner === "node-test" ||
      runner === "jest" ||
      runner === "vitest" ||
      runner === "mocha"
        ? targets.map(asPathArg)
        : [...targets];
    // A template is run as written: its report options are the repository's to choose.
    const own = config.test.reports.length > 0;
    const reports = own ? undefined : RUNNER_REPORTS[runner];
    return {
      argv: ["/bin/sh", "-c", template.replaceAll("{tests}", '"$@"'), "sh", ...args],
      display: template.replaceAll("{tests}", quoted.join(" ")),
      ...(reports ? { reports: [...reports] } : {}),
      ...(own || reports
        ? {}
        : {
            noReportOptions:
              runner === "junit"
                ? "JUnitCore prints only the tests that failed; name the JUnit XML reports the `validation.command` template writes (`test-reports`)"
                : "the tests run through the `validation.command` template, whose runner options auto-fix does not change",
          }),
    };
  }
  const command = config.test.command;
  if (!command) return { reason: "there is no test command" };
  if (SHELL_SYNTAX.test(command)) {
    return {
      reason: `the test command \`${command}\` uses shell syntax, so its tests cannot be named; set \`validation.command\` (with {tests}) to target it`,
    };
  }
  const p = plan(runner, command.trim().split(/\s+/), targets);
  if ("reason" in p) return p;
  if (runner === "unittest") {
    // One process per module: a module that cannot be loaded here (it skips at import on this platform,
    // an optional dependency is missing) fails alone instead of stopping every other module's tests.
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
    };
  }
  if (runner === "mocha" && config.test.reports.length === 0) {
    // One process, its xunit reporter writing a report that names each test's file: mocha adds the
    // files its configuration names (`spec` in .mocharc) to those it is given, so a process per file
    // would run them too and credit their tests to the file it was given. Tests of files that were not
    // selected are not counted (onlyFiles). A later --reporter replaces the command's own.
    const report = reportName("mocha");
    const flags = reportFlags("mocha", report);

    const paths = targets.map(asPathArg);
    const fixed = p.args.filter((a) => !paths.includes(a));
    const words = [...p.words, ...fixed, ...flags];
    return {
      argv: ["/bin/sh", "-c", `${words.join(" ")} "$@"`, "sh", ...paths],
      report: {
        path: report,
        suites: "classname",
        ...(targets.length === 1 && !/^(npm|pnpm|yarn)$/.test(p.words[0] ?? "") ? { file: targets[0]! } : {}),
      },
      onlyFiles: [...targets],
      display: [...words, ...quoted].join(" "),
    };
  }
  if (runner === "node-test" && config.test.reports.length === 0) {
    // One process (node runs each file in a process of its own anyway), its junit reporter writing a
    // report that names each test's file, and its spec reporter the output: the command's own reporters
    // are replaced (each needs a destination of its own).
    const report = reportName("node-test");
    const flags = reportFlags("node-test", report);
    const paths = targets.map(asPathArg);
    const words = [...withoutReporters(p.words), ...flags];
    return {
      argv: ["/bin/sh", "-c", `${words.join(" ")} "$@"`, "sh", ...paths],
      report: { path: report, suites: "nesting" },
      display: [...words, ...quoted].join(" "),
    };
  }
  const reports = config.test.reports.length === 0 ? RUNNER_REPORTS[runner] : undefined;
  return {
    ...(runner === "vitest" ? { onlyFiles: [...targets] } : {}),
    ...(reports ? { reports: [...reports] } : {}),
    argv: ["/bin/sh", "-c", `${p.words.join(" ")} "$@"`, "sh", ...p.args],
    display: [...p.words, ...p.args.map((a) => (targets.includes(a) ? quoted[targets.indexOf(a)]! : a))].join(
      " ",
    ),
  };
}

/** A runner's options that take their value as the next word (empty for a runner not listed). */
export function valueOptionsOf(runner: TestRunnerKind): ReadonlySet<string> {
  return VALUE_OPTIONS[runner] ?? new Set<string>();
}

/** The index of the word that starts `runner` in `words`, or -1. */
function runnerAt(runner: TestRunnerKind, words: readonly string[]): number {
  switch (runner) {
    case "pytest":
      return words.findIndex(
        (w, i) => /(^|\/)(py\.test|pytest(-3)?)$/.test(w) || (w === "pytest" && words[i - 1] === "-m"),
      );
    case "unittest":
      return words.findIndex((w, i) => w === "unittest" && words[i - 1] === "-m");
    case "node-test":
      return /(^|\/)node$/.test(words[0] ?? "") ? words.indexOf("--test") : -1;
    case "go":
      return words.findIndex((w, i) => w === "test" && words[i - 1] === "go");
    case "jest":
    case "vitest":
    case "mocha":
      return words.findIndex((w) => jsRunnerOfWord(w) === runner);
    default:
      return -1;
  }
}

/**
 * What the repository's test command itself runs, as the paths, packages, modules or filters it names
 * (`pytest tests/test_api.py` → `tests/test_api.py`): null when it names none (the runner's default, the
 * whole suite) or when it cannot be told (a template, a script, shell syntax, `npm test`).
 */
const VITEST_SUBCOMMANDS = new Set(["run", "watch", "dev"]);

export function commandScope(config: Pick<RepoConfig, "test" | "validation">): string[] | null {
  const runner = config.validation.runner;
  const command = config.test.command;
  if (!runner || !command || config.validation.command || SHELL_SYNTAX.test(command)) return null;
  const words = command.trim().split(/\s+/);
  const at = runnerAt(runner, words);
  if (at < 0) return null;
  const values = VALUE_OPTIONS[runner] ?? new Set<string>();
  const out: string[] = [];
  for (let i = at + 1; i < words.length; i++) {
    const w = words[i]!;
    if (runner === "unittest" && w === "discover") continue;
    // vitest's own subcommands are not filters (`vitest run` runs every test file).
    if (runner === "vitest" && i === at + 1 && VITEST_SUBCOMMANDS.has(w)) continue;
    if (runner === "vitest" && i === at + 1 && w === "related") return null;
    if (runner === "unittest" && w === "-s" && i + 1 < words.length) {
      // discover's start folder, as the dotted package its modules are named under.
      const start = words[++i]!.replace(/^\.\//, "").replace(/\/+$/, "");
      if (start !== "" && start !== ".") out.push(start.replaceAll("/", "."));
      continue;
    }
    if (w.startsWith("-")) {
      if (values.has(w)) i++;
      continue;
    }
    out.push(w);
  }
  const all = out.some((w) => w === "." || w === "./" || w === "./..." || w === "...");
  return out.length === 0 || all ? null : out;
}

/** Whether a test target is among what the command's scope (`commandScope`) runs. */
export function inScope(runner: TestRunnerKind, target: string, scope: readonly string[]): boolean {
  const norm = (p: string) => p.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  return scope.some((raw) => {
    switch (runner) {
      case "unittest":
        return target === raw || target.startsWith(`${raw}.`);
      case "go": {
        const t = norm(target);
        if (raw.endsWith("/...")) {
          const base = norm(raw.slice(0, -4));
          return t === base || t.startsWith(`${base}/`);
        }
        return t === norm(raw);
      }
      case "jest":
      case "vitest":
        // Their positional words filter test paths by what the path holds.
        return target.includes(norm(raw));
      default: {
        const s = norm(raw);
        const file = norm(target.split("::")[0]!);
        const t = norm(target);
        return t === s || file === s || file === norm(s.split("::")[0]!) || file.startsWith(`${s}/`);
      }
    }
  });
}
