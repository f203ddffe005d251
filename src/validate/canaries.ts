/**
 * Tamper evidence for a test run. The code under test runs inside the runner's process: a patch to a
 * source file can end the runner early (`os._exit(0)` at import), stub it (every test "passes") or
 * rewrite what it reports. Protecting the test files cannot stop that; canaries make it show.
 *
 * Before each run, two canary tests are written into the run's private copy of the tree (never into a
 * patch), under fresh random names that cannot collide with the repository's, and the command is made to
 * run them with the repository's tests (an extra target, or a place the runner discovers by its own
 * rules), without changing which of the repository's tests run:
 *
 * - one must fail, with a distinctive message;
 * - one must pass, and to show that its body ran it writes a value derived from a fresh per-run nonce
 *   into a fresh file beside it, which the host reads through tree-fs afterwards (no link followed, size
 *   capped).
 *
 * After the run the runner must have reported the failing one failed, the passing one passed, and the
 * proof file must hold the value (once per runner process the run starts). Then both canaries leave the
 * run's results (they are never counted, selected, compared or reported as the repository's tests) and
 * their files leave the tree. A run whose runner lost them, reported the failing one as passed or skipped,
 * or reported the passing one without its proof is `tampered`; a run where no canary could be placed
 * (a runner or command form this module does not know, shell syntax, options that could deselect them)
 * or that a limit stopped is `unverified`, with why. `intact` only when every check held.
 *
 * What it does not prove: code in the runner's process can read the canary files as well as the runner
 * can, so a patch written against this very scheme could forge the proof. The canaries catch a runner
 * that is ended, stubbed or made to report what did not run; not an adversary that imitates the canaries.
 */
import { createHash, randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { RepoConfig, TestRunnerKind } from "../config/index.ts";
import { runnerOfCommand } from "../config/index.ts";
import { DEPENDENCY_DIRS } from "../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../core/tree-fs.ts";
import type { ExecResult } from "../sandbox/index.ts";
import type { ParsedTests, TestOutcome } from "./outcomes.ts";
import { stripAnsi } from "./text-scan.ts";
import { valueOptionsOf } from "./targets/runner-command.ts";

export type IntegrityState = "intact" | "tampered" | "unverified";

/** Whether a run's results can be trusted to come from tests that ran and were reported honestly. */
export interface RunIntegrity {
  state: IntegrityState;
  detail: string;
}

/** The targeted command a run uses instead of the test command (see TargetedCommand). */
export interface CanaryTargeted {
  argv: string[];
  sequential?: true;
}

/** One canary placement: the files written, the tests' names, and what the host checks afterwards. */
interface Placement {
  /** Folder (relative to the tree's root, "" = root) holding the canary file and its proof. */
  dir: string;
  /** The canary file, relative to the root. */
  file: string;
  /** The proof file the must-pass canary appends to, relative to the root. */
  proof: string;
}

/** Canaries placed for one run. */
export interface CanaryPlan {
  runner: TestRunnerKind;
  /** The command to run instead of the configured or targeted one. */
  command: string[] | string;
  /** The random token every canary id holds. */
  token: string;
  passName: string;
  failName: string;
  /** The value each proof line must hold. */
  proofValue: string;
  placements: Placement[];
  /** Proof lines expected in each placement's file (runner processes that run its canaries). */
  processes: number;
}

/** A run that gets no canaries, and why (reported as the run's integrity: `unverified`). */
export interface NoCanaries {
  unverified: string;
}

/** Largest proof file read: a line per process, each 64 hex digits. */
const MAX_PROOF_BYTES = 64 * 1024;
/** Pytest options that take their value as the next word. */
const PYTEST_VALUE_OPTIONS = valueOptionsOf("pytest");
/** Options of each runner that could leave the canaries out or stop before them: no canary is placed. */
const DESELECTING: Partial<Record<TestRunnerKind, RegExp>> = {
  pytest:
    /^(-k|-m|-x|--exitfirst|--maxfail(=.*)?|--sw|--stepwise|--lf|--last-failed|--ff|--deselect(=.*)?|-k.+|-m.+|--co|--collect-only)$/,
  unittest: /^(-k|-f|--failfast|-k.+)$/,
  "node-test": /^(--test-name-pattern(=.*)?|--test-skip-pattern(=.*)?|--test-only|--test-shard(=.*)?)$/,
  mocha: /^(-g|--grep(=.*)?|-f|--fgrep(=.*)?|-i|--invert|-b|--bail|--forbid-only)$/,
  jest: /^(-t|--testNamePattern(=.*)?|-b|--bail(=.*)?|-o|--onlyChanged|--changedSince(=.*)?|--shard(=.*)?)$/,
  vitest: /^(-t|--testNamePattern(=.*)?|--bail(=.*)?|--changed(=.*)?|--shard(=.*)?)$/,
  go: /^-(-)?(run|skip|list|failfast|shuffle)(=.*)?$/,
};

const hex = (n: number): string => randomBytes(n).toString("hex");
const digest = (text: string): string => createHash("sha256").update(text).digest("hex");
const isOption = (w: string): boolean => w.startsWith("-");

/** The words of `words` after `from` that are not options nor an option's value (pytest's value options). */
function positionals(words: readonly string[], from: number, values: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (isOption(w)) {
      if (values.has(w)) i++;
    } else out.push(w);
  }
  return out;
}

