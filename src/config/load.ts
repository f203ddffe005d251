import { parseDocument } from "yaml";
import { type Ceilings, type Clamped, clampTo, defaultCeilings, describeClamped } from "../core/ceilings.ts";
import { splitInstalls } from "../core/dependency-installs.ts";
import { UserError } from "../core/errors.ts";
import { ALWAYS_PROTECTED_GLOBS, BUILD_SCRIPT_GLOBS, testCommandFiles } from "../core/path-rules.ts";
import { openTree, TreeFsError } from "../core/tree-fs.ts";
import { reproducerForRuntime, unknownLanguageNote } from "../languages/index.ts";
import { describeIssues } from "./messages.ts";
import { resolveScriptCommand } from "./package-scripts.ts";
import { parseTreeSearchConfig, type TreeSearchConfig } from "./tree-search.ts";
import {
  type Detection,
  detectProject,
  frameworkOfCommand,
  runnerOfCommand,
  type TestFramework,
} from "./detect.ts";
import {
  CONFIG_PATH,
  type RepoConfigFile,
  type ReproducerRuntime,
  repoConfigFileSchema,
  type TestRunnerKind,
} from "./schema.ts";

export interface ReproducerConfig {
  /** "none": the repository is in no language auto-fix has a folder for, and the file names no runtime. */
  runtime: ReproducerRuntime | "none";
  /** Path of the script, relative to the repository root. */
  file: string;
  /** The command that runs it (shell syntax, `{file}` already substituted). */
  command: string;
  pattern: string;
  attempts: number;
}

/** The repository configuration with every default filled in. */
export interface RepoConfig {
  /** Whether `.github/auto-fix.yml` existed. */
  fromFile: boolean;
  setup: string[];
  test: {
    command: string | null;
    framework: TestFramework;
    source: "config" | "detected" | "cli" | "none";
    reports: string[];
  };
  /**
   * How candidates are validated. `targeted`: the tests related to the change first (failed before,
   * importing or named after a changed module, named by the reproducer or the model), then the rest of
   * the suite when its estimated time fits `budgetMs`; `full`: the whole suite every time (after the
   * targeted tests, which stop it early when they show a regression).
   */
  validation: {
    mode: "targeted" | "full";
    /**
     * Wall time a candidate's related tests may take (`targeted` only), the unpatched runs the job still
     * needs included: the tests are taken in rank order while their estimated time fits.
     */
    relatedBudgetMs: number;
    /** Wall time the rest of the suite may take after the related tests (`targeted` only). */
    budgetMs: number;
    /** How selected tests are passed to the runner; null = the test command cannot be targeted. */
    runner: TestRunnerKind | null;
    /** A command template from the configuration, `{tests}` standing for the selected tests. */
    command: string | null;
    /** How the runner was chosen, for the report. */
    source: "config" | "detected" | "none";
    /**
     * Related tests are chosen within what the test command runs (`validation.within-command`; absent:
     * true): a command naming `tests/test_api.py` keeps the selection to that file.
     */
    withinCommand?: boolean;
  };
  reproducer: ReproducerConfig;
  /** Whether the run adds a regression test to the patch (`regression-test`, on by default). */
  regressionTest: boolean;
  timeouts: { setupMs: number; testMs: number; reproducerMs: number };
  /** The patch strategy, and the tree search's parameters (used when the mode is `tree`). */
  strategy: { mode: "linear" | "tree" } & TreeSearchConfig;
  budgets: {
    costUsd: number;
    runsPerIssue: number;
    runsPerRepoPerDay: number;
    reviewRounds: number;
    searchRounds: number;
  };
  /** Globs a patch may not touch; always includes `.github/**` and CI configuration. */
  protectedPaths: string[];
  label: string;
  sandbox: {
    backend: "auto" | "bwrap" | "docker";
    image: string | null;
    memoryMb: number;
    maxProcesses: number;
  };
  language: Detection["language"];
  /** How defaults were chosen, and each request the operator's ceilings lowered. */
  notes: string[];
  /** Requests of the file the operator's ceilings lowered (also in `notes`, worded for the report). */
  clamped: Clamped[];
}

