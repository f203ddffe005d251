/**
 * Where a run's canaries go and what is added to its command, by runner: beside a test file of the
 * repository the run takes (a targeted run's first target, the command's first path, a file the runner
 * finds by its own rules), given to the runner as one more file, or found by it where it looks.
 */
import { posix } from "node:path";
import type { TestRunnerKind } from "../../config/index.ts";
import { DEPENDENCY_DIRS } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import { valueOptionsOf } from "../targets/runner-command.ts";
import type { Focus } from "./focus.ts";
import { pytestTestpaths } from "./python.ts";
import { findTestFile } from "./sample.ts";
import { clean, fnmatch, folderOf, isOption, positionals } from "./args.ts";
import {
  jestPackageDecides,
  MOCHA_DEFAULT_FILE,
  MOCHA_VALUE_OPTIONS,
  mochaConfigSpec,
  mochaWords,
  specFolder,
} from "./runner-configs.ts";
import type { NoCanaries } from "./types.ts";

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

export interface Spot {
  /** Where the canary file goes ("" = root). */
  dirs: string[];
  /** Arguments added to the command (relative paths or module names), given the canary file's path. */
  args: (file: string) => string[];
  /** A whole-suite command's positional scope made explicit (pytest with no positional argument). */
  scope?: string[];
  /** A test file of the run the canaries imitate first (relative to the root). */
  sample?: string;
}

const JS_CONFIGS = {
  jest: /^jest\.config\.(js|ts|mjs|cjs|json)$/,
  vitest: /^(vitest|vite)\.config\.(js|ts|mjs|cjs|mts|cts)$/,
};

/** Where the canaries go for `runner` and what to add to the command; or why none can. */
export function spotFor(
  runner: TestRunnerKind,
  tree: TreeFs,
  words: readonly string[],
  targets: readonly string[] | null,
  focus?: Focus,
): Spot | NoCanaries {
  const stops = DESELECTING[runner];
  const from = runnerStart(runner, words);
  const stop = stops ? words.slice(from).find((w) => stops.test(w)) : undefined;
  if (stop !== undefined)
    return {
      unverified: `the command's option \`${stop}\` could leave the check tests out or stop before them`,
    };
  switch (runner) {
    case "pytest":
      return pytestSpot(tree, words, targets, focus);
    case "unittest":
      return unittestSpot(tree, words, targets);
    case "node-test": {
      if (targets)
        return {
          ...jsSpot(
            tree,
            targets.find((t) => !isOption(t)),
          ),
          args: appended,
        };
      const at = words.indexOf("--test");
      if (at < 0 || !/(^|\/)node$/.test(words[0] ?? ""))
        return { unverified: "the test command does not run `node --test`" };
      const values = valueOptionsOf("node-test");
      // With no file given, node finds its test files by its own rules (the canary beside one of them, named
      // like it); with files, the canary is one more.
      const pos = positionals(words, at + 1, values);
      if (pos.length > 0) return { ...jsSpot(tree, pos[0]), args: appended };
      return {
        ...jsSpot(
          tree,
          findTestFile(tree, (r) => NODE_TEST_FILE.test(r), skipDir, "", focus),
        ),
        args: () => [],
      };
    }
    case "mocha":
      return mochaSpot(tree, words, targets);
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
          pkgKey = pkg !== null && typeof pkg === "object" && jestPackageDecides(pkg.jest);
        } catch {
          pkgKey = true;
        }
      }
      if (config || pkgKey)
        return {
          unverified: `${runner}'s configuration (${config ?? "package.json"}) decides which test files it takes`,
        };
      // With no configuration, a file named like its test files is one of them: a targeted run is given it as
      // one more file, a whole-suite run finds it (beside one of the repository's test files, named alike).
      if (targets)
        return {
          ...jsSpot(
            tree,
            targets.find((t) => !isOption(t)),
          ),
          args: appended,
        };
      const own = runner === "jest" ? JEST_TEST_FILE : VITEST_TEST_FILE;
      return {
        ...jsSpot(
          tree,
          findTestFile(tree, (r) => own.test(r), skipDir, "", focus),
        ),
        args: () => [],
      };
    }
    case "go": {
      const dirs = goDirs(tree, targets ?? goPatterns(words));
      if (typeof dirs === "string") return { unverified: dirs };
      return { dirs, args: () => [] };
    }
    default:
      return { unverified: `check tests are not placed for ${runner} runs` };
  }
}

const appended = (file: string): string[] => [file];