const clean = (p: string): string => posix.normalize(p.replace(/^\.\//, "")).replace(/\/$/, "");

/** The folder a path argument stands in: itself when a folder, else the folder holding it ("" = root). */
function folderOf(tree: TreeFs, arg: string): string | null {
  const rel = clean(arg);
  if (rel === "." || rel === "") return "";
  if (rel.startsWith("..") || rel.startsWith("/")) return null;
  try {
    const kind = tree.kind(rel);
    if (kind === "directory") return rel;
    if (kind === "file") {
      const d = posix.dirname(rel);
      return d === "." ? "" : d;
    }
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
  }
  return null;
}

/** pytest's `testpaths` from the file pytest reads its configuration from; null when unset. */
function pytestTestpaths(tree: TreeFs): string[] | null {
  const read = (rel: string): string | null => {
    try {
      return tree.readIfExists(rel, { maxBytes: 1024 * 1024 })?.toString("utf8") ?? null;
    } catch (err) {
      if (err instanceof TreeFsError) return null;
      throw err;
    }
  };
  const ini = (text: string, section: string): string[] | null | undefined => {
    const lines = text.split(/\r?\n/);
    const start = lines.findIndex((l) => l.trim() === `[${section}]`);
    if (start < 0) return undefined;
    for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
      const m = /^testpaths\s*[=:]\s*(.*)$/.exec(lines[i]!);
      if (!m) continue;
      const vals = [m[1]!];
      for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]!); j++) vals.push(lines[j]!);
      return vals.join(" ").trim().split(/\s+/).filter(Boolean);
    }
    return null;
  };
  for (const [file, section] of [
    ["pytest.ini", "pytest"],
    [".pytest.ini", "pytest"],
  ] as const) {
    const t = read(file);
    if (t !== null) return ini(t, section) ?? null;
  }
  const pyproject = read("pyproject.toml");
  if (pyproject !== null && /^\[tool\.pytest\.ini_options\]/m.test(pyproject)) {
    const section = pyproject.split(/^\[tool\.pytest\.ini_options\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
    const m = /^testpaths\s*=\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/m.exec(section);
    if (!m) return null;
    return [...m[1]!.matchAll(/["']([^"']*)["']/g)].map((x) => x[1]!);
  }
  for (const [file, section] of [
    ["tox.ini", "pytest"],
    ["setup.cfg", "tool:pytest"],
  ] as const) {
    const t = read(file);
    const r = t === null ? undefined : ini(t, section);
    if (r !== undefined) return r;
  }
  return null;
}

/** Whether `name` matches a unittest discovery pattern (fnmatch: `*`, `?`, `[…]`). */
function fnmatch(pattern: string, name: string): boolean {
  let re = "";
  for (const c of pattern) re += c === "*" ? ".*" : c === "?" ? "." : /[\w-]/.test(c) ? c : `\\${c}`;
  try {
    return new RegExp(`^${re}$`).test(name);
  } catch {
    return false;
  }
}

interface Spot {
  /** Where the canary file goes ("" = root). */
  dirs: string[];
  /** Arguments added to the command (relative paths or module names), given the canary file's path. */
  args: (file: string) => string[];
  /** A whole-suite command's positional scope made explicit (pytest with no positional argument). */
  scope?: string[];
}

const JS_CONFIGS = {
  jest: /^jest\.config\.(js|ts|mjs|cjs|json)$/,
  vitest: /^(vitest|vite)\.config\.(js|ts|mjs|cjs|mts|cts)$/,
};

/** Where the canaries go for `runner` and what to add to the command; or why none can. */
function spotFor(
  runner: TestRunnerKind,
  tree: TreeFs,
  words: readonly string[],
  targets: readonly string[] | null,
): Spot | NoCanaries {
  const stops = DESELECTING[runner];
  const from = runnerStart(runner, words);
  const stop = stops ? words.slice(from).find((w) => stops.test(w)) : undefined;
  if (stop !== undefined)
    return {
      unverified: `the command's option \`${stop}\` could leave the canary tests out or stop before them`,
    };
  const appended = (file: string): string[] => [file];
  switch (runner) {
    case "pytest": {
      if (targets) {
        const d = targets.length > 0 ? folderOf(tree, targets[0]!.split("::")[0]!) : "";
        return d === null
          ? { unverified: "the first target is not a file or folder of the tree" }
          : { dirs: [d], args: appended };
      }
      const at = words.findIndex(
        (w, i) => /(^|\/)(py\.test|pytest(-3)?)$/.test(w) || (w === "pytest" && words[i - 1] === "-m"),
      );
      if (at < 0) return { unverified: "the test command does not start pytest" };
      const pos = positionals(words, at + 1, PYTEST_VALUE_OPTIONS);
      if (pos.length > 0) {
        const d = folderOf(tree, pos[0]!);
        if (d === null) return { unverified: `\`${pos[0]}\` is not a file or folder of the tree` };
        return { dirs: [d], args: appended };
      }
      // No positional argument: pytest runs its `testpaths` (or the current folder); named explicitly, they
      // run as before, the canary file with them.
      const tp = pytestTestpaths(tree);
      if (tp && tp.length > 0) {
        if (tp.some((p) => /[*?[\]]/.test(p) || p.startsWith("-")))
          return { unverified: "pytest's `testpaths` holds a pattern" };
        const d = folderOf(tree, tp[0]!);
        if (d === null) return { unverified: `pytest's testpaths \`${tp[0]}\` is not a folder of the tree` };
        return { dirs: [d], args: appended, scope: tp };
      }
      return { dirs: [""], args: appended, scope: ["."] };
    }
    case "unittest": {
      if (targets) return { dirs: [""], args: (f) => [f.replace(/\.py$/, "").replaceAll("/", ".")] };
      const at = words.findIndex((w, i) => w === "unittest" && words[i - 1] === "-m");
      if (at < 0) return { unverified: "the test command does not run `python -m unittest`" };
      const rest = words.slice(at + 1);
      const named = rest.filter((w) => !isOption(w));
      if (named.length > 0 && named[0] !== "discover")
        return { dirs: [""], args: (f) => [f.replace(/\.py$/, "")] };
      // discover [-s start] [-p pattern] [-t top], or start, pattern and top given as words.
      const opt = (s: string, l: string): string | undefined => {
        const i = rest.findIndex((w) => w === s || w === l);
        return i >= 0 ? rest[i + 1] : undefined;
      };
      const words2 = [];
      for (let i = 1; i < rest.length; i++) {
        const w = rest[i]!;
        if (["-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory", "-k"].includes(w))
          i++;
        else if (!isOption(w)) words2.push(w);
      }
      const start = opt("-s", "--start-directory") ?? words2[0] ?? ".";
      const pattern = opt("-p", "--pattern") ?? words2[1] ?? "test*.py";
      const d = folderOf(tree, start);
      if (d === null) return { unverified: `the discovery folder \`${start}\` is not a folder of the tree` };
      return { dirs: [d], args: () => [], scope: [pattern] };
    }
    case "node-test": {
      if (targets) return { dirs: [""], args: appended };
      const at = words.indexOf("--test");
      if (at < 0 || !/(^|\/)node$/.test(words[0] ?? ""))
        return { unverified: "the test command does not run `node --test`" };
      const values = valueOptionsOf("node-test");
      // With no file given, node finds `**/*.test.cjs` by its own rules; with files, the canary is one more.
      return { dirs: [""], args: positionals(words, at + 1, values).length > 0 ? appended : () => [] };
    }
    case "mocha": {
      if (targets) return { dirs: [""], args: appended };
      const at = words.findIndex((w) => w === "mocha" || w.endsWith("/mocha"));
      if (at < 0) return { unverified: "the test command does not start mocha directly" };
      if (
        positionals(
          words,
          at + 1,
          new Set([
            "--reporter",
            "-R",
            "--require",
            "-r",
            "--timeout",
            "-t",
            "--ui",
            "-u",
            "--config",
            "--extension",
            "--ignore",
            "--reporter-option",
            "-O",
          ]),
        ).length === 0
      )
        return {
          unverified:
            "mocha finds its test files by its configuration; a canary file given to it would be one more scope",
        };
      return { dirs: [""], args: appended };
    }
    case "jest":
    case "vitest": {
      const root = tree.list("").map((e) => e.name);
      const config = root.find((n) => JS_CONFIGS[runner].test(n));
      let pkgKey = false;
      if (runner === "jest") {
        try {
          const pkg = JSON.parse(
            tree.readIfExists("package.json", { maxBytes: 4 * 1024 * 1024 })?.toString("utf8") ?? "{}",
          ) as Record<string, unknown>;
          pkgKey = pkg !== null && typeof pkg === "object" && "jest" in pkg;
        } catch {
          pkgKey = true;
        }
      }
      if (config || pkgKey)
        return {
          unverified: `${runner}'s configuration (${config ?? "package.json"}) decides which test files it takes`,
        };
      // With no configuration, a `*.test.js` file at the root is one of its test files; a targeted run is
      // given it as one more file, a whole-suite run finds it.
      return { dirs: [""], args: targets ? appended : () => [] };
    }
    case "go": {
      const dirs = goDirs(tree, targets ?? goPatterns(words));
      if (typeof dirs === "string") return { unverified: dirs };
      return { dirs, args: () => [] };
    }
    default:
      return { unverified: `canary tests are not placed for ${runner} runs` };
  }
}

/** Where the runner's own words start (after `python -m pytest`, `go test`, …); 0 when not found. */
function runnerStart(runner: TestRunnerKind, words: readonly string[]): number {
  const at = words.findIndex((w, i) =>
    runner === "pytest"
      ? /(^|\/)(py\.test|pytest(-3)?)$/.test(w)
      : runner === "unittest"
        ? w === "unittest" && words[i - 1] === "-m"
        : runner === "go"
          ? w === "test" && words[i - 1] === "go"
          : i === 0,
  );
  return at < 0 ? 0 : at + 1;
}

/** `go test`'s package patterns in the command (`./...` when none is given, as `go test` reads `.`). */
function goPatterns(words: readonly string[]): string[] {
  const at = words.findIndex((w, i) => w === "test" && words[i - 1] === "go");
  const values = valueOptionsOf("go");
  const pos = at < 0 ? [] : positionals(words, at + 1, values);
  return pos.length === 0 ? ["."] : pos;
}

/** The package folders with tests that `go test` runs for the patterns (`./x`, `./x/...`); or why not. */
function goDirs(tree: TreeFs, patterns: readonly string[]): string[] | string {
  const { entries, truncated } = tree.walk({
    maxDepth: 32,
    maxEntries: 200_000,
    descend: (_rel, name) =>
      // go's own rules: `_x`, `.x` and `testdata` are never packages; dependency folders are not walked.
      !/^[._]/.test(name) && name !== "testdata" && name !== "vendor" && !DEPENDENCY_DIRS.has(name),
  });
  if (truncated) return "the tree is too large to find its Go packages";
  const testDirs = new Set(
    entries
      .filter((e) => e.kind === "file" && e.rel.endsWith("_test.go"))
      .map((e) => posix.dirname(e.rel))
      .map((d) => (d === "." ? "" : d)),
  );
  const out = new Set<string>();
  for (const p of patterns) {
    if (!(p === "." || p.startsWith("./"))) return `\`${p}\` is not a package folder of the module`;
    const rec = p === "./..." || p.endsWith("/...");
    const base = clean(rec ? p.slice(0, -4) || "." : p);
    const root = base === "." ? "" : base;
    for (const d of testDirs)
      if (d === root || (rec && (root === "" || d.startsWith(`${root}/`)))) out.add(d);
  }
  if (out.size === 0) return "no package the command tests holds a test file";
  return [...out].sort();
}

/** The Go package clause of a test file in `dir` (its own or its external test package). */
function goPackage(tree: TreeFs, dir: string): string | null {
  for (const e of tree.list(dir)) {
    if (e.kind !== "file" || !e.name.endsWith("_test.go")) continue;
    const text = tree.read(posix.join(dir, e.name), { maxBytes: 4 * 1024 * 1024 }).toString("utf8");
    const m = /^\s*package\s+([A-Za-z_]\w*)/m.exec(text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ""));
    if (m) return m[1]!;
  }
  return null;
}

