/**
 * go test's check tests: a `_test.go` file in each tested package, named like the package's own test
 * files, with tests named as Go tests are, failing through `t.Errorf` as the package's tests do. They call
 * no code of the package: without its types a borrowed call could stop the package's tests from compiling.
 * `go test` finds them by its own rules: nothing is added to the command.
 */
import { posix } from "node:path";
import { DEPENDENCY_DIRS } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type {
  CanaryRules,
  CanarySource,
  NoCanaries,
  RunnerCanaries,
  SourceInput,
  Spot,
  SpotInput,
} from "../parts/canaries.ts";
import { CANARY_DEFAULTS, clean, deselectingAfter, positionals } from "../shared/canaries-args.ts";

/** Options that could leave the check tests out or stop before them. */
const DESELECTING = /^-(-)?(run|skip|list|failfast|shuffle)(=.*)?$/;

const cap = (w: string): string => w[0]!.toUpperCase() + w.slice(1);

/** The word `test` of `go test`, or -1. */
const start = (words: readonly string[]): number =>
  words.findIndex((w, i) => w === "test" && words[i - 1] === "go");

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

/** In every package the targets or the command's patterns test (`.` when none is given, as `go test` reads it). */
function spot({ tree, words, targets, valueOptions }: SpotInput): Spot | NoCanaries {
  let patterns = targets;
  if (!patterns) {
    const at = start(words);
    const pos = at < 0 ? [] : positionals(words, at + 1, valueOptions);
    patterns = pos.length === 0 ? ["."] : pos;
  }
  const dirs = goDirs(tree, patterns);
  if (typeof dirs === "string") return { unverified: dirs };
  return { dirs, args: () => [] };
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

/** Whether a Go file of `dir` declares `name` at package level (an import of it would clash). */
function declares(tree: TreeFs, dir: string, name: string): boolean {
  const decl = new RegExp(`^(func|var|const|type)\\s+${name}\\b|^\\s+${name}\\s*(=|\\s\\w)`, "m");
  for (const e of tree.list(dir)) {
    if (e.kind !== "file" || !e.name.endsWith(".go")) continue;
    const text = tree.read(dir ? `${dir}/${e.name}` : e.name, { maxBytes: 4 * 1024 * 1024 }).toString("utf8");
    if (decl.test(text)) return true;
  }
  return false;
}

/** The Go check tests for the package in `input.dir`. */
function source(input: SourceInput): CanarySource {
  const goPkg = goPackage(input.tree, input.dir);
  if (!goPkg)
    throw new TreeFsError("missing", input.dir, `no Go package clause found in ${input.dir || "the root"}`);
  const sample = input.tree
    .list(input.dir)
    .filter((e) => e.kind === "file" && e.name.endsWith("_test.go"))
    .map((e) => e.name)
    .sort()[0];
  const core = sample ? sample.replace(/_test\.go$/, "") : goPkg.toLowerCase();
  const passName = `Test${cap(input.token)}`;
  const failName = `${passName}${cap(input.other)}`;
  const os = declares(input.tree, input.dir, "os") ? `${input.token}os` : "os";
  const testing = declares(input.tree, input.dir, "testing") ? `${input.token}testing` : "testing";
  const alias = (name: string, pkg: string): string => (name === pkg ? `"${pkg}"` : `${name} "${pkg}"`);
  const text = [
    `package ${goPkg}`,
    "",
    `import (\n\t${alias(os, "os")}\n\t${alias(testing, "testing")}\n)`,
    "",
    `func ${passName}(t *${testing}.T) {`,
    `\tf, err := ${os}.OpenFile(${JSON.stringify(input.proofName)}, ${os}.O_APPEND|${os}.O_CREATE|${os}.O_WRONLY, 0o644)`,
    "\tif err != nil {\n\t\tt.Fatal(err)\n\t}",
    `\tif _, err := f.WriteString(${JSON.stringify(`${input.proofValue}\n`)}); err != nil {\n\t\tt.Fatal(err)\n\t}`,
    "\tif err := f.Close(); err != nil {\n\t\tt.Fatal(err)\n\t}",
    "}",
    "",
    `func ${failName}(t *${testing}.T) {`,
    `\tgot, want := ${JSON.stringify(input.other)}, ${JSON.stringify(input.impossible)}`,
    "\tif got != want {",
    '\t\tt.Errorf("got %q, want %q", got, want)',
    "\t}",
    "}",
    "",
  ].join("\n");
  const at = sample ? (input.dir ? `${input.dir}/${sample}` : sample) : undefined;
  return { name: `${core}_${input.token}_test.go`, text, passName, failName, ...(at ? { sample: at } : {}) };
}

const rules: CanaryRules = {
  ...CANARY_DEFAULTS,
  deselecting: deselectingAfter(DESELECTING, start),
  spot,
  source,
  // Go's test names carry the word capitalised (`TestKavelo`).
  idToken: cap,
  stoppedBeforeTests: ({ forged, misreported, stdout }) =>
    !forged && !misreported && /\[(build|setup) failed\]/.test(stdout)
      ? "a package's tests did not build, so its check tests could not run (the package's failure is counted)"
      : null,
  // A package fails as a whole when any of its tests fails (`<package>.<package>`).
  groupOf: (id) => {
    const pkg = id.slice(0, id.lastIndexOf("."));
    return { id: `${pkg}.<package>`, prefix: `${pkg}.` };
  },
};

export const canaries: RunnerCanaries = { canaries: rules };