/** A configuration file that cannot be used: every problem, one per line, with its field. */
export class RepoConfigError extends UserError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`${CONFIG_PATH} is not valid:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "RepoConfigError";
    this.problems = problems;
  }
}

/** Globs every configuration protects (CI and repository configuration); the rules live in core/path-rules. */
export const ALWAYS_PROTECTED: readonly string[] = ALWAYS_PROTECTED_GLOBS;

/** The build-script globs a configuration file protects: all of them unless it says `build-scripts: editable`. */
export const buildScriptGlobs = (file: RepoConfigFile | null): readonly string[] =>
  file?.["build-scripts"] === "editable" ? [] : BUILD_SCRIPT_GLOBS;

/** Largest configuration file read (from a clone, or by the app through the GitHub API). */
export const MAX_CONFIG_BYTES = 256 * 1024;

const shellQuote = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** Validates the text of `.github/auto-fix.yml`; throws `RepoConfigError` naming each bad field. */
export function parseRepoConfigFile(text: string): RepoConfigFile {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new RepoConfigError(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        // The position is said once, before the message (not again at the end of the parser's line).
        const what = (e.message.split("\n")[0] ?? "").replace(/\s*at line \d+, column \d+:?\s*$/, "");
        return `YAML syntax${pos ? ` (line ${pos.line}, column ${pos.col})` : ""}: ${what}`;
      }),
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new RepoConfigError(["the file must be a mapping of settings (key: value)"]);
  }
  const parsed = repoConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new RepoConfigError(describeIssues(parsed.error.issues, repoConfigFileSchema, raw));
  }
  return parsed.data;
}

/**
 * The full configuration from the file's text (or null when there is none) and what detection found.
 * For the GitHub app, which reads the file through the API: `parseRepoConfig(text)`.
 */
export function parseRepoConfig(
  text: string | null,
  detection?: Detection,
  ceilings: Ceilings = defaultCeilings(),
): RepoConfig {
  const file = text === null ? {} : parseRepoConfigFile(text);
  const det: Detection = detection ?? {
    language: "unknown",
    testCommand: null,
    framework: "unknown",
    setup: [],
    // A caller that read no tree (a test, a configuration checked on its own) gets Python's reproducer;
    // detection itself never guesses one (detect.ts).
    runtime: "python",
    testReports: [],
    reasons: [],
  };
  const notes = [...det.reasons];
  // The language folder's reproducer (registry), unless the file names a runtime; none is guessed for a
  // repository in no language auto-fix has a folder for.
  const runtime: ReproducerRuntime | "none" = file.reproducer?.runtime ?? det.runtime ?? "none";
  const defaults = reproducerForRuntime(runtime);
  const reproFile = file.reproducer?.file ?? defaults?.file ?? (runtime === "none" ? "" : "reproducer");
  const template = file.reproducer?.command ?? defaults?.command ?? "";
  if (detection?.language === "unknown") notes.push(unknownLanguageNote());
  // Dependency installs chained into the test command run in the setup step, the only one with network.
  const setup = [...(file.setup ?? det.setup)];
  let testCommand = file.test ?? det.testCommand;
  if (testCommand) {
    const { installs, rest } = splitInstalls(testCommand);
    if (installs.length > 0) {
      for (const i of installs) if (!setup.includes(i)) setup.push(i);
      testCommand = rest;
      notes.push(
        `The test command's dependency install (${installs.map((i) => `\`${i}\``).join(", ")}) runs in the setup step, the only one with network; ${rest ? `the tests run as \`${rest}\`` : "nothing else was left to run as the tests"}.`,
      );
    }
  }
  const strategy = file.strategy;
  const tree = typeof strategy === "object" ? strategy : {};
  const params: Record<string, number> = {};
  const c = tree.c ?? tree.exploration;
  const rollouts = tree.max_rollout ?? tree.iterations;
  if (c !== undefined) params.c = c;
  if (tree.branch !== undefined) params.branch = tree.branch;
  if (tree.max_expansion !== undefined) params.max_expansion = tree.max_expansion;
  if (rollouts !== undefined) params.max_rollout = rollouts;
  if (tree.value_mix !== undefined) params.value_mix = tree.value_mix;
  const treeParams = parseTreeSearchConfig(params);
  if (!treeParams.ok) throw new RepoConfigError([`strategy: ${treeParams.message}`]);
  const framework = testCommand ? frameworkOfCommand(testCommand, det.framework) : "unknown";
  const config: RepoConfig = {
    fromFile: text !== null,
    setup,
    test: {
      command: testCommand,
      framework,
      source: file.test ? "config" : det.testCommand ? "detected" : "none",
      reports: file["test-reports"] ?? det.testReports,
    },
    validation: validationSettings(file.validation, testCommand, framework),
    reproducer: {
      runtime,
      file: reproFile,
      command: template.replaceAll("{file}", shellQuote(reproFile)),
      pattern: file.reproducer?.pattern ?? defaults?.pattern ?? "AssertionError",
      attempts: file.reproducer?.attempts ?? 3,
    },
    regressionTest: file["regression-test"] ?? true,
    timeouts: {
      setupMs: (file.timeouts?.setup ?? 900) * 1000,
      testMs: (file.timeouts?.test ?? 600) * 1000,
      reproducerMs: (file.timeouts?.reproducer ?? 120) * 1000,
    },
    strategy: {
      mode:
        typeof strategy === "string"
          ? strategy
          : (tree.mode ?? (typeof strategy === "object" ? "tree" : "linear")),
      ...treeParams.config,
    },
    budgets: {
      costUsd: file.budgets?.["cost-usd"] ?? 2,
      runsPerIssue: file.budgets?.["runs-per-issue"] ?? 5,
      runsPerRepoPerDay: file.budgets?.["runs-per-repo-per-day"] ?? 20,
      reviewRounds: file.budgets?.["review-rounds"] ?? 5,
      searchRounds: file.budgets?.["search-rounds"] ?? 15,
    },
    // The files the test command names (a Makefile, a script) decide how tests run: protected like them.
    protectedPaths: [
      ...new Set([
        ...ALWAYS_PROTECTED,
        ...buildScriptGlobs(file),
        ...testCommandFiles(testCommand),
        ...testCommandFiles(validationCommand(file.validation)),
        ...(file["protected-paths"] ?? []),
      ]),
    ],
    label: file.label ?? "auto-fix",
    sandbox: {
      backend: file.sandbox?.backend ?? "auto",
      image: file.sandbox?.image ?? null,
      memoryMb: file.sandbox?.["memory-mb"] ?? 2048,
      maxProcesses: file.sandbox?.["max-processes"] ?? 256,
    },
    language: det.language,
    notes,
    clamped: [],
  };
  const validationTemplate = config.validation.command;
  if (validationTemplate) {
    const { installs, rest } = splitInstalls(validationTemplate);
    if (installs.length > 0) {
      for (const i of installs) if (!config.setup.includes(i)) config.setup.push(i);
      config.validation.command = rest?.includes("{tests}") ? rest : null;
      notes.push(
        `The validation command's dependency install (${installs.map((i) => `\`${i}\``).join(", ")}) runs in the setup step, the only one with network${config.validation.command ? "" : "; what was left of the command names no {tests}, so it is not used"}.`,
      );
    }
  }
  return applyCeilings(config, ceilings, file);
}

const mb = (n: number): string => `${n} MB`;
const secs = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
const plain = (n: number): string => String(n);

/**
 * Every limit the repository may set, lowered to the operator's ceiling: memory, processes, the
 * timeouts of setup, tests and the reproducer, and the validation budgets. Each lowered request is
 * named in `notes` (the run's report) and `clamped`.
 */
function applyCeilings(config: RepoConfig, ceilings: Ceilings, file: RepoConfigFile): RepoConfig {
  const clamped: Clamped[] = [];
  // A default over a ceiling is lowered without a word: only what the file asked for is named.
  const asked = new Set<string>([
    ...Object.keys(file.sandbox ?? {}).map((k) => `sandbox.${k}`),
    ...Object.keys(file.timeouts ?? {}).map((k) => `timeouts.${k}`),
    ...Object.keys(file.validation ?? {}).map((k) => `validation.${k}`),
  ]);
  const lower = (
    value: number,
    ceiling: number,
    note: { what: string; env: string; show: (n: number) => string },
  ): number => (asked.has(note.what) ? clampTo(value, ceiling, note, clamped) : Math.min(value, ceiling));
  const time = (what: string, ms: number): number =>
    lower(ms, ceilings.commandMs, { what, env: "AUTO_FIX_MAX_COMMAND_SECONDS", show: secs });
  config.sandbox.memoryMb = lower(config.sandbox.memoryMb, ceilings.memoryMb, {
    what: "sandbox.memory-mb",
    env: "AUTO_FIX_MAX_MEMORY_MB",
    show: mb,
  });
  config.sandbox.maxProcesses = lower(config.sandbox.maxProcesses, ceilings.maxProcesses, {
    what: "sandbox.max-processes",
    env: "AUTO_FIX_MAX_PROCESSES",
    show: plain,
  });
  config.timeouts.setupMs = time("timeouts.setup", config.timeouts.setupMs);
  config.timeouts.testMs = time("timeouts.test", config.timeouts.testMs);
  config.timeouts.reproducerMs = time("timeouts.reproducer", config.timeouts.reproducerMs);
  config.validation.relatedBudgetMs = time("validation.related-budget", config.validation.relatedBudgetMs);
  config.validation.budgetMs = time("validation.budget", config.validation.budgetMs);
  config.clamped = clamped;
  config.notes.push(...clamped.map(describeClamped));
  return config;
}

/** Seconds a candidate may spend on the rest of the suite after its targeted tests, by default. */
export const DEFAULT_VALIDATION_BUDGET_S = 120;
/** Seconds a candidate may spend on the tests related to its change, by default. */
export const DEFAULT_RELATED_BUDGET_S = 45;

const validationCommand = (v: RepoConfigFile["validation"]): string | null => v?.command ?? null;

function validationSettings(
  v: RepoConfigFile["validation"],
  testCommand: string | null,
  framework: TestFramework,
): RepoConfig["validation"] {
  const o = v ?? {};
  const mode = o.mode ?? "targeted";
  const detected = testCommand ? runnerOfCommand(testCommand, framework) : null;
  const runner = o.runner ?? detected;
  return {
    mode,
    relatedBudgetMs: (o["related-budget"] ?? DEFAULT_RELATED_BUDGET_S) * 1000,
    budgetMs: (o.budget ?? DEFAULT_VALIDATION_BUDGET_S) * 1000,
    runner,
    command: o.command ?? null,
    source: o.runner ? "config" : runner ? "detected" : "none",
    ...(o["within-command"] !== undefined ? { withinCommand: o["within-command"] } : {}),
  };
}

/**
 * Reads `.github/auto-fix.yml` under `root` (if present) and fills the rest by detection. The file is read
 * through tree-fs: a link (to a host file or anywhere else), a special file or an oversized file is a
 * RepoConfigError that names the problem, never the content of what the link points to.
 */
/** Most globs `AUTO_FIX_PROTECTED_PATHS` may hold (as many as `protected-paths`). */
const MAX_EXTRA_PROTECTED = 500;

/**
 * Globs protected besides the configuration's, from `AUTO_FIX_PROTECTED_PATHS` (one per line): the
 * GitHub App sets it for a run on another ref to the default branch's `protected-paths`.
 */
export function protectedPathsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const raw = env.AUTO_FIX_PROTECTED_PATHS ?? "";
  const globs = raw
    .split("\n")
    .map((g) => g.trim())
    .filter((g) => g !== "");
  if (globs.length > MAX_EXTRA_PROTECTED) {
    throw new UserError(
      `AUTO_FIX_PROTECTED_PATHS holds ${globs.length} globs; at most ${MAX_EXTRA_PROTECTED}`,
    );
  }
  const long = globs.find((g) => g.length > 1000);
  if (long !== undefined) {
    throw new UserError("AUTO_FIX_PROTECTED_PATHS: a glob may be at most 1000 characters");
  }
  return globs;
}

export function loadRepoConfig(
  root: string,
  overrides: { testCommand?: string; protectedPaths?: readonly string[]; ceilings?: Ceilings } = {},
): RepoConfig {
  let text: string | null = null;
  try {
    const bytes = openTree(root).readIfExists(CONFIG_PATH, { maxBytes: MAX_CONFIG_BYTES });
    text = bytes === null ? null : bytes.toString("utf8");
  } catch (err) {
    if (err instanceof TreeFsError) throw new RepoConfigError([`the file cannot be used: ${err.message}`]);
    throw err;
  }
  const config = parseRepoConfig(text, detectProject(root), overrides.ceilings);
  if (overrides.protectedPaths && overrides.protectedPaths.length > 0) {
    config.protectedPaths = [...new Set([...config.protectedPaths, ...overrides.protectedPaths])];
  }
  if (overrides.testCommand !== undefined) {
    const cmd = overrides.testCommand.trim();
    if (cmd === "") throw new UserError("--test-cmd must not be empty");
    config.test = {
      ...config.test,
      command: cmd,
      source: "cli",
      framework: frameworkOfCommand(cmd, config.test.framework),
    };
    if (config.validation.source !== "config") {
      const runner = runnerOfCommand(cmd, config.test.framework);
      config.validation = { ...config.validation, runner, source: runner ? "detected" : "none" };
    }
    config.protectedPaths = [...new Set([...config.protectedPaths, ...testCommandFiles(cmd)])];
  }
  resolveScript(root, config);
  return config;
}

/**
 * A test command that runs a package-manager script whose runner cannot be told from the command
 * (`npm test` whose script is `node --test`) is replaced by the command the script runs, when that is a
 * plain command starting a runner auto-fix knows: its tests can then be named and reported one by one.
 * The report's notes say so. A configured `validation.runner` is left as it is.
 */
function resolveScript(root: string, config: RepoConfig): void {
  const cmd = config.test.command;
  if (!cmd || config.validation.source === "config" || config.validation.command) return;
  if (runnerOfCommand(cmd, config.test.framework) !== null) return;
  const resolved = resolveScriptCommand(root, cmd);
  if (resolved === null || "reason" in resolved) return;
  const framework = frameworkOfCommand(resolved.command, config.test.framework);
  const runner = runnerOfCommand(resolved.command, framework);
  if (runner === null) return;
  config.test = { ...config.test, command: resolved.command, framework };
  config.validation = { ...config.validation, runner, source: "detected" };
  config.notes.push(
    `tests: \`${cmd}\` runs the package.json script ${resolved.chain.map((s) => `\`${s}\``).join(" → ")}: \`${resolved.command}\`, which auto-fix runs itself to name each test`,
  );
}