/** The canary file's name and text for `runner`. */
function canarySource(
  runner: TestRunnerKind,
  token: string,
  proofName: string,
  proofValue: string,
  goPkg?: string,
): { name: string; text: string; passName: string; failName: string } {
  const nonceHalf = proofValue;
  const failMessage = `auto-fix canary ${token}: this test must fail`;
  switch (runner) {
    case "pytest":
    case "unittest": {
      const passName = `test_autofix_canary_${token}_must_pass`;
      const failName = `test_autofix_canary_${token}_must_fail`;
      const proofPath = `os.path.join(os.path.dirname(os.path.abspath(__file__)), ${JSON.stringify(proofName)})`;
      const write = (indent: string): string[] => [
        `${indent}with open(${proofPath}, "a") as f:`,
        `${indent}    f.write(${JSON.stringify(nonceHalf)} + "\\n")`,
      ];
      // pytest's canaries are plain functions, as most of its tests are (a TestCase's methods run through
      // another item type); unittest's fail through its most used assertion, so that stubbing it shows.
      const body =
        runner === "pytest"
          ? [
              "import os",
              "",
              "",
              `def ${passName}():`,
              ...write("    "),
              "",
              "",
              `def ${failName}():`,
              `    assert False, ${JSON.stringify(failMessage)}`,
              "",
            ].join("\n")
          : [
              "import os",
              "import unittest",
              "",
              "",
              `class AutofixCanary${token}(unittest.TestCase):`,
              `    def ${passName}(self):`,
              ...write("        "),
              "",
              `    def ${failName}(self):`,
              `        self.assertEqual(${JSON.stringify(token)}, "", ${JSON.stringify(failMessage)})`,
              "",
            ].join("\n");
      return {
        // pytest takes `test_*.py` and `*_test.py`; unittest's discovery `test*.py`.
        name:
          runner === "pytest" ? `test_autofix_canary_${token}_test.py` : `test_autofix_canary_${token}.py`,
        text: body,
        passName,
        failName,
      };
    }
    case "go": {
      const passName = `TestAutofixCanary${token}MustPass`;
      const failName = `TestAutofixCanary${token}MustFail`;
      const text = [
        `package ${goPkg}`,
        "",
        `import (\n\tautofixcanaryos${token} "os"\n\tautofixcanarytesting${token} "testing"\n)`,
        "",
        `func ${passName}(t *autofixcanarytesting${token}.T) {`,
        `\tf, err := autofixcanaryos${token}.OpenFile(${JSON.stringify(proofName)}, autofixcanaryos${token}.O_APPEND|autofixcanaryos${token}.O_CREATE|autofixcanaryos${token}.O_WRONLY, 0o644)`,
        "\tif err != nil {\n\t\tt.Fatal(err)\n\t}",
        `\tif _, err := f.WriteString(${JSON.stringify(`${nonceHalf}\n`)}); err != nil {\n\t\tt.Fatal(err)\n\t}`,
        "\tif err := f.Close(); err != nil {\n\t\tt.Fatal(err)\n\t}",
        "}",
        "",
        `func ${failName}(t *autofixcanarytesting${token}.T) {`,
        `\tt.Fatal(${JSON.stringify(failMessage)})`,
        "}",
        "",
      ].join("\n");
      return { name: `autofix_canary_${token}_test.go`, text, passName, failName };
    }
    default: {
      const passName = `autofix canary ${token} must pass`;
      const failName = `autofix canary ${token} must fail`;
      const proof = `require("node:path").join(__dirname, ${JSON.stringify(proofName)})`;
      const write = (p: string): string =>
        `require("node:fs").appendFileSync(${p}, ${JSON.stringify(`${nonceHalf}\n`)})`;
      if (runner === "vitest") {
        const text = [
          'import { appendFileSync } from "node:fs";',
          'import { test } from "vitest";',
          `test(${JSON.stringify(passName)}, () => {`,
          `  appendFileSync(new URL(${JSON.stringify(proofName)}, import.meta.url), ${JSON.stringify(`${nonceHalf}\n`)});`,
          "});",
          `test(${JSON.stringify(failName)}, () => {`,
          `  throw new Error(${JSON.stringify(failMessage)});`,
          "});",
          "",
        ].join("\n");
        return { name: `autofix-canary-${token}.test.mjs`, text, passName, failName };
      }
      const head =
        runner === "node-test"
          ? 'const { test } = require("node:test");\n'
          : runner === "mocha"
            ? "const test = it;\n"
            : "";
      const text = [
        head,
        `test(${JSON.stringify(passName)}, () => {`,
        `  ${write(proof)};`,
        "});",
        `test(${JSON.stringify(failName)}, () => {`,
        `  throw new Error(${JSON.stringify(failMessage)});`,
        "});",
        "",
      ].join("\n");
      // jest takes `*.test.js` (a `.cjs` only when configured); node and mocha take `.cjs` in any package.
      const ext = runner === "jest" ? "js" : "cjs";
      return { name: `autofix-canary-${token}.test.${ext}`, text, passName, failName };
    }
  }
}