/** pytest: beside the first target, the command's first path or a test file of its `testpaths`. */
function pytestSpot(
  tree: TreeFs,
  words: readonly string[],
  targets: readonly string[] | null,
  focus?: Focus,
): Spot | NoCanaries {
  if (targets) {
    const d = targets.length > 0 ? folderOf(tree, targets[0]!.split("::")[0]!) : "";
    if (d === null) return { unverified: "the first target is not a file or folder of the tree" };
    const file = sampleAt(tree, targets[0]?.split("::")[0]);
    return { ...(file.sample ? { dirs: [d], ...file } : pyIn(tree, d, focus)), args: appended };
  }
  const at = words.findIndex(
    (w, i) => /(^|\/)(py\.test|pytest(-3)?)$/.test(w) || (w === "pytest" && words[i - 1] === "-m"),
  );
  if (at < 0) return { unverified: "the test command does not start pytest" };
  const pos = positionals(words, at + 1, PYTEST_VALUE_OPTIONS);
  if (pos.length > 0) {
    const d = folderOf(tree, pos[0]!);
    if (d === null) return { unverified: `\`${pos[0]}\` is not a file or folder of the tree` };
    const file = sampleAt(tree, pos[0]);
    return { ...(file.sample ? { dirs: [d], ...file } : pyIn(tree, d, focus)), args: appended };
  }
  // No positional argument: pytest runs its `testpaths` (or the current folder); named explicitly, they
  // run as before, the canary file with them.
  const tp = pytestTestpaths(tree);
  if (tp && tp.length > 0) {
    if (tp.some((p) => /[*?[\]]/.test(p) || p.startsWith("-")))
      return { unverified: "pytest's `testpaths` holds a pattern" };
    const d = folderOf(tree, tp[0]!);
    if (d === null) return { unverified: `pytest's testpaths \`${tp[0]}\` is not a folder of the tree` };
    return { ...pyIn(tree, d, focus), args: appended, scope: tp };
  }
  return { ...pyIn(tree, "", focus), args: appended, scope: ["."] };
}