const SCRIPT_NAME = "sh";

/**
 * Places canaries for one run in `tree` and returns the command that runs them with the repository's
 * tests, or why none can be placed. `targeted`: the run's targeted command (`sh -c '<words> "$@"'` with
 * the targets as arguments, a `{tests}` template alike); absent: the configured test command.
 */
export function planCanaries(
  tree: TreeFs,
  config: Pick<RepoConfig, "test" | "validation">,
  targeted?: CanaryTargeted,
): CanaryPlan | NoCanaries {
  const command = config.test.command;
  if (!command) return { unverified: "there is no test command" };
  let runner: TestRunnerKind | null;
  let words: string[];
  let targets: string[] | null = null;
  if (targeted) {
    runner = config.validation.runner;
    const a = targeted.argv;
    if (!runner || a.length < 4 || a[0] !== "/bin/sh" || a[1] !== "-c" || a[3] !== SCRIPT_NAME)
      return { unverified: "the targeted command is not one whose tests can be added to" };
    words = a[2]!.split(/\s+/);
    targets = a.slice(4);
  } else {
    runner = runnerOfCommand(command, config.test.framework);
    if (!runner)
      return {
        unverified: `the test command \`${command}\` is a script or uses shell syntax, so no canary test can be added to it`,
      };
    words = command.trim().split(/\s+/);
  }
  if (targeted?.sequential && runner !== "unittest")
    return { unverified: "a run of one process per target is not one canaries are placed in" };
  if (runner === "maven" || runner === "gradle" || runner === "junit")
    return { unverified: `canary tests are not placed for ${runner} runs` };
  let spot: Spot | NoCanaries;
  try {
    spot = spotFor(runner, tree, words, targets);
  } catch (err) {
    if (err instanceof TreeFsError) return { unverified: `the tree could not be read: ${err.message}` };
    throw err;
  }
  if ("unverified" in spot) return spot;

  const token = hex(8);
  const nonce = hex(16);
  const proofName = `.autofix-canary-${token}.proof`;
  const proofValue = digest(`auto-fix canary ${token} ${nonce}`);
  if (runner === "unittest" && spot.scope && !fnmatch(spot.scope[0]!, `test_autofix_canary_${token}.py`))
    return { unverified: `unittest's discovery pattern \`${spot.scope[0]}\` would not find a canary module` };

  const placements: Placement[] = [];
  let passName = "";
  let failName = "";
  try {
    for (const dir of spot.dirs) {
      const goPkg = runner === "go" ? goPackage(tree, dir) : undefined;
      if (runner === "go" && !goPkg)
        throw new TreeFsError("missing", dir, `no Go package clause found in ${dir || "the root"}`);
      const src = canarySource(runner, token, proofName, proofValue, goPkg ?? undefined);
      passName = src.passName;
      failName = src.failName;
      const file = dir ? `${dir}/${src.name}` : src.name;
      const proof = dir ? `${dir}/${proofName}` : proofName;
      if (tree.readIfExists(file) !== null || tree.readIfExists(proof) !== null)
        throw new TreeFsError("invalid-path", file, "a canary file's name is taken");
      placements.push({ dir, file, proof });
      tree.write(file, src.text, { mkdirs: false });
    }
  } catch (err) {
    removeCanaryFiles(tree, placements);
    if (err instanceof TreeFsError)
      return { unverified: `the canary tests could not be written: ${err.message}` };
    throw err;
  }

  const file = placements[0]!.file;
  // A path that could read as an option stays a path (`-x/a.py` → `./-x/a.py`).
  const added = spot.args(file).map((a) => (a.startsWith("-") ? `./${a}` : a));
  const scope = spot.scope && runner === "pytest" ? spot.scope : [];
  let out: string[] | string;
  let processes = 1;
  if (targeted) {
    const argv = [...targeted.argv];
    if (targeted.sequential) {
      // One process per module: each runs the canary module too, and each must leave its proof.
      const script = argv[2]!;
      if (!script.includes('"$t" ||')) {
        removeCanaryFiles(tree, placements);
        return { unverified: "the targeted command is not one whose tests can be added to" };
      }
      argv[2] = script.replace('"$t" ||', `"$t" ${added.join(" ")} ||`);
      processes = Math.max(1, targets?.length ?? 1);
    } else argv.push(...added);
    out = argv;
  } else {
    // The command has no shell syntax (runnerOfCommand): the added words travel as arguments, never as
    // shell text (testpaths come from the repository).
    const more = [...scope, ...added].map((a) => (a.startsWith("-") ? `./${a}` : a));
    out = ["/bin/sh", "-c", `${command.trim()} "$@"`, SCRIPT_NAME, ...more];
  }
  return { runner, command: out, token, passName, failName, proofValue, placements, processes };
}

/** Removes the canary files and their proofs from the tree (absent is fine). */
function removeCanaryFiles(tree: TreeFs, placements: readonly Placement[]): void {
  for (const p of placements) {
    for (const rel of [p.file, p.proof]) {
      try {
        tree.remove(rel);
      } catch (err) {
        if (!(err instanceof TreeFsError)) throw err;
      }
    }
  }
  // Python leaves a compiled copy of the canary module in __pycache__.
  for (const p of placements) {
    const cache = p.dir ? `${p.dir}/__pycache__` : "__pycache__";
    try {
      for (const e of tree.list(cache)) {
        if (e.name.includes(p.file.slice(p.file.lastIndexOf("/") + 1).replace(/\.py$/, "")))
          tree.remove(`${cache}/${e.name}`);
      }
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
    }
  }
}

/** The outcome of each canary, the canaries' ids removed from the results. */
function takeCanaries(
  plan: CanaryPlan,
  parsed: ParsedTests | null,
): { pass: TestOutcome[]; fail: TestOutcome[]; others: number } {
  const pass: TestOutcome[] = [];
  const fail: TestOutcome[] = [];
  if (!parsed) return { pass, fail, others: 0 };
  const canaryPkgs = new Set<string>();
  for (const [id, outcome] of [...parsed.tests]) {
    if (!id.includes(plan.token)) continue;
    if (id.includes(plan.passName)) pass.push(outcome);
    else if (id.includes(plan.failName)) fail.push(outcome);
    if (plan.runner === "go") canaryPkgs.add(id.slice(0, id.lastIndexOf(".")));
    parsed.tests.delete(id);
    parsed.files?.delete(id);
  }
  if (plan.runner === "go") {
    // A package fails as a whole when any of its tests fails: the failing canary's does not count.
    for (const pkg of canaryPkgs) {
      const own = `${pkg}.<package>`;
      const prefix = `${pkg}.`;
      const failing = [...parsed.tests].some(
        ([id, o]) => o === "failed" && id !== own && id.startsWith(prefix),
      );
      if (parsed.tests.get(own) === "failed" && !failing) parsed.tests.delete(own);
    }
  }
  return { pass, fail, others: parsed.tests.size };
}