/** unittest: beside the module a target or the command names, else where discovery starts. */
function unittestSpot(
  tree: TreeFs,
  words: readonly string[],
  targets: readonly string[] | null,
): Spot | NoCanaries {
  const asModule = (f: string): string[] => [f.replace(/\.py$/, "").replaceAll("/", ".")];
  if (targets) return { ...unittestModule(tree, targets[0]), args: asModule };
  const at = words.findIndex((w, i) => w === "unittest" && words[i - 1] === "-m");
  if (at < 0) return { unverified: "the test command does not run `python -m unittest`" };
  const rest = words.slice(at + 1);
  const named = rest.filter((w) => !isOption(w));
  if (named.length > 0 && named[0] !== "discover")
    return { ...unittestModule(tree, named[0]), args: asModule };
  // discover [-s start] [-p pattern] [-t top], or start, pattern and top given as words.
  const opt = (s: string, l: string): string | undefined => {
    const i = rest.findIndex((w) => w === s || w === l);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const words2 = [];
  for (let i = 1; i < rest.length; i++) {
    const w = rest[i]!;
    if (["-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory", "-k"].includes(w)) i++;
    else if (!isOption(w)) words2.push(w);
  }
  const start = opt("-s", "--start-directory") ?? words2[0] ?? ".";
  const pattern = opt("-p", "--pattern") ?? words2[1] ?? "test*.py";
  const d = folderOf(tree, start);
  if (d === null) return { unverified: `the discovery folder \`${start}\` is not a folder of the tree` };
  // Discovery reaches a module through packages: beside a test module whose folders all are ones.
  const isPackage = (rel: string): boolean => sampleAt(tree, `${rel}/__init__.py`).sample !== undefined;
  const found = findTestFile(
    tree,
    (rel) => {
      if (!fnmatch(pattern, posix.basename(rel))) return false;
      const parts = posix.dirname(rel).split("/");
      const from = d === "" ? 0 : d.split("/").length;
      for (let k = from + 1; k <= parts.length && parts[0] !== "."; k++)
        if (!isPackage(parts.slice(0, k).join("/"))) return false;
      return true;
    },
    skipDir,
    d,
  );
  const near = found ? posix.dirname(found) : ".";
  return { dirs: [near === "." ? d : near], ...sampleAt(tree, found), args: () => [], scope: [pattern] };
}

/** mocha: given as one more file, beside the first file the command or a targeted run names. */
function mochaSpot(
  tree: TreeFs,
  words: readonly string[],
  targets: readonly string[] | null,
): Spot | NoCanaries {
  if (targets)
    return {
      ...jsSpot(
        tree,
        targets.find((t) => !isOption(t)),
      ),
      args: appended,
    };
  // The words from mocha's own on, a package manager's script (`npm test`) read as the words it runs.
  const own = mochaWords(tree, words);
  if ("reason" in own) return { unverified: own.reason };
  const stop = own.find((w) => DESELECTING.mocha!.test(w));
  if (stop !== undefined)
    return {
      unverified: `the command's option \`${stop}\` could leave the check tests out or stop before them`,
    };
  const files = positionals(own, 1, MOCHA_VALUE_OPTIONS);
  if (files.length > 0) return { ...jsSpot(tree, files[0]), args: appended };
  // No file given: mocha takes the files its configuration names, one more given to it adds to them;
  // with none named, it looks in ./test, where the canary is placed.
  const spec = own.some((w) => /^--(config|package|spec|file)(=|$)/.test(w)) ? null : mochaConfigSpec(tree);
  if (spec === null || "reason" in spec)
    return {
      unverified: `mocha finds its test files by its configuration; a file of check tests given to it would be one more scope${spec ? ` (${spec.reason})` : ""}`,
    };
  if (spec.length > 0) return { ...jsSpot(tree, specFolder(spec[0]!)), args: appended };
  const found = findTestFile(tree, (r) => MOCHA_DEFAULT_FILE.test(r), skipDir, "test");
  if (!found) return { unverified: "mocha looks for its test files in ./test, which holds none" };
  // A canary named `.cjs` is not one mocha 2 to 8 find there (`.js` only): `test` and it are given.
  return { ...jsSpot(tree, found), args: (file) => (file.endsWith(".js") ? [] : ["test", file]) };
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
export function goPackage(tree: TreeFs, dir: string): string | null {
  for (const e of tree.list(dir)) {
    if (e.kind !== "file" || !e.name.endsWith("_test.go")) continue;
    const text = tree.read(posix.join(dir, e.name), { maxBytes: 4 * 1024 * 1024 }).toString("utf8");
    const m = /^\s*package\s+([A-Za-z_]\w*)/m.exec(text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ""));
    if (m) return m[1]!;
  }
  return null;
}

/** The test files node --test, jest and vitest take by their own default rules (no configuration). */
const NODE_TEST_FILE = /([._-]test\.[cm]?js$|(^|\/)test(-[^/]*)?\.[cm]?js$|(^|\/)test\/.*\.[cm]?js$)/;
const JEST_TEST_FILE = /((^|[./])(test|spec)\.[jt]sx?$|(^|\/)__tests__\/.*\.[jt]sx?$)/;
const VITEST_TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const skipDir = (name: string): boolean => DEPENDENCY_DIRS.has(name) || name === "vendor";

/** `arg` as a file of the tree (a sample for the canaries), when it is one. */
function sampleAt(tree: TreeFs, arg: string | null | undefined): { sample?: string } {
  if (!arg) return {};
  const rel = clean(arg);
  try {
    return tree.kind(rel) === "file" ? { sample: rel } : {};
  } catch (err) {
    if (err instanceof TreeFsError) return {};
    throw err;
  }
}

/** A JS canary's folder: beside `arg` when it is a file, in it when a folder, else at the root. */
function jsSpot(tree: TreeFs, arg: string | null | undefined): { dirs: string[]; sample?: string } {
  const d = arg ? folderOf(tree, arg) : null;
  return { dirs: [d ?? ""], ...sampleAt(tree, arg) };
}

/** A unittest canary beside the module `name` names (`tests.test_ops.Ops.test_add` → tests/), else at the root. */
function unittestModule(tree: TreeFs, name: string | undefined): { dirs: string[]; sample?: string } {
  const parts = (name ?? "").split(".");
  for (let k = parts.length; k > 0; k--) {
    if (!parts.slice(0, k).every((p) => /^\w+$/.test(p))) continue;
    const rel = `${parts.slice(0, k).join("/")}.py`;
    const at = sampleAt(tree, rel);
    if (at.sample) return { dirs: [k > 1 ? parts.slice(0, k - 1).join("/") : ""], ...at };
  }
  return { dirs: [""] };
}

const PY_TEST_FILE = /(^|\/)(test[^/]*\.py|[^/]*_test\.py)$/;

/** A pytest canary's folder under `dir`: beside the first test module found there, else `dir` itself. */
function pyIn(tree: TreeFs, dir: string, focus?: Focus): { dirs: string[]; sample?: string } {
  const found = findTestFile(tree, (rel) => PY_TEST_FILE.test(rel), skipDir, dir, focus);
  if (!found) return { dirs: [dir] };
  const at = posix.dirname(found);
  return { dirs: [at === "." ? "" : at], sample: found };
}