/**
 * Checks a run's canaries, takes them out of its results (and their files out of the tree), and says
 * whether the run can be trusted. `exec` is the run; `parsed` its per-test results (changed in place).
 * Returns the integrity, and the exit status the run would have had without the failing canary when
 * that can be told (the canary was its only failure).
 */
export function checkCanaries(
  tree: TreeFs,
  plan: CanaryPlan,
  exec: ExecResult,
  parsed: ParsedTests | null,
  files?: Map<string, string[]>,
): { integrity: RunIntegrity; exitCode: number | null; emptied?: boolean } {
  const proofs: (string | null)[] = [];
  let unreadable: string | null = null;
  for (const p of plan.placements) {
    try {
      proofs.push(tree.readIfExists(p.proof, { maxBytes: MAX_PROOF_BYTES })?.toString("utf8") ?? null);
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      unreadable = `${p.proof}: ${err.message}`;
      proofs.push(null);
    }
  }
  removeCanaryFiles(tree, plan.placements);
  const { pass, fail } = takeCanaries(plan, parsed);
  for (const id of [...(files?.keys() ?? [])]) if (id.includes(plan.token)) files?.delete(id);
  const verdict = (state: IntegrityState, detail: string) => ({
    integrity: { state, detail },
    exitCode: exec.exitCode,
  });
  if (exec.limit !== null)
    return verdict(
      "unverified",
      `the run was stopped by its ${exec.limit} limit; a stopped run proves nothing either way`,
    );
  if (exec.exitCode === null && exec.signal !== null)
    return verdict(
      "unverified",
      `the run was ended by ${exec.signal}; a stopped run proves nothing either way`,
    );
  if (parsed?.note && fail.length === 0 && pass.length === 0)
    return verdict("unverified", `the runner's output was too large to read whole (${parsed.note})`);
  const n = plan.placements.length;
  const expected = n * plan.processes;
  const linesOf = (t: string | null): string[] => (t ?? "").split("\n").filter((l) => l !== "");
  const proofLines = proofs.flatMap(linesOf);
  const forged = proofLines.some((l) => l !== plan.proofValue);
  const proven = !forged && proofs.every((t) => linesOf(t).length >= plan.processes);
  const problems: string[] = [];
  if (unreadable) problems.push(`its proof file could not be read (${unreadable})`);
  else if (forged) problems.push("its proof file holds a value the canary test does not write");
  else if (!proven)
    problems.push(
      proofLines.length === 0
        ? "the canary test that must pass never ran its body (no proof was written)"
        : `the canary test that must pass ran its body in ${proofLines.length} of the ${expected} places it should have`,
    );
  const misreported = fail.some((o) => o !== "failed") || pass.some((o) => o !== "passed");
  if (
    plan.processes > 1 &&
    !unreadable &&
    !forged &&
    !misreported &&
    proofLines.length > 0 &&
    proofLines.length < expected
  ) {
    // Some of the run's processes (one per module) left their proof and others did not: a module that
    // skips or fails at import stops its own process before any test, the canaries' too, and cannot be
    // told from a process that was ended. Not proof of tampering; that module's tests are compared as
    // tests that no longer run.
    return verdict(
      "unverified",
      `the canary test that must pass ran its body in ${proofLines.length} of the ${expected} processes: a process that stopped before its tests (a module that cannot load or skips at import) cannot be told from one that was ended`,
    );
  }
  if (!forged && !misreported && plan.runner === "go" && /\[(build|setup) failed\]/.test(exec.stdout))
    return verdict(
      "unverified",
      "a package's tests did not build, so its canary tests could not run (the package's failure is counted)",
    );
  if (
    fail.length === 0 &&
    pass.length === 0 &&
    plan.runner === "pytest" &&
    [...(parsed?.tests.keys() ?? [])].some((id) => id.endsWith("::<collection>")) &&
    /^!+ Interrupted: \d+ errors? during collection !+$/m.test(exec.stdout)
  )
    return verdict(
      "unverified",
      "pytest stopped at an error collecting the tests, before any test ran (the canary tests with them)",
    );
  // A runner whose output names no test at all, or no passing test (a quiet reporter), cannot show the
  // canaries it ran: when the proof shows the body ran and nothing was reported wrong, what it reports
  // cannot be checked, which is not evidence of tampering.
  const anyPassed = parsed ? [...parsed.tests.values()].includes("passed") : false;
  const nothingNamed = fail.length === 0 && pass.length === 0 && (parsed?.tests.size ?? 0) === 0;
  const quiet =
    problems.length === 0 &&
    !misreported &&
    pass.length === 0 &&
    !anyPassed &&
    (fail.length > 0 || nothingNamed);
  if (!quiet) {
    if (fail.length === 0) problems.push("the runner did not report the canary test that must fail");
    else if (fail.some((o) => o !== "failed") || fail.length < n)
      problems.push(
        `the runner reported the canary test that must fail as ${fail.find((o) => o !== "failed") ?? "missing in part"}`,
      );
    if (pass.some((o) => o !== "passed"))
      problems.push(
        `the runner reported the canary test that must pass as ${pass.find((o) => o !== "passed")}`,
      );
    else if (pass.length === 0) problems.push("the runner did not report the canary test that must pass");
  }
  if (problems.length > 0) {
    const what =
      exec.exitCode === 0 && (!parsed || parsed.tests.size === 0)
        ? `; the runner exited 0 without per-test results`
        : "";
    return verdict("tampered", `${problems.join("; ")}${what}`);
  }
  // The failing canary is the run's only failure: the runner's exit status for failed tests (1; mocha's
  // count of failures) is what it reports for it, and without it the run would have passed (pytest, with
  // nothing else collected, would have said so: 5). A run whose output named nothing but the canaries
  // names no test of the repository: it has no per-test results, as it would have had without them.
  const othersFailed = parsed ? [...parsed.tests.values()].includes("failed") : true;
  const emptied = parsed !== null && parsed.tests.size === 0;
  const failCode = plan.runner === "mocha" ? n : 1;
  const exitCode =
    !othersFailed && exec.exitCode === failCode && onlyCanaryFailed(plan, exec)
      ? emptied && plan.runner === "pytest"
        ? 5
        : 0
      : exec.exitCode;
  if (quiet)
    return {
      integrity: {
        state: "unverified",
        detail:
          "the canary test that must pass ran its body, but the runner's output names no passing test, so what it reports of the tests cannot be checked",
      },
      exitCode,
      emptied,
    };
  return {
    integrity: {
      state: "intact",
      detail: `the canary tests ran: the one that must fail was reported failed, the one that must pass passed and left its proof${n > 1 ? ` (in each of ${n} packages)` : ""}${OWN_PROCESS.has(plan.runner) ? "; each test file runs in a process of its own, so this shows that the runner reported honestly, not what ran in another file's process (a file whose tests are lost shows as tests that no longer run)" : ""}`,
    },
    exitCode,
    emptied,
  };
}

/**
 * Whether the runner's own summary counts the failing canary as its only failure: a failure no test id
 * carries (a test file that does not load, an error outside any test) keeps the run failed. Runners whose
 * failures all carry an id (mocha's report, go's package results) are judged by their ids alone.
 */
function onlyCanaryFailed(plan: CanaryPlan, exec: ExecResult): boolean {
  const out = stripAnsi(`${exec.stdout}\n${exec.stderr}`);
  const one = (re: RegExp): boolean => {
    const all = [...out.matchAll(re)];
    return all.length > 0 && all.every((m) => m[1] === "1");
  };
  switch (plan.runner) {
    case "pytest": {
      const lines = [...out.matchAll(/^[= ]*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s/gm)].map((m) => m[1]!);
      const last = lines.at(-1) ?? "";
      return /(^|, )1 failed(,|$)/.test(last) && !/\berrors?\b/.test(last);
    }
    case "unittest": {
      const lines = [...out.matchAll(/^FAILED \(([^)]*)\)$/gm)].map((m) => m[1]!);
      return lines.length > 0 && lines.every((l) => /(^|, )failures=1(,|$)/.test(l) && !/errors=/.test(l));
    }
    case "jest":
      return one(/^Test Suites:\s+(\d+) failed/gm) && one(/^Tests:\s+(\d+) failed/gm);
    case "vitest":
      return one(/^\s*Test Files\s+(\d+) failed/gm) && one(/^\s*Tests\s+(\d+) failed/gm);
    case "node-test":
      return one(/^(?:ℹ|#) fail (\d+)$/gm);
    default:
      return true;
  }
}

/** Removes a plan's files when its run never finished (the sandbox threw). */
export function discardCanaries(tree: TreeFs, plan: CanaryPlan): void {
  removeCanaryFiles(tree, plan.placements);
}

/** Runners that run each test file in a process (or context) of its own: the canaries share none with them. */
const OWN_PROCESS: ReadonlySet<TestRunnerKind> = new Set(["node-test", "jest", "vitest"]);

const RANK: Record<IntegrityState, number> = { intact: 0, unverified: 1, tampered: 2 };

/**
 * The integrity of runs put together (batches of one tree): the worst one's, with every tampered or
 * unverified run's detail; none when no run has one.
 */
export function mergeIntegrity(runs: readonly { integrity?: RunIntegrity }[]): { integrity?: RunIntegrity } {
  const all = runs.map((r) => r.integrity).filter((i): i is RunIntegrity => i !== undefined);
  if (all.length === 0) return {};
  if (all.length === 1) return { integrity: all[0]! };
  const worst = all.reduce((a, b) => (RANK[b.state] > RANK[a.state] ? b : a));
  const details = [...new Set(all.filter((i) => i.state === worst.state).map((i) => i.detail))];
  const mixed = all.some((i) => i.state !== worst.state);
  return {
    integrity: {
      state: worst.state,
      detail: `${details.join("; ")}${mixed || all.length > 1 ? ` (${all.filter((i) => i.state === worst.state).length} of ${all.length} runs)` : ""}`,
    },
  };
}
